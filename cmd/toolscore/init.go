package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscore/toolscore/runner/runenv"
	"github.com/toolscore/toolscore/runner/scenario"
)

// initTimeout bounds how long init waits for a server to start and list its tools.
const initTimeout = 60 * time.Second

func initCmd(ctx context.Context, args []string) int {
	fls := flag.NewFlagSet("init", flag.ContinueOnError)
	fls.Usage = func() {
		fmt.Fprintln(fls.Output(), "usage: toolscore init [--out FILE] [--tool NAME] (--builtin ledger | -- CMD [ARGS...])\n\nStarts the MCP server, lists its tools and writes a commented starter manifest: the tool to\ncall with its required arguments, the default faults, schema modes and clients. Values it\ncannot fill in say "+scenario.Placeholder+", and the manifest does not run until they are filled.\n\nflags:")
		fls.PrintDefaults()
	}
	out := fls.String("out", "scenario.yaml", "where to write the manifest (- for stdout); an existing file is never overwritten")
	tool := fls.String("tool", "", "the tool to call (default: the first that publishes an output schema, else the first)")
	builtin := fls.String("builtin", "", "a server built into toolscore (ledger) instead of CMD")
	if err := fls.Parse(args); err != nil {
		return 2
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "toolscore init: "+format+"\n", a...)
		return code
	}
	st := scenario.Starter{Tool: *tool}
	var command []string
	switch {
	case *builtin != "" && fls.NArg() > 0:
		return fail(2, "give --builtin or a server command after --, not both")
	case *builtin == "ledger":
		self, err := os.Executable()
		if err != nil {
			return fail(1, "finding toolscore's own binary: %v", err)
		}
		command, st.Server.Builtin, st.Name = []string{self, "ledger"}, "ledger", "ledger"
	case *builtin != "":
		return fail(2, "--builtin: no server %q is built in (ledger is)", *builtin)
	case fls.NArg() == 0:
		return fail(2, "name the server: --builtin ledger, or -- CMD [ARGS...] (the command that starts it on stdio)")
	default:
		command = fls.Args()
		st.Server.Command = command
	}
	if *out != "-" {
		if _, err := os.Stat(*out); err == nil {
			return fail(1, "%s exists; init never overwrites a manifest (give --out another file)", *out)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fail(1, "%s: %v", *out, err)
		}
	}
	tools, server, err := listTools(ctx, command)
	if err != nil {
		return fail(1, "%v", err)
	}
	st.Tools = tools
	if st.Name == "" {
		st.Name = server
	}
	text, err := st.Write()
	if err != nil {
		return fail(1, "%v", err)
	}
	if *out == "-" {
		_, _ = os.Stdout.Write(text)
		return 0
	}
	// O_EXCL: a file made since the check above is not overwritten either.
	f, err := os.OpenFile(*out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err == nil {
		_, err = f.Write(text)
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		return fail(1, "writing %s: %v", *out, err)
	}
	fmt.Fprintf(os.Stderr, "toolscore init: wrote %s (%d tools listed); fill in every %s, then: toolscore run %s\n", *out, len(tools), scenario.Placeholder, *out)
	return 0
}

// listTools starts the server command on stdio, as a run would (with the run's allowlisted
// environment only), and lists its tools, every page of them.
func listTools(ctx context.Context, command []string) ([]scenario.StarterTool, string, error) {
	ctx, cancel := context.WithTimeout(ctx, initTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	cmd.Env = runenv.Allowed(os.Environ())
	cmd.Stderr = os.Stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "toolscore-init", Version: version}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, "", fmt.Errorf("starting the server %q and initializing a session: %w", command, err)
	}
	defer cs.Close()
	name := ""
	if r := cs.InitializeResult(); r != nil && r.ServerInfo != nil {
		name = r.ServerInfo.Name
	}
	var tools []scenario.StarterTool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, "", fmt.Errorf("listing the server's tools: %w", err)
		}
		st := scenario.StarterTool{Name: t.Name, Description: t.Description}
		st.InputSchema, st.OutputSchema = asObject(t.InputSchema), asObject(t.OutputSchema)
		tools = append(tools, st)
	}
	return tools, name, nil
}

// asObject turns a schema as the SDK holds it (any) into a plain JSON object.
func asObject(schema any) map[string]any {
	if schema == nil {
		return nil
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return nil
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}
