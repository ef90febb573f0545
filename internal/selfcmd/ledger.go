package selfcmd

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/ledger"
)

func ledgerCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("ledger", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: toolscore ledger [--http ADDR [--json] [--stateless]]\n\nServes the demo ledger MCP server on stdin/stdout, or over streamable HTTP at http://ADDR"+ledger.HTTPPath+",\nprinting that URL on stdout once it listens (ADDR 127.0.0.1:0 picks a free port).\n\nflags:")
		fs.PrintDefaults()
	}
	addr := fs.String("http", "", "serve streamable HTTP on `ADDR` instead of stdio")
	var o ledger.HTTPOptions
	fs.BoolVar(&o.JSON, "json", false, "with --http: answer each POST with an application/json body, not an SSE stream")
	fs.BoolVar(&o.Stateless, "stateless", false, "with --http: keep no session (no Mcp-Session-Id; GET and DELETE refused)")
	if err := ParseFlags(fs, args); err != nil {
		return err
	}
	if *addr == "" {
		if err := ledger.Serve(ctx, Version); err != nil && ctx.Err() == nil {
			fmt.Fprintln(os.Stderr, "toolscore ledger:", err)
			return exitcode.Failed(err)
		}
		return nil
	}
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscore ledger: --http %s: %v\n", *addr, err)
		return exitcode.Failed(err)
	}
	fmt.Printf("http://%s%s\n", l.Addr(), ledger.HTTPPath)
	if err := ledger.ServeHTTP(ctx, l, Version, o); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, "toolscore ledger:", err)
		return exitcode.Failed(err)
	}
	return nil
}
