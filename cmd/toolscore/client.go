package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/toolscore/toolscore/runner/client"
)

// clientCmd runs one built-in adapter under the runner's contract: the request comes in the
// TOOLSCORE_* variables, the observation goes out as one JSON line.
func clientCmd(ctx context.Context, args []string, stdout io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintf(os.Stderr, "usage: toolscore client NAME (one of %v), with %s, %s and %s set\n", client.Names(), client.EnvServer, client.EnvTool, client.EnvArguments)
		return 2
	}
	adapter, ok := client.Builtins[args[0]]
	if !ok {
		fmt.Fprintf(os.Stderr, "toolscore client: unknown client %q (built in: %v)\n", args[0], client.Names())
		return 2
	}
	req, err := client.RequestFromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolscore client:", err)
		return 2
	}
	obs, err := adapter(ctx, req)
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscore client %s: %v\n", args[0], err)
		return 1
	}
	obs.Client = args[0]
	if err := json.NewEncoder(stdout).Encode(obs); err != nil {
		fmt.Fprintln(os.Stderr, "toolscore client:", err)
		return 1
	}
	return 0
}
