package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/toolscore/toolscore/runner/agent"
	"github.com/toolscore/toolscore/runner/client"
)

// agentCmd runs one agent adapter under the runner's contract (TOOLSCORE_PROMPT added): the
// agent CLI headless against the scenario's server and the scripted model, one observation line
// out with what the model was shown and what the agent answered.
func agentCmd(ctx context.Context, args []string, stdout io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintf(os.Stderr, "usage: toolscore agent NAME (one of %v), with %s, %s, %s and %s set\n", agent.Names(), client.EnvServer, client.EnvTool, client.EnvArguments, client.EnvPrompt)
		return 2
	}
	adapter, ok := agent.Adapters[args[0]]
	if !ok {
		fmt.Fprintf(os.Stderr, "toolscore agent: unknown agent %q (known: %v)\n", args[0], agent.Names())
		return 2
	}
	req, err := client.RequestFromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolscore agent:", err)
		return 2
	}
	obs, err := adapter(ctx, req)
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscore agent %s: %v\n", args[0], err)
		return 1
	}
	obs.Client = args[0]
	if err := json.NewEncoder(stdout).Encode(obs); err != nil {
		fmt.Fprintln(os.Stderr, "toolscore agent:", err)
		return 1
	}
	return 0
}
