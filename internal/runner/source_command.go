package runner

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/scenario"
)

// SourceCommand is a program the proxy starts, speaking stdio (server.command).
const SourceCommand = Source(scenario.ServerCommand)

func init() { registerSource(SourceCommand, commandSource{}) }

// commandSource is a program the proxy in the cell starts, speaking stdio.
type commandSource struct{}

func (commandSource) serve(o Options, j Job, self, work string, s *served) {
	serveCommandServer(o, j, s)
}

// serveCommandServer has the proxy start the server's command with its variables, and the
// package managers' folder when the sweep keeps one (ServerCache), relaying on http to the path
// it serves: a command server on stdio and one serving HTTP start alike.
func serveCommandServer(o Options, j Job, s *served) {
	s.pass(o.ServerEnv)
	s.proxy.Command = o.Scenario.Server.Command
	if o.ServerCache != "" {
		s.pass(ServerCacheEnv(o.ServerCache))
	}
	if j.Cell.Transport == scenario.TransportHTTP {
		s.proxy.Path = o.Scenario.Server.HTTPPath()
	}
}

func (commandSource) check(ctx context.Context, c ServerCheck) (bool, error) {
	return checkCommand(ctx, c)
}

func (commandSource) fingerprint(srv scenario.Server) []any {
	return []any{srv.Command, srv.Install}
}
func (commandSource) uncacheable() string { return "" }
func (commandSource) preflighted() bool   { return true }

// checkCommand makes sure the server's command can be started where the runs will start it,
// once per distinct cell image, before any run: a server that cannot start is a setup error,
// not a crash of every client. Only the images built so far are checked (on docker a client
// with no cell to run has none).
func checkCommand(ctx context.Context, c ServerCheck) (setup bool, err error) {
	sc, be := c.Scenario, c.Backend
	name := sc.Server.Command[0]
	var env []string
	if p, ok := sc.Server.Env["PATH"]; ok {
		v := p.Value
		if p.FromEnv != "" {
			v = os.Getenv(p.FromEnv)
		}
		env = append(env, "PATH="+v) // the server's PATH is what exec searches
	}
	for _, cl := range sc.Clients {
		if _, out := c.Unavailable[cl.ID()]; out || !c.Made(cl.ID()) {
			continue
		}
		where, image := "", c.Image(cl.ID())
		if image != "" {
			where = " in the image " + image + " (client " + cl.ID() + ")"
		}
		if c.Checked[image] {
			continue
		}
		c.Checked[image] = true
		dir, err := os.MkdirTemp("", "toolscore-check-")
		if err != nil {
			return false, err
		}
		res := be.Run(ctx, backend.Spec{Dir: dir, Client: cl.ID(), Cell: "server check", Command: []string{be.Self(), "lookpath", name}, Env: env, Timeout: time.Minute})
		os.RemoveAll(dir)
		msg := strings.TrimSpace(string(res.Stderr))
		switch {
		case res.Err != nil:
			return false, fmt.Errorf("checking the server command %q%s: %w", name, where, res.Err)
		case res.Cancelled:
			return false, ctx.Err()
		case res.ExitCode == 127:
			return true, sc.ServerError(fmt.Sprintf("the server command %q cannot be started%s: %s", name, where, msg))
		case res.ExitCode != 0 || res.TimedOut:
			return false, fmt.Errorf("checking the server command %q%s: the check exited with status %d: %s", name, where, res.ExitCode, msg)
		}
	}
	return false, nil
}
