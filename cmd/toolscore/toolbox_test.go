package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolboxTokenEnv is the variable the toolbox server needs when started as toolbox-env.
const toolboxTokenEnv = "TOOLBOX_TOKEN"

// toolbox is a small multi-tool MCP server on stdio for the preflight and init tests, run as
// `badserver toolbox` (or `badserver toolbox-env`, which exits as an npx server does without
// its variable): five tools, two a page of tools/list, so a client must follow nextCursor to
// see the last; echo (no outputSchema) requires a string message, get-sum (a hyphenated name)
// publishes an outputSchema. Like many servers, it does not validate arguments itself.
func toolbox(needsEnv bool) int {
	if needsEnv && os.Getenv(toolboxTokenEnv) == "" {
		// What an npx server prints: the reason among package-manager notices, the last line a notice.
		fmt.Fprintln(os.Stderr, "npm notice Downloading toolbox-server@1.0.0")
		fmt.Fprintln(os.Stderr, "Error: "+toolboxTokenEnv+" environment variable is not set")
		fmt.Fprintln(os.Stderr, "npm notice New minor version of npm available! 10.8.2 -> 10.9.0")
		return 1
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "toolbox", Version: "1"}, &mcp.ServerOptions{PageSize: 2})
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	obj := json.RawMessage(`{"type":"object"}`)
	s.AddTool(&mcp.Tool{Name: "get-sum", Description: "Adds a and b.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ A, B float64 }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			r := text(fmt.Sprint(in.A + in.B))
			r.StructuredContent = map[string]any{"sum": in.A + in.B}
			return r, nil
		})
	s.AddTool(&mcp.Tool{Name: "time_now", Description: "The time.", InputSchema: obj},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("04:30"), nil })
	s.AddTool(&mcp.Tool{Name: "get.status", Description: "A dotted name.", InputSchema: obj},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("ok"), nil })
	s.AddTool(&mcp.Tool{Name: "list-items", Description: "Lists items.", InputSchema: obj},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("a, b"), nil })
	// Last by name, so on the last page.
	s.AddTool(&mcp.Tool{Name: "zecho", Description: "Echoes message.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ Message any }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			return text(fmt.Sprint("echo: ", in.Message)), nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		return 1
	}
	return 0
}
