package main

import (
	"context"
	"fmt"
	"os"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/action"
)

// actionCmd is the GitHub Action's entrypoint (action.yml runs the image with args [action]);
// package action does the work.
func actionCmd(ctx context.Context, args []string) error {
	if len(args) > 0 {
		err := fmt.Errorf("toolscore action takes no arguments (its inputs are INPUT_* variables), got %q", args)
		fmt.Fprintln(os.Stderr, err)
		return exitcode.UsageError(err)
	}
	return exitcode.Status(action.Run(ctx, version, os.Getenv, os.Stdout, os.Stderr))
}
