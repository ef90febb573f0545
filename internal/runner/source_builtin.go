package runner

import (
	"context"

	"github.com/toolscore/toolscore/scenario"
)

// SourceBuiltin is a server built into toolscore (server.builtin), the proxy starts it.
const SourceBuiltin = Source(scenario.ServerBuiltin)

func init() { registerSource(SourceBuiltin, builtinSource{}) }

// builtinSource is a server built into toolscore: toolscore itself, started by the proxy.
type builtinSource struct{}

// serve starts the built-in server through the toolscore binary. On http it serves as a server
// of the cell's protocol generation does: sessionless under 2026-07-28 (the go-sdk serves that
// revision only so), with Mcp-Session-Id sessions otherwise, as 2025-era servers keep them.
func (builtinSource) serve(o Options, j Job, self, work string, s *served) {
	s.pass(o.ServerEnv)
	s.proxy.Command = []string{self, o.Scenario.Server.Builtin}
	if j.Cell.Transport == scenario.TransportHTTP {
		if j.Cell.Protocol == "2026-07-28" {
			s.proxy.Command = append(s.proxy.Command, "--stateless")
		}
		s.proxy.Command = append(s.proxy.Command, "--http", "127.0.0.1:"+scenario.PortPlaceholder)
	}
}

// check has nothing to check: the server is the binary that runs the sweep.
func (builtinSource) check(context.Context, ServerCheck) (bool, error) { return false, nil }

func (builtinSource) fingerprint(scenario.Server) []any { return nil }
func (builtinSource) uncacheable() string               { return "" }
func (builtinSource) preflighted() bool                 { return true }
