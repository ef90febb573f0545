package goadapter

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// GoSDK calls a tool through the official Go SDK's client on transport t, after ListTools when
// list is set. An error is the adapter's own failure (it could not connect); what the library
// raised is in the Result.
func GoSDK(ctx context.Context, t mcp.Transport, tool string, args map[string]any, list bool) (Result, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "toolscore-go-sdk", Version: "1"}, nil)
	cs, err := c.Connect(ctx, t, nil)
	if err != nil {
		return Result{}, fmt.Errorf("go-sdk could not connect: %w", err)
	}
	defer cs.Close()
	if list {
		if _, err := cs.ListTools(ctx, nil); err != nil {
			return Result{Raised: goSDKRaised(err)}, nil
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return Result{Raised: goSDKRaised(err)}, nil
	}
	return returned(res)
}

func goSDKRaised(err error) *Raised {
	r := raisedFrom(err)
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		r.Class, r.Code = "jsonrpc.Error", &wire.Code
	}
	return r
}
