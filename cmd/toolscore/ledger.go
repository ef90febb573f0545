package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/toolscore/toolscore/ledger"
)

func ledgerCmd(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("ledger", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: toolscore ledger\n\nServes the demo ledger MCP server on stdin/stdout.")
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := ledger.Serve(ctx, version); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "toolscore ledger:", err)
		return 1
	}
	return 0
}
