package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/toolscore/toolscore/runner/proc"
)

const mcpGoModule = "github.com/mark3labs/mcp-go"

func init() {
	Register(Descriptor{Name: "mcp-go", Paths: CallPaths, Module: mcpGoModule,
		Run: func(ctx context.Context, r Request, path string) (*Observation, error) {
			return MCPGo(ctx, r, path == PathListThenCall)
		}})
}

// MCPGo calls a tool through github.com/mark3labs/mcp-go's client, after ListTools when list
// is set.
func MCPGo(ctx context.Context, r Request, list bool) (*Observation, error) {
	obs := &Observation{Client: "mcp-go/call", Library: mcpGoModule + " " + moduleVersion(mcpGoModule), Listed: list}
	if list {
		obs.Client = "mcp-go/list-then-call"
	}
	if r.URL == "" {
		// The library starts the proxy on this goroutine, whose thread is held until the proxy
		// is gone (see proc.DieWithParent).
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	c, err := mcpGoClient(ctx, r)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "toolscore-mcp-go", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return nil, fmt.Errorf("mcp-go could not initialize: %w", err)
	}
	if list {
		if _, err := c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
			obs.Raised = raised(err)
			return obs, nil
		}
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = r.Tool
	req.Params.Arguments = r.Arguments
	res, err := c.CallTool(ctx, req)
	if err != nil {
		obs.Raised = raised(err)
		// mcp-go turns a JSON-RPC error into a sentinel per code; give the code back.
		for code, sentinel := range map[int64]error{
			mcp.PARSE_ERROR: mcp.ErrParseError, mcp.INVALID_REQUEST: mcp.ErrInvalidRequest, mcp.METHOD_NOT_FOUND: mcp.ErrMethodNotFound,
			mcp.INVALID_PARAMS: mcp.ErrInvalidParams, mcp.INTERNAL_ERROR: mcp.ErrInternalError,
		} {
			if errors.Is(err, sentinel) {
				obs.Raised.Code = &code
			}
		}
		return obs, nil
	}
	if obs.Returned, err = json.Marshal(res); err != nil {
		return nil, err
	}
	return obs, nil
}

// mcpGoClient is mcp-go's client for the request's transport: its streamable HTTP client for a
// URL, else its stdio client starting the server command.
func mcpGoClient(ctx context.Context, r Request) (*mcpclient.Client, error) {
	if r.URL != "" {
		c, err := mcpclient.NewStreamableHttpClient(r.URL)
		if err == nil {
			err = c.Start(ctx)
		}
		if err != nil {
			return nil, fmt.Errorf("mcp-go could not connect to %s: %w", r.URL, err)
		}
		return c, nil
	}
	// The command is the library's own, but tied to this run.
	c, err := mcpclient.NewStdioMCPClientWithOptions(r.Server[0], os.Environ(), r.Server[1:], transport.WithCommandFunc(
		func(_ context.Context, command string, env, args []string) (*exec.Cmd, error) {
			cmd := exec.CommandContext(ctx, command, args...)
			cmd.Env = append(os.Environ(), env...)
			askToStop(cmd)
			proc.DieWithParent(cmd)
			return cmd, nil
		}))
	if err != nil {
		return nil, fmt.Errorf("mcp-go could not start the server: %w", err)
	}
	return c, nil
}
