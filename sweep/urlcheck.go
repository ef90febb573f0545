package sweep

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/runner"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/scenario"
)

// Exit statuses of `toolscore reach`: no connection could be made, or what came back to its
// MCP initialize is not MCP.
const (
	unreachable = 69
	notMCP      = 76
)

// checkURLServer sends one MCP initialize to a url server from where the proxy will (a cell on
// the server's network, with the Authorization auth the proxy adds), before any run: one nothing
// answers at (refused, no such host, a failed TLS handshake, a timeout), or that answers
// something else than MCP (an HTML page, a 404, a connection left silent for the run's timeout,
// a redirect to another origin), is a setup error naming the url and what came back, not a
// `hung` or `threw` of every client.
func checkURLServer(ctx context.Context, be runner.Backend, sc *scenario.Scenario, auth string, unavailable map[string]string) (setup bool, err error) {
	if sc.Server.URL == "" {
		return false, nil
	}
	for _, c := range sc.Clients {
		if _, out := unavailable[c.ID()]; out {
			continue
		}
		dir, err := os.MkdirTemp("", "toolscore-check-")
		if err != nil {
			return false, err
		}
		defer os.RemoveAll(dir)
		var env []string
		if auth != "" {
			env = []string{runner.AuthEnv + "=" + auth}
		}
		// As long to answer as a run gives it.
		within := sc.Timeout.Std()
		res := be.Run(ctx, backend.Spec{Dir: dir, Client: c.ID(), Cell: "server check", Command: []string{be.Self(), "reach", "--within", within.String(), sc.Server.URL}, Env: env, Network: sc.Server.Network, Timeout: within + time.Minute})
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
