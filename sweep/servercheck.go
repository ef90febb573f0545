package sweep

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/backend/docker"
	"github.com/toolscore/toolscore/internal/runner"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/scenario"
)

// checkServer makes sure the scenario's server command can be started where the runs will start
// it, once per distinct cell image, before any run: a server that cannot start is a setup error,
// not a crash of every client. Only the images built so far are checked (on docker a client
// with no cell to run has none), each once whatever the calls: checked holds those done. setup
// says the command is missing, or an image server exited before it listened (exit 2);
// otherwise err means the check itself could not run.
func checkServer(ctx context.Context, choice runner.Choice, sc *scenario.Scenario, checked map[string]bool) (setup bool, err error) {
	be, unavailable := choice.Backend, choice.Unavailable
	if sc.Server.Image != "" {
		if checked["server image"] {
			return false, nil
		}
		checked["server image"] = true
		return checkImageServer(ctx, choice, sc)
	}
	if sc.Server.Builtin != "" || len(sc.Server.Command) == 0 {
		return false, nil
	}
	name := sc.Server.Command[0]
	var env []string
	if p, ok := sc.Server.Env["PATH"]; ok {
		v := p.Value
		if p.FromEnv != "" {
			v = os.Getenv(p.FromEnv)
		}
		env = append(env, "PATH="+v) // the server's PATH is what exec searches
	}
	for _, c := range sc.Clients {
		if _, out := unavailable[c.ID()]; out || !choice.Installs.Made(c.ID()) {
			continue
		}
		where, image := "", choice.Image(c.ID())
		if image != "" {
			where = " in the image " + image + " (client " + c.ID() + ")"
		}
		if checked[image] {
			continue
		}
		checked[image] = true
		dir, err := os.MkdirTemp("", "toolscore-check-")
		if err != nil {
			return false, err
		}
		res := be.Run(ctx, backend.Spec{Dir: dir, Client: c.ID(), Cell: "server check", Command: []string{be.Self(), "lookpath", name}, Env: env, Timeout: time.Minute})
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

// checkImageServer starts the image server once, as its runs will, before any run (when some
// client will run beside it): one that exits before it listens is a setup error naming the
// image, its exit status and its last output (its server.env values masked), never a hang of
// every run.
func checkImageServer(ctx context.Context, choice runner.Choice, sc *scenario.Scenario) (setup bool, err error) {
	unavailable := choice.Unavailable
	if !slices.ContainsFunc(sc.Clients, func(c scenario.Client) bool { _, out := unavailable[c.ID()]; return !out }) {
		return false, nil
	}
	env, secrets, err := sc.ServerEnv(os.LookupEnv)
	if err != nil {
		return true, err
	}
	err = choice.CheckImageServer(ctx, sc, env)
	var failed *docker.StartFailure
	if errors.As(err, &failed) {
		for _, s := range secrets {
			if s != "" {
				failed.Output = strings.ReplaceAll(failed.Output, s, "[masked]")
			}
		}
		return true, errors.New(report.Plain(failed.Error())) // the server's output is hostile text
	}
	if err != nil {
		return false, fmt.Errorf("checking the server image %s: %w", sc.Server.Image, err)
	}
	return false, nil
}
