package grade

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/toolscore/toolscore/record"
)

// reached says, for each part of the result on the wire (each content block by its index and
// type, structuredContent, _meta), whether what a library returned its caller holds it as it
// was, holds it changed, or lacks it: the *reached* measure of issue 49 for a client whose
// adapter reports its returned result. Values compare as encoding/json decodes them with
// UseNumber (as differs does, by digest); a block counts as reached wherever it moved to. It
// says nothing (nil) when either side is not a result object it can read.
func reached(wire, returned json.RawMessage) []record.Reach {
	var w, r map[string]any
	if decode(wire, &w) != nil || decode(returned, &r) != nil || w == nil || r == nil {
		return nil
	}
	var out []record.Reach
	isError, _ := w["isError"].(bool)
	wc, _ := w["content"].([]any)
	rc, _ := r["content"].([]any)
	used := make([]bool, len(rc))
	for i, b := range wc {
		typ := blockType(b)
		part := fmt.Sprintf("content[%d] %s", i, typ)
		if isError && typ == "text" {
			part = fmt.Sprintf("content[%d] error text", i)
		}
		state := record.ReachDropped
		for j, got := range rc {
			if !used[j] && reflect.DeepEqual(b, got) {
				used[j], state = true, record.ReachReached
				break
			}
		}
		if state == record.ReachDropped && i < len(rc) && !used[i] && blockType(rc[i]) == typ {
			used[i], state = true, record.ReachChanged
		}
		out = append(out, record.Reach{Part: part, State: state})
	}
	for _, key := range []string{"structuredContent", "_meta"} {
		v, on := w[key]
		if !on || v == nil {
			continue
		}
		got, has := member(r, key)
		state := record.ReachDropped
		switch {
		case has && reflect.DeepEqual(v, got):
			state = record.ReachReached
		case has && got != nil:
			state = record.ReachChanged
		}
		out = append(out, record.Reach{Part: key, State: state})
	}
	return out
}

// blockType is a content block's type, or "untyped".
func blockType(b any) string {
	if m, ok := b.(map[string]any); ok {
		if t, ok := m["type"].(string); ok && t != "" {
			return t
		}
	}
	return "untyped"
}

// member finds a result's member by its name as the wire spells it, or as a library's own
// encoding does: case aside (readPayload's rule), and structured_content, the Python SDK's
// name without its alias.
func member(r map[string]any, key string) (any, bool) {
	for k, v := range r {
		if strings.EqualFold(k, key) || strings.EqualFold(strings.ReplaceAll(k, "_", ""), key) {
			return v, true
		}
	}
	return nil, false
}
