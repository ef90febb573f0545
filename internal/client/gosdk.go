package client

import (
	"context"
	"os/exec"
	"runtime"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscore/toolscore/internal/client/goadapter"
	"github.com/toolscore/toolscore/internal/proc"
	"github.com/toolscore/toolscore/record"
)

func init() {
	Register(Descriptor{Name: "go-sdk", Paths: CallPaths, Module: goadapter.GoSDKModule,
		Does: "`CallTool` alone, or `ListTools` first",
		Run: func(ctx context.Context, r Request, path string) (*record.Observation, error) {
			if r.URL != "" {
				return goSDK(ctx, &mcp.StreamableClientTransport{Endpoint: r.URL}, r.Tool, r.Arguments, path == PathListThenCall)
			}
			return GoSDK(ctx, r.Server, r.Tool, r.Arguments, path == PathListThenCall)
		}})
}

// GoSDK calls a tool through the official Go SDK's client over stdio, after ListTools when list
// is set.
func GoSDK(ctx context.Context, command []string, tool string, args map[string]any, list bool) (*record.Observation, error) {
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
func goSDK(ctx context.Context, t mcp.Transport, tool string, args map[string]any, list bool) (*record.Observation, error) {
	res, err := goadapter.GoSDK(ctx, t, tool, args, list)
	return goObservation("go-sdk", goadapter.GoSDKModule, list, res, err)
}

// goObservation is the observation of a Go library's call.
func goObservation(name, module string, list bool, res goadapter.Result, err error) (*record.Observation, error) {
	if err != nil {
		return nil, err
	}
	obs := &record.Observation{Client: name + "/call", Library: module + " " + goadapter.ModuleVersion(module), Listed: list, Returned: res.Returned}
	if list {
		obs.Client = name + "/list-then-call"
	}
	if r := res.Raised; r != nil {
		obs.Raised = &record.Raised{Class: r.Class, Code: r.Code, Message: r.Message}
	}
	return obs, nil
}
