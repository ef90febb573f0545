package main

import (
	"context"
	"fmt"
	"os"

	"github.com/toolscore/toolscore/action"
	"github.com/toolscore/toolscore/runner/exitcode"
)

// actionCmd is the GitHub Action's entrypoint (action.yml runs the image with args [action]);
// package action does the work.
func actionCmd(ctx context.Context, args []string) int {
	if len(args) > 0 {
		fmt.Fprintf(os.Stderr, "toolscore action takes no arguments (its inputs are INPUT_* variables), got %q\n", args)
		return exitcode.Usage
	}
	return action.Run(ctx, version, os.Getenv, os.Stdout, os.Stderr)
}
