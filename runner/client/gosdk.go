package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscore/toolscore/runner/proc"
)

const goSDKModule = "github.com/modelcontextprotocol/go-sdk"

func init() {
	Register(Descriptor{Name: "go-sdk", Paths: CallPaths, Module: goSDKModule,
		Run: func(ctx context.Context, r Request, path string) (*Observation, error) {
			if r.URL != "" {
				return goSDK(ctx, &mcp.StreamableClientTransport{Endpoint: r.URL}, r.Tool, r.Arguments, path == PathListThenCall)
			}
			return GoSDK(ctx, r.Server, r.Tool, r.Arguments, path == PathListThenCall)
		}})
}

// GoSDK calls a tool through the official Go SDK's client over stdio, after ListTools when list
// is set.
func GoSDK(ctx context.Context, command []string, tool string, args map[string]any, list bool) (*Observation, error) {
	// The SDK starts the proxy on this goroutine, whose thread is held until the proxy is gone
	// (see proc.DieWithParent).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	askToStop(cmd)
	proc.DieWithParent(cmd)
	return goSDK(ctx, &mcp.CommandTransport{Command: cmd}, tool, args, list)
}

// goSDK calls a tool through the official Go SDK's client on transport t.
func goSDK(ctx context.Context, t mcp.Transport, tool string, args map[string]any, list bool) (*Observation, error) {
	obs := &Observation{Client: "go-sdk/call", Library: goSDKModule + " " + moduleVersion(goSDKModule), Listed: list}
	if list {
		obs.Client = "go-sdk/list-then-call"
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "toolscore-go-sdk", Version: "1"}, nil)
	cs, err := c.Connect(ctx, t, nil)
	if err != nil {
		return nil, fmt.Errorf("go-sdk could not connect: %w", err)
	}
	defer cs.Close()
	if list {
		if _, err := cs.ListTools(ctx, nil); err != nil {
			obs.Raised = raised(err)
			return obs, nil
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		obs.Raised = raised(err)
		return obs, nil
	}
	if obs.Returned, err = json.Marshal(res); err != nil {
		return nil, err
	}
	return obs, nil
}

func raised(err error) *Raised {
	r := &Raised{Class: fmt.Sprintf("%T", err), Message: err.Error()}
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		r.Class, r.Code = "jsonrpc.Error", &wire.Code
	}
	return r
}

// moduleVersion reports the version of a module linked into this binary.
func moduleVersion(path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == path {
				return m.Version
			}
		}
	}
	return "unknown"
}
