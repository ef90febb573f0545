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

// unreachable is the exit status of `toolscore reach` when no connection could be made.
const unreachable = 69

// checkURLServer connects once to a url server from where the proxy will (a cell on the
// server's network), before any run: one nothing answers at (refused, no such host, a failed TLS
// handshake, a timeout) is a setup error naming the url, not a `threw` of every client. Any HTTP
// answer, even 401 or 405, is reachable.
func checkURLServer(ctx context.Context, be runner.Backend, sc *scenario.Scenario, unavailable map[string]string) (setup bool, err error) {
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
		res := be.Run(ctx, backend.Spec{Dir: dir, Client: c.ID(), Cell: "server check", Command: []string{be.Self(), "reach", sc.Server.URL}, Network: sc.Server.Network, Timeout: time.Minute})
		msg := report.Plain(strings.TrimSpace(string(res.Stderr))) // an error may quote what the server sent
		switch {
		case res.Err != nil:
			return false, fmt.Errorf("checking the server url %s: %w", sc.Server.URL, res.Err)
		case res.Cancelled:
			return false, ctx.Err()
		case res.ExitCode == unreachable:
			return true, fmt.Errorf("the server url %s cannot be reached (network %s): %s", sc.Server.URL, sc.Server.Network, msg)
		case res.ExitCode != 0 || res.TimedOut:
			return false, fmt.Errorf("checking the server url %s: the check exited with status %d: %s", sc.Server.URL, res.ExitCode, msg)
		}
		return false, nil // one cell's view of the network is every cell's
	}
	return false, nil
}
