package goadapter

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Main is the adapter built on its own (see Source): the runner's adapter contract (internal/client
// adapter.go), read from the environment, for the client args[0] names, such as go-sdk/call. It
// prints the observation line and returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: goadapter go-sdk/call|go-sdk/list-then-call|mcp-go/call|mcp-go/list-then-call, with TOOLSCORE_SERVER (or TOOLSCORE_URL), TOOLSCORE_TOOL and TOOLSCORE_ARGUMENTS set")
		return 2
	}
	lib, path, _ := strings.Cut(args[0], "/")
	list := path == "list-then-call"
	var server []string
	url := os.Getenv("TOOLSCORE_URL")
	if url == "" {
		if err := json.Unmarshal([]byte(os.Getenv("TOOLSCORE_SERVER")), &server); err != nil || len(server) == 0 {
			fmt.Fprintf(stderr, "goadapter: TOOLSCORE_SERVER must be a JSON array naming the server command (or TOOLSCORE_URL its URL), got %q\n", os.Getenv("TOOLSCORE_SERVER"))
			return 2
		}
	}
	tool := os.Getenv("TOOLSCORE_TOOL")
	var arguments map[string]any
	if a := strings.TrimSpace(os.Getenv("TOOLSCORE_ARGUMENTS")); a != "" {
		if err := json.Unmarshal([]byte(a), &arguments); err != nil {
			fmt.Fprintf(stderr, "goadapter: TOOLSCORE_ARGUMENTS must be a JSON object: %v\n", err)
			return 2
		}
	}
	// The server is asked to stop first, as toolscore's own adapters do.
	prepare := func(cmd *exec.Cmd) {
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
		cmd.WaitDelay = 5 * time.Second
	}
	var res Result
	var err error
	module := GoSDKModule
	switch lib {
	case "go-sdk":
		var t mcp.Transport = &mcp.StreamableClientTransport{Endpoint: url}
		if url == "" {
			cmd := exec.CommandContext(ctx, server[0], server[1:]...)
			prepare(cmd)
			t = &mcp.CommandTransport{Command: cmd}
		}
		res, err = GoSDK(ctx, t, tool, arguments, list)
	case "mcp-go":
		module = MCPGoModule
		c, cerr := MCPGoClient(ctx, server, url, prepare)
		if err = cerr; err == nil {
			defer c.Close()
			res, err = MCPGo(ctx, c, tool, arguments, list)
		}
	default:
		fmt.Fprintf(stderr, "goadapter: unknown client %q (go-sdk/..., mcp-go/...)\n", args[0])
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "goadapter %s: %v\n", args[0], err)
		return 1
	}
	// The observation's fields, as internal/record.Observation names them.
	obs := struct {
		Client   string          `json:"client"`
		Library  string          `json:"library"`
		Returned json.RawMessage `json:"returned,omitempty"`
		Raised   *Raised         `json:"raised,omitempty"`
		Listed   bool            `json:"listed"`
	}{args[0], module + " " + ModuleVersion(module), res.Returned, res.Raised, list}
	if err := json.NewEncoder(stdout).Encode(obs); err != nil {
		fmt.Fprintln(stderr, "goadapter:", err)
		return 1
	}
	return 0
}
