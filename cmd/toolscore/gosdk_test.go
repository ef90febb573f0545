package main

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/toolscore/toolscore/internal/client"
)

// payload is the part of a tools/call result that a fault changes and a client must show.
type payload struct {
	Content           any  `json:"content"`
	StructuredContent any  `json:"structuredContent"`
	IsError           bool `json:"isError"`
}

// TestGoSDKSeesEveryFault drives the official Go SDK client through the proxy, on both paths
// (CallTool alone and ListTools first), for every fault and schema mode. What we found by running
// it: go-sdk v1.8.0 validates nothing in a tools/call result, with or without a published
// outputSchema, so every fault reaches its caller as it was on the wire; the JSON-RPC error is
// raised as a jsonrpc.Error carrying the code; a result without content comes back with content
// [] (its CallToolResult's Content marshals as a list).
func TestGoSDKSeesEveryFault(t *testing.T) {
	for _, name := range resultFaults() {
		for _, schema := range []string{"hidden", "published"} {
			for _, list := range []bool{false, true} {
				label := name + "/" + schema + "/call"
				if list {
					label = name + "/" + schema + "/list-then-call"
				}
				t.Run(label, func(t *testing.T) {
					t.Parallel()
					var extra []string
					if name == "latency" {
						extra = []string{"--options", `{"latency":"50ms"}`}
					}
					cmd, _ := proxyCommand(t, name, schema, extra...)
					_, wire, _ := rawExchange(t, cmd)
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					defer cancel()
					obs, err := client.GoSDK(ctx, cmd, "get_account_balance", map[string]any{"account_id": "ACC-4471"}, list)
					if err != nil {
						t.Fatal(err)
					}
					var onWire struct {
						Result payload `json:"result"`
						Error  *struct {
							Code int64 `json:"code"`
						} `json:"error"`
					}
					if err := json.Unmarshal(wire, &onWire); err != nil {
						t.Fatal(err)
					}
					// rpc-error, rate-limited and unknown-tool answer with a JSON-RPC error:
					// go-sdk raises it as a jsonrpc.Error carrying the wire's own code.
					if onWire.Error != nil {
						if obs.Raised == nil || obs.Raised.Code == nil || *obs.Raised.Code != onWire.Error.Code {
							t.Fatalf("want a raised JSON-RPC error %d, got %+v returned %s", onWire.Error.Code, obs.Raised, obs.Returned)
						}
						return
					}
					if obs.Raised != nil {
						t.Fatalf("go-sdk raised %+v", *obs.Raised)
					}
					var returned payload
					if err := json.Unmarshal(obs.Returned, &returned); err != nil {
						t.Fatal(err)
					}
					// A missing content list comes back as [] (no-content), which the grader
					// counts as the same result.
					if onWire.Result.Content == nil {
						onWire.Result.Content = []any{}
					}
					if name == "task-handle" {
						// CallToolResult.UnmarshalJSON (go-sdk mcp/protocol.go:390-407) reads only the
						// result's own members: the handle becomes an empty result, content [].
						onWire.Result = payload{Content: []any{}}
					}
					if !reflect.DeepEqual(returned, onWire.Result) {
						t.Errorf("go-sdk returned something other than the wire:\n got %+v\nwire %+v", returned, onWire.Result)
					}
				})
			}
		}
	}
}
