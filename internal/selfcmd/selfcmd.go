// Package selfcmd holds the commands of toolscore that a sweep starts of toolscore itself:
// the proxy, the built-in client and agent adapters, the built-in servers, the cell wrapper,
// the bridges of a server container, the checks run where the server runs (the cell cache's
// replay of recorded sessions among them), and init --json
// (the preflight). cmd/toolscore dispatches them, and so does sweep.Reenter in any program
// that sweeps with itself as Config.Self: a Go test runs a sweep in-process that way, its test
// binary re-executed as toolscore, as testscript re-enters its own.
package selfcmd

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"slices"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/backend/incell"
)

// Version is toolscore's version, as the built-in servers and init's client announce it; main
// sets it from its build stamp.
var Version = "dev"

// Names are the commands Run runs.
var Names = []string{"init", "ledger", "hostile", "proxy", "replay", "client", "agent", "cell", "serve-stdio", "connect", "lookpath", "reach", "probe-server", "cache-replay"}

// Has says whether name is one of Names.
func Has(name string) bool { return slices.Contains(Names, name) }

// Run runs the command name with args (the words after it), as toolscore NAME ARGS does; its
// error carries the exit code (package exitcode).
func Run(ctx context.Context, name string, args []string) error {
	switch name {
	case "init":
		return initCmd(ctx, args)
	case "ledger":
		return ledgerCmd(ctx, args)
	case "hostile":
		return hostileCmd(ctx, args)
	case "proxy":
		return proxyCmd(ctx, args)
	case "replay":
		return replayCmd(ctx, args)
	case "client", "agent":
		adapter := func(w io.Writer) int { return exitcode.Of(adapterCmd(ctx, name, args, w)) }
		if os.Getenv(incell.EnvCellStream) == "1" {
			// In a cell, toolscore's own adapters send the run's files out themselves: one
			// process fewer than the wrapper.
			return exitcode.Status(incell.Adapter(adapter))
		}
		return adapterCmd(ctx, name, args, os.Stdout)
	case "cell":
		// What the docker backend starts in every cell (the adapter, then the run's files out),
		// and what an http cell runs on either backend (the proxy served first).
		return exitcode.Status(incell.Cell(ctx, args))
	case "serve-stdio":
		return serveStdioCmd(ctx, args)
	case "cache-replay":
		return cacheReplayCmd(ctx, args)
	case "connect":
		return connectCmd(ctx, args)
	case "lookpath": // hidden: the server check runs it where the server will run
		return lookpathCmd(args)
	case "reach": // hidden: the url server's check runs it where the proxy will run
		return reachCmd(ctx, args)
	case "probe-server": // hidden: the image server's check runs it in the server's container
		return exitcode.Status(incell.ProbeServer(ctx, args, os.Stdout))
	}
	return exitcode.UsageError(errors.New("toolscore has no command " + name))
}

// ParseFlags parses args into fs. -h is help asked for: the usage on stdout and an error of exit
// code 0; a bad flag prints the usage on stderr and is a usage error.
func ParseFlags(fs *flag.FlagSet, args []string) error {
	usage := fs.Usage
	if usage == nil {
		usage = fs.PrintDefaults
	}
	fs.Usage = func() {} // printed below, where it belongs
	defer func() { fs.Usage = usage }()
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(os.Stdout)
		usage()
		return &exitcode.Error{Code: exitcode.OK, Err: err}
	}
	if err != nil {
		usage()
		return exitcode.UsageError(err)
	}
	return nil
}
