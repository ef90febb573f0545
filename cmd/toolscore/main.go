package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/proc"
	"github.com/toolscore/toolscore/internal/selfcmd"
	"github.com/toolscore/toolscore/report"
)

// usage lists the commands; the agents come from the client registry.
var usage = fmt.Sprintf(`toolscore: what MCP clients and agents do when a tool misbehaves

usage:
  toolscore ledger [--http ADDR]           the demo MCP server on stdio or streamable HTTP (always clean)
  toolscore hostile                        a hostile MCP server on stdio, one misbehaviour per tool or HOSTILE_MODE (a test fixture)
  toolscore proxy [flags] -- CMD [ARGS...] a fault-injecting, recording MCP stdio proxy around CMD
  toolscore proxy --listen ADDR [flags] (--upstream URL | -- CMD)  the same over streamable HTTP
  toolscore init [--out F] -- CMD [ARGS]   list a server's tools and write a starter manifest (or --builtin, --url, --image)
  toolscore run [SCENARIO] [flags]         run a scenario's matrix and report the counts
  toolscore run --resume DIR               run on a sweep that was killed or interrupted, from its runs.jsonl
  toolscore replay [--listen ADDR] TEE.jsonl  an MCP server answering from a recorded run, on stdio or streamable HTTP
  toolscore repro OUT_DIR CELL [--run N]   a directory to attach to an issue: one run, replayable
  toolscore bisect --client NAME --good V1 --bad V2 --cell FAULT/SCHEMA[/PROTOCOL[/TRANSPORT]]
                                           the first version of a client whose outcome in a cell changed
  toolscore history [SCENARIO] --clients NAME,... [--from V] [--to V]  since which version each cell's outcome holds
  toolscore report RESULTS [--format F]    re-render a results.json or an output directory (%s)
  toolscore merge [--out DIR] DIR...       merge several outputs of one scenario
  toolscore plan [SCENARIO] --shards N [--from RESULTS]  the GitHub Actions matrix of a sweep's shards, balanced by measured times
  toolscore kube job|merge [SCENARIO] --shards N --image IMAGE  a sweep as a Kubernetes Indexed Job, and the Job that merges it
  toolscore diff BASE NEW [--format F]     the cells whose counts changed against a baseline
  toolscore baseline [RESULTS] [--out F]   write results as the expected ones, a file to commit
  toolscore action                         the GitHub Action's entrypoint (inputs from INPUT_*)
  toolscore images [list|build|prune]      the cell images toolscore builds
  toolscore cache ls|prune                 the cell cache: finished cells later sweeps reuse while the server answers the same
  toolscore clean                          remove every container, volume and image of ours
  toolscore check-client [--agent] -- CMD  check a client adapter of yours against the client contract, on the ledger
  toolscore client NAME                    run one built-in client adapter (the runner's contract)
  toolscore agent NAME                     run one agent adapter (%s) against the scripted model
  toolscore agent defined -- CMD           run a manifest's own agent adapter against the scripted model (TOOLSCORE_MODEL_URL)
  toolscore cell [--serve JSON] -- ADAPTER (inside a cell) run the adapter, the proxy served over HTTP first with --serve
  toolscore serve-stdio --listen ADDR -- CMD  (inside a server container) a fresh CMD for every connection to ADDR
  toolscore connect HOST:PORT              (inside a cell) the server that serve-stdio serves, on stdio
  toolscore demo                           one tools/call through each fault, printed
  toolscore version                        toolscore's version, and the clients' it drives
  toolscore clients [SCENARIO] [--format F]  every client, its library and version, and where it can run here

Run "toolscore COMMAND -h" for a command's flags.
`, strings.Join(report.FormatNames(false), ", "), strings.Join(client.AgentNames(), ", "))

func main() { os.Exit(mainCode(os.Args[1:])) }

// mainCode runs a command with SIGINT and SIGTERM cancelling its context, so every command stops
// cleanly and keeps what it finished. It is the one place an error becomes an exit code: each
// command prints its own messages, and returns an error that carries its code (package
// exitcode).
func mainCode(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return exitcode.Of(run(ctx, args))
}

// runsUntrusted are the commands that start servers and adapters from this process, which
// holds the runner's environment.
var runsUntrusted = []string{"run", "action", "check-client", "bisect", "history", "init", "demo", "cache"}

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return exitcode.UsageError(errors.New("no command"))
	}
	if slices.Contains(runsUntrusted, args[0]) {
		// A run's processes are this user's: without this they could read this process's
		// environment, credentials and all, from /proc/PID/environ.
		_ = proc.Undumpable()
	}
	if selfcmd.Has(args[0]) {
		// The commands a sweep starts of toolscore itself (and init), which sweep.Reenter
		// runs in any program that sweeps with itself as toolscore.
		return selfcmd.Run(ctx, args[0], args[1:])
	}
	switch args[0] {
	case "run":
		return runCmd(ctx, args[1:])
	case "repro":
		return reproCmd(ctx, args[1:])
	case "bisect":
		return bisectCmd(ctx, args[1:])
	case "history":
		return historyCmd(ctx, args[1:])
	case "report":
		return reportCmd(ctx, args[1:])
	case "merge":
		return mergeCmd(ctx, args[1:])
	case "plan":
		return planCmd(ctx, args[1:])
	case "kube":
		return kubeCmd(ctx, args[1:])
	case "action":
		return actionCmd(ctx, args[1:])
	case "diff":
		return diffCmd(ctx, args[1:])
	case "baseline":
		return baselineCmd(ctx, args[1:])
	case "images":
		return imagesCmd(ctx, args[1:])
	case "cache":
		return cacheCmd(ctx, args[1:])
	case "clean":
		return cleanCmd(ctx, args[1:])
	case "check-client":
		return checkClientCmd(ctx, args[1:])
	case "demo":
		return demoCmd(ctx, args[1:])
	case "clients":
		return clientsCmd(ctx, args[1:])
	case "version", "--version":
		return versionCmd(os.Stdout)
	case "help", "-h", "--help":
		fmt.Print(usage)
		return nil
	}
	err := fmt.Errorf("unknown command %q", args[0])
	fmt.Fprintf(os.Stderr, "toolscore: %v\n\n%s", err, usage)
	return exitcode.UsageError(err)
}
