package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/toolscore/toolscore/action"
	"github.com/toolscore/toolscore/runner/report"
)

// actionCmd is the GitHub Action's entrypoint (action.yml runs the image with args [action]);
// package action does the work, with toolscore run and merge as its commands.
func actionCmd(ctx context.Context, args []string) int {
	if len(args) > 0 {
		fmt.Fprintf(os.Stderr, "toolscore action takes no arguments (its inputs are INPUT_* variables), got %q\n", args)
		return exitUsage
	}
	return action.Run(ctx, actionCommands{}, os.Getenv, os.Stdout, os.Stderr)
}

// actionCommands are toolscore run and merge as the action runs them; their own fail-on is
// expect, for their log: the step's exit code is the action's decision.
type actionCommands struct{}

func (actionCommands) Load(path string) action.Manifest {
	sc, err := loadScenario(path)
	return action.Manifest{Scenario: sc, Err: err}
}

func (actionCommands) Sweep(ctx context.Context, m action.Manifest, in action.SweepInputs, stdout, stderr io.Writer) action.Sweep {
	if m.Err != nil {
		return action.Sweep{Code: loadFailed(stderr, m.Err), Err: m.Err}
	}
	res, out, code, err := sweepScenario(ctx, sweepArgs{SweepInputs: in, FailOn: report.FailOnExpect}, m.Scenario, stdout, stderr)
	return action.Sweep{Results: res, Out: out, Code: code, Err: err}
}

func (actionCommands) Merge(ctx context.Context, out string, dirs []string, stdout, stderr io.Writer) action.Sweep {
	res, out, code, err := mergeOutputs(out, dirs, report.FailOnExpect, stdout, stderr)
	return action.Sweep{Results: res, Out: out, Code: code, Err: err}
}
