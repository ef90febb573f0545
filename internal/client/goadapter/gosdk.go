package goadapter

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// GoSDK calls a tool through the official Go SDK's client on transport t, after ListTools when
// list is set. What the library raised, in the handshake as in the call, is in the Result: a
// server that speaks garbage or goes during the handshake is something the library reacts to.
func GoSDK(ctx context.Context, t mcp.Transport, tool string, args map[string]any, list bool) (Result, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "toolscore-go-sdk", Version: "1"}, nil)
	cs, err := c.Connect(ctx, t, nil)
	if err != nil {
		return Result{Raised: goSDKRaised(fmt.Errorf("go-sdk could not connect: %w", err))}, nil
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
