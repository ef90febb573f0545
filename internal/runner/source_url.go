package runner

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/scenario"
)

// SourceURL is a streamable HTTP endpoint the proxy relays to (server.url).
const SourceURL = Source(scenario.ServerURL)

func init() { registerSource(SourceURL, urlSource{}) }

// urlSource is a remote streamable HTTP endpoint: the proxy relays to it, on the network the
// manifest names, adding its Authorization.
type urlSource struct{}

func (urlSource) serve(o Options, j Job, self, work string, s *served) {
	srv := o.Scenario.Server
	s.pass(o.ServerEnv)
	s.proxy.Upstream, s.network = srv.URL, srv.Network
	if srv.AuthEnv != "" {
		s.proxy.Header = []string{"Authorization=" + AuthEnv}
	}
}

// Exit statuses of `toolscore reach`: no connection could be made, or what came back to its
// MCP initialize is not MCP.
const (
	unreachable = 69
	notMCP      = 76
)

// check sends one MCP initialize to the server from where the proxy will (a cell on the server's
// network, with the Authorization the proxy adds), once, before any run: one nothing answers at
// (refused, no such host, a failed TLS handshake, a timeout), or that answers something else
// than MCP (an HTML page, a 404, a connection left silent for the run's timeout, a redirect to
// another origin), is a setup error naming the url and what came back, not a `hung` or `threw`
// of every client.
func (urlSource) check(ctx context.Context, c ServerCheck) (bool, error) {
	sc, be := c.Scenario, c.Backend
	if c.Checked["server url"] {
		return false, nil
	}
	c.Checked["server url"] = true
	for _, cl := range sc.Clients {
		if _, out := c.Unavailable[cl.ID()]; out {
			continue
		}
		dir, err := os.MkdirTemp("", "toolscore-check-")
		if err != nil {
			return false, err
		}
		defer os.RemoveAll(dir)
		var env []string
		if c.Auth != "" {
			env = []string{AuthEnv + "=" + c.Auth}
		}
		// As long to answer as a run gives it.
		within := sc.Timeout.Std()
		res := be.Run(ctx, backend.Spec{Dir: dir, Client: cl.ID(), Cell: "server check", Command: []string{be.Self(), "reach", "--within", within.String(), sc.Server.URL}, Env: env, Network: sc.Server.Network, Timeout: within + time.Minute})
		msg := report.Plain(strings.TrimSpace(string(res.Stderr))) // an error may quote what the server sent
		switch {
		case res.Err != nil:
			return false, fmt.Errorf("checking the server url %s: %w", sc.Server.URL, res.Err)
		case res.Cancelled:
			return false, ctx.Err()
		case res.ExitCode == unreachable:
			return true, sc.ServerError(fmt.Sprintf("the server url %s cannot be reached (network %s): %s", sc.Server.URL, sc.Server.Network, msg))
		case res.ExitCode == notMCP:
			return true, sc.ServerError(fmt.Sprintf("the server url %s (network %s): %s", sc.Server.URL, sc.Server.Network, msg))
		case res.ExitCode != 0 || res.TimedOut:
			return false, fmt.Errorf("checking the server url %s: the check exited with status %d: %s", sc.Server.URL, res.ExitCode, msg)
		}
		return false, nil // one cell's view of the network is every cell's
	}
	return false, nil
}

func (urlSource) fingerprint(scenario.Server) []any { return nil }
func (urlSource) uncacheable() string {
	return "a url server cannot be started afresh for each recorded session, so its answers cannot be checked"
}

// preflighted is false: the preflight's proxy is a stdio cell's.
func (urlSource) preflighted() bool { return false }
