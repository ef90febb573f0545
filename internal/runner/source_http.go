package runner

import (
	"context"

	"github.com/toolscore/toolscore/scenario"
)

// SourceHTTP is a program the proxy starts that serves streamable HTTP itself (server.command
// with server.http).
const SourceHTTP = Source(scenario.ServerHTTP)

func init() { registerSource(SourceHTTP, httpSource{}) }

// httpSource is a command server serving streamable HTTP: started as a stdio one is, the proxy
// relaying to the path it serves.
type httpSource struct{}

func (httpSource) serve(o Options, j Job, self, work string, s *served) {
	serveCommandServer(o, j, s)
}

func (httpSource) check(ctx context.Context, c ServerCheck) (bool, error) {
	return checkCommand(ctx, c)
}

func (httpSource) fingerprint(srv scenario.Server) []any {
	return []any{srv.Command, srv.Install}
}
func (httpSource) uncacheable() string { return "a server that serves HTTP itself is not checked yet" }

// preflighted is false: the preflight's proxy is a stdio cell's, which this server does not speak.
func (httpSource) preflighted() bool { return false }
