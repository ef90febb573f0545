package goadapter

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// MCPGoClient is mcp-go's client for a server: its streamable HTTP client when url is set, else
// its stdio client starting the server command, each command made ready by prepare first.
func MCPGoClient(ctx context.Context, server []string, url string, prepare func(*exec.Cmd)) (*mcpclient.Client, error) {
	if url != "" {
		c, err := mcpclient.NewStreamableHttpClient(url)
		if err == nil {
			err = c.Start(ctx)
		}
		if err != nil {
			return nil, fmt.Errorf("mcp-go could not connect to %s: %w", url, err)
		}
		return c, nil
	}
	// The command is the library's own, but tied to this run.
	c, err := mcpclient.NewStdioMCPClientWithOptions(server[0], os.Environ(), server[1:], transport.WithCommandFunc(
		func(_ context.Context, command string, env, args []string) (*exec.Cmd, error) {
			cmd := exec.CommandContext(ctx, command, args...)
			cmd.Env = append(os.Environ(), env...)
			prepare(cmd)
			return cmd, nil
		}))
	if err != nil {
		return nil, fmt.Errorf("mcp-go could not start the server: %w", err)
	}
	return c, nil
}

// MCPGo initializes c and calls a tool through it, after ListTools when list is set. What the
// library raised, in the handshake as in the call, is in the Result.
func MCPGo(ctx context.Context, c *mcpclient.Client, tool string, args map[string]any, list bool) (Result, error) {
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "toolscore-mcp-go", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return Result{Raised: raisedFrom(fmt.Errorf("mcp-go could not initialize: %w", err))}, nil
	}
	if list {
		if _, err := c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
			return Result{Raised: raisedFrom(err)}, nil
		}
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		r := raisedFrom(err)
		// mcp-go turns a JSON-RPC error into a sentinel per code; give the code back.
		for code, sentinel := range map[int64]error{
			mcp.PARSE_ERROR: mcp.ErrParseError, mcp.INVALID_REQUEST: mcp.ErrInvalidRequest, mcp.METHOD_NOT_FOUND: mcp.ErrMethodNotFound,
			mcp.INVALID_PARAMS: mcp.ErrInvalidParams, mcp.INTERNAL_ERROR: mcp.ErrInternalError,
		} {
			if errors.Is(err, sentinel) {
				r.Code = &code
			}
		}
		return Result{Raised: r}, nil
	}
	return returned(res)
}
