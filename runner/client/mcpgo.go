package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// MCPGo calls a tool through github.com/mark3labs/mcp-go's client, after ListTools when list
// is set.
func MCPGo(ctx context.Context, r Request, list bool) (*Observation, error) {
	obs := &Observation{Client: "mcp-go/call", Library: "github.com/mark3labs/mcp-go " + moduleVersion("github.com/mark3labs/mcp-go"), Listed: list}
	if list {
		obs.Client = "mcp-go/list-then-call"
	}
	c, err := mcpclient.NewStdioMCPClient(r.Server[0], os.Environ(), r.Server[1:]...)
	if err != nil {
		return nil, fmt.Errorf("mcp-go could not start the server: %w", err)
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
