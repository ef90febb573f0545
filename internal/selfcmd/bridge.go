package selfcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/bridge"
)

// serveStdioCmd is what a server container runs: a stdio server behind a loopback port, a fresh
// process of it for every connection.
func serveStdioCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("serve-stdio", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: toolscore serve-stdio --listen ADDR -- CMD [ARGS...]\n\nServes the stdio server CMD on ADDR: each connection gets a fresh process of it (see toolscore connect).\n\nflags:")
		fs.PrintDefaults()
	}
	listen := fs.String("listen", "127.0.0.1:0", "the address to listen on")
	if err := ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitcode.UsageError(errors.New("serve-stdio: no server command after --"))
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolscore serve-stdio:", err)
		return exitcode.Failed(err)
	}
	fmt.Fprintln(os.Stderr, "toolscore serve-stdio: listening on", ln.Addr())
	// The server sees its container's environment: its image's and the manifest's server.env.
	if err := bridge.Serve(ctx, ln, fs.Args(), os.Environ()); err != nil {
		fmt.Fprintln(os.Stderr, "toolscore serve-stdio:", err)
		return exitcode.Failed(err)
	}
	return nil
}

// connectCmd is the server of a bridge (toolscore serve-stdio) on this process's stdio, as the
// proxy starts a server command.
func connectCmd(ctx context.Context, args []string) error {
	if len(args) != 1 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(os.Stderr, "usage: toolscore connect HOST:PORT\n\nRelays stdio to the server that toolscore serve-stdio serves at HOST:PORT; exits with the server's status.")
		return exitcode.UsageError(errors.New("connect: want HOST:PORT"))
	}
	// A proxy that closes its end must not kill this process before the server's exit is told.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	return exitcode.Status(bridge.Connect(ctx, args[0], os.Stdin, os.Stdout, os.Stderr))
}
