package selfcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toolscore/toolscore/exitcode"
	// The agents register themselves as clients; agent.Defined runs a manifest's own.
	"github.com/toolscore/toolscore/internal/agent"
	"github.com/toolscore/toolscore/internal/client"
)

// adapterCmd runs one of toolscore's own adapters under the runner's contract: verb "client" a
// built-in client, verb "agent" an agent (TOOLSCORE_PROMPT added: the agent CLI headless
// against the scenario's server and the scripted model). The request comes in the TOOLSCORE_*
// variables, the observation goes out as one JSON line (for an agent, with what the model was
// shown and what the agent answered).
func adapterCmd(ctx context.Context, verb string, args []string, stdout io.Writer) error {
	agents := verb == "agent"
	if agents && len(args) > 0 && args[0] == agent.DefinedName {
		return definedAgentCmd(ctx, args[1:], stdout)
	}
	names, known, vars := client.Names(), "built in", []string{client.EnvServer, client.EnvTool, client.EnvArguments}
	if agents {
		names, known, vars = client.AgentNames(), "known", append(vars, client.EnvPrompt)
	}
	if len(args) != 1 {
		err := fmt.Errorf("usage: toolscore %s NAME (one of %v), with %s and %s set", verb, names, strings.Join(vars[:len(vars)-1], ", "), vars[len(vars)-1])
		fmt.Fprintln(os.Stderr, err)
		return exitcode.UsageError(err)
	}
	d, path, ok := client.Lookup(args[0])
	if !ok || d.Run == nil || d.Agent != agents {
		err := fmt.Errorf("unknown %s %q (%s: %v)", verb, args[0], known, names)
		fmt.Fprintf(os.Stderr, "toolscore %s: %v\n", verb, err)
		return exitcode.UsageError(err)
	}
	req, err := client.RequestFromEnv()
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscore %s: %v\n", verb, err)
		return exitcode.UsageError(err)
	}
	obs, err := d.Run(ctx, req, path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscore %s %s: %v\n", verb, args[0], err)
		return exitcode.Failed(err)
	}
	obs.Client = args[0]
	if err := json.NewEncoder(stdout).Encode(obs); err != nil {
		fmt.Fprintf(os.Stderr, "toolscore %s: %v\n", verb, err)
		return exitcode.Failed(err)
	}
	return nil
}

// definedAgentCmd runs an agent a manifest defines (toolscore agent defined -- CMD...): its
// adapter against the scripted model, the observation with what the model was shown. An
// adapter that fails prints nothing on stdout, so the run is crashed.
func definedAgentCmd(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) < 2 || args[0] != "--" {
		err := fmt.Errorf("usage: toolscore agent %s -- CMD [ARGS...], with %s, %s, %s and %s set", agent.DefinedName, client.EnvServer, client.EnvTool, client.EnvArguments, client.EnvPrompt)
		fmt.Fprintln(os.Stderr, err)
		return exitcode.UsageError(err)
	}
	req, err := client.RequestFromEnv()
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscore agent %s: %v\n", agent.DefinedName, err)
		return exitcode.UsageError(err)
	}
	obs, err := agent.Defined(ctx, req, args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscore agent %s: %v\n", agent.DefinedName, err)
		return exitcode.Failed(err)
	}
	if err := json.NewEncoder(stdout).Encode(obs); err != nil {
		fmt.Fprintf(os.Stderr, "toolscore agent %s: %v\n", agent.DefinedName, err)
		return exitcode.Failed(err)
	}
	return nil
}
