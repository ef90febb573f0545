package client

import (
	"context"
	"os/exec"
	"runtime"

	"github.com/toolscore/toolscore/internal/client/goadapter"
	"github.com/toolscore/toolscore/internal/proc"
	"github.com/toolscore/toolscore/record"
)

func init() {
	Register(Descriptor{Name: "mcp-go", Paths: CallPaths, Module: goadapter.MCPGoModule,
		Does: "`CallTool` alone, or `ListTools` first",
		Run: func(ctx context.Context, r Request, path string) (*record.Observation, error) {
			return MCPGo(ctx, r, path == PathListThenCall)
		}})
}

// MCPGo calls a tool through github.com/mark3labs/mcp-go's client, after ListTools when list
// is set.
func MCPGo(ctx context.Context, r Request, list bool) (*record.Observation, error) {
	if r.URL == "" {
		// The library starts the proxy on this goroutine, whose thread is held until the proxy
		// is gone (see proc.DieWithParent).
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	c, err := goadapter.MCPGoClient(ctx, r.Server, r.URL, func(cmd *exec.Cmd) {
		askToStop(cmd)
		proc.DieWithParent(cmd)
	})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	res, err := goadapter.MCPGo(ctx, c, r.Tool, r.Arguments, list)
	return goObservation("mcp-go", goadapter.MCPGoModule, list, res, err)
}
