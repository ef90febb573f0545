package fault

import (
	"context"
	"fmt"
)

// UnknownTool answers the call as a server that does not know the tool, either way servers do:
// as "error", the JSON-RPC error -32602 (invalid params) "Unknown tool: NAME", which the final
// revision 2025-11-25 (server/tools, Error Handling) gives as its example of a protocol error;
// as "result", an isError result whose text says "unknown tool", the way SEP-2145 (standardize
// tools/call failure reporting, a draft: its pull request open on 2026-12-07) would have a server
// report it so that the model sees it. The default, "error", follows the final revision.
type UnknownTool struct {
	As string `json:"as"`
}

func init() { Register("unknown-tool", &UnknownTool{As: "error"}) }

func (f *UnknownTool) Apply(_ context.Context, c *Call) (*Effect, error) {
	text := "Unknown tool: " + c.Tool
	if f.As == "error" {
		return &Effect{RPCError: &RPCError{Code: -32602, Message: text}}, nil
	}
	return &Effect{
		Result:     map[string]any{"content": []any{map[string]any{"type": "text", "text": "unknown tool: " + c.Tool}}, "isError": true},
		Introduced: []Introduced{{Path: "content[0].text", Value: "unknown tool: " + c.Tool}},
	}, nil
}

func (f *UnknownTool) check() *OptionError {
	if f.As != "error" && f.As != "result" {
		return &OptionError{Option: "as", Err: fmt.Errorf(`must be "error" or "result", got %q`, f.As)}
	}
	return nil
}
