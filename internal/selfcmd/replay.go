package selfcmd

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/replay"
)

// replayCmd serves a recorded run on stdio, or over streamable HTTP with --listen: `toolscore
// replay tee.jsonl` stands in for the server of the run that wrote tee.jsonl.
func replayCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: toolscore replay [--listen ADDR] TEE.jsonl\n\nAn MCP server on stdio that answers a client from a recorded run (a run's tee.jsonl): each\nrequest is matched to the recording by method and parameters and answered with the recorded\nbytes under the new id; a request the recording lacks gets a JSON-RPC error, and stderr says\nwhat was expected and what came. For example: node my-client.js -- toolscore replay tee.jsonl\n\nWith --listen it serves over streamable HTTP at http://ADDR"+replay.HTTPPath+" instead, printing that URL on\nstdout once it listens (ADDR 127.0.0.1:0 picks a free port).\n\nflags:")
		fs.PrintDefaults()
	}
	listen := fs.String("listen", "", "serve over streamable HTTP on this `address` instead of stdio")
	if err := ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitcode.UsageError(fmt.Errorf("replay: want one TEE.jsonl, got %d arguments", fs.NArg()))
	}
	s, warn, err := replay.Load(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolscore replay:", err)
		return exitcode.UsageError(err)
	}
	if warn != nil {
		fmt.Fprintf(os.Stderr, "toolscore replay: %s: %v (replaying what could be read)\n", fs.Arg(0), warn)
	}
	// A client that closes its end is the end of the session, not death by SIGPIPE.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	var code int
	if *listen != "" {
		code, err = s.Listen(ctx, *listen, os.Stdout, os.Stderr)
	} else {
		code, err = s.Play(ctx, os.Stdin, os.Stdout, os.Stderr)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolscore replay:", err)
		return exitcode.Failed(err)
	}
	return exitcode.Status(code)
}
