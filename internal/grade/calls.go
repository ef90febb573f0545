package grade

import (
	"encoding/json"

	"github.com/toolscore/toolscore/internal/jsonrpc"
	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
)

// calls completes the run's count of target calls with the tool's side effects, as the
// tools/list answer the client read declares them, and says whether a call of a tool with side
// effects was repeated (duplicate).
//
// A tool has side effects when the manifest says so (side_effects: true; false says it has
// none, whatever the server lists), or else when its annotations say so: destructiveHint true, or readOnlyHint
// false, and idempotentHint not true (a repeat of an idempotent call has no further effect).
// A tool with no annotations is not counted as one, although the MCP specification's defaults
// (readOnlyHint false, destructiveHint true) tell a client to assume the worst: a duplicate is a
// finding against the client, and the server must have said the tool is not safe to repeat for
// the client to be held to it.
func calls(c record.Calls, entries []transcript.Entry, manifest *bool) *record.Calls {
	request, _ := transcript.TargetAnswer(entries)
	switch {
	case manifest != nil && *manifest:
		c.SideEffects = "the manifest's side_effects: true"
	case manifest != nil:
	case request != nil && request.Match != nil:
		c.SideEffects = sideEffects(listedAnnotations(entries, request.Match.Tool))
	}
	c.Duplicate = c.Sent > 1 && c.SideEffects != ""
	return &c
}

// annotations are a tool's MCP annotations that say whether a call changes anything; nil where
// the tool does not set the hint.
type annotations struct {
	ReadOnly    *bool `json:"readOnlyHint"`
	Destructive *bool `json:"destructiveHint"`
	Idempotent  *bool `json:"idempotentHint"`
}

// sideEffects is why a tool with annotations a counts as one with side effects, or "".
func sideEffects(a *annotations) string {
	if a == nil || (a.Idempotent != nil && *a.Idempotent) || (a.ReadOnly != nil && *a.ReadOnly) {
		return ""
	}
	switch {
	case a.Destructive != nil && *a.Destructive:
		return "destructiveHint: true"
	case a.ReadOnly != nil:
		return "readOnlyHint: false"
	}
	return ""
}

// listedAnnotations is the annotations of tool in the last tools/list answer of the transcript
// that lists it, nil when none does or it has none.
func listedAnnotations(entries []transcript.Entry, tool string) *annotations {
	asked := map[string]bool{}
	var found *annotations
	for i := range entries {
		e := &entries[i]
		if len(e.Wire) == 0 || (e.Dir != transcript.ClientToServer && e.Dir != transcript.ServerToClient) {
			continue
		}
		env, ok := jsonrpc.ParseMessage(e.Wire)
		if !ok {
			continue
		}
		key := jsonrpc.IDKey(env.ID)
		if e.Dir == transcript.ClientToServer {
			if env.Method == "tools/list" {
				asked[key] = true
			}
			continue
		}
		if env.Method != "" || !asked[key] {
			continue
		}
		var a struct {
			Result struct {
				Tools []struct {
					Name        string       `json:"name"`
					Annotations *annotations `json:"annotations"`
				} `json:"tools"`
			} `json:"result"`
		}
		if json.Unmarshal(e.Wire, &a) != nil {
			continue
		}
		for _, t := range a.Result.Tools {
			if t.Name == tool {
				found = t.Annotations
			}
		}
	}
	return found
}
