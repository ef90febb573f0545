package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/toolscore/toolscore/runner"
	"github.com/toolscore/toolscore/runner/backend"
	"github.com/toolscore/toolscore/runner/scenario"
)

// lookpathCmd is hidden: it resolves a command the way exec does where it runs (in a cell
// image, most of which have no shell for `command -v`), so a sweep can check its server first.
func lookpathCmd(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: toolscore lookpath COMMAND")
		return 2
	}
	path, err := exec.LookPath(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 127
	}
	fmt.Println(path)
	return 0
}

// checkServer makes sure the scenario's server command can be started where the runs will start
// it, once per distinct cell image, before any run: a server that cannot start is a setup error,
// not a crash of every client. setup says the command is missing (exit 2); otherwise err means
// the check itself could not run.
func checkServer(ctx context.Context, be runner.Backend, sc *scenario.Scenario, unavailable map[string]string) (setup bool, err error) {
	// An image server's command is found in its image, by its own bridge, when a run starts it.
	if sc.Server.Builtin != "" || sc.Server.Image != "" || len(sc.Server.Command) == 0 {
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
	d, _ := be.(*backend.Docker)
	checked := map[string]bool{}
	for _, c := range sc.Clients {
		if _, out := unavailable[c.ID()]; out {
			continue
		}
		where, image := "", ""
		if d != nil {
			image = d.Images[c.ID()]
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
			return true, fmt.Errorf("the server command %q cannot be started%s: %s", name, where, msg)
		case res.ExitCode != 0 || res.TimedOut:
			return false, fmt.Errorf("checking the server command %q%s: the check exited with status %d: %s", name, where, res.ExitCode, msg)
		}
	}
	return false, nil
}
