// Command toolscore measures what MCP clients and agents do when a tool misbehaves.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

const usage = `toolscore: what MCP clients and agents do when a tool misbehaves

usage:
  toolscore ledger                         the demo MCP server on stdio (always clean)
  toolscore proxy [flags] -- CMD [ARGS...] a fault-injecting, recording MCP stdio proxy around CMD
  toolscore demo                           one tools/call through each fault, printed
  toolscore version

Run "toolscore COMMAND -h" for a command's flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return 2
	}
	switch args[0] {
	case "ledger":
		return ledgerCmd(ctx, args[1:])
	case "proxy":
		return proxyCmd(ctx, args[1:])
	case "demo":
		return demoCmd(ctx, args[1:])
	case "version", "--version":
		fmt.Println("toolscore", version)
		return 0
	case "help", "-h", "--help":
		fmt.Print(usage)
		return 0
	}
	fmt.Fprintf(os.Stderr, "toolscore: unknown command %q\n\n%s", args[0], usage)
	return 2
}
