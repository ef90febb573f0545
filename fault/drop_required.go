package fault

import (
	"context"
	"fmt"
)

// DropRequired removes one field the tool's outputSchema requires from structuredContent. The
// seed picks among the required fields the result has ($refs and allOf followed); a schema that
// requires none of them leaves the answer as it is, and a tool with no schema at all loses a
// field picked among all of the result's: the note says which of these happened.
type DropRequired struct {
	// Field names the field to drop; empty lets the seed choose among the required ones.
	Field string `json:"field,omitempty"`
}

func init() { Register("drop-required", &DropRequired{}) }

func (*DropRequired) usesSchema() {}

func (f *DropRequired) Apply(_ context.Context, c *Call) (*Effect, error) {
	s := structured(c.Result)
	if len(s) == 0 {
		return &Effect{Note: "the result had no structured field to drop"}, nil
	}
	field, note := f.Field, ""
	switch {
	case field != "":
		if _, ok := s[field]; !ok {
			return &Effect{Note: "the result has no field " + field + "; nothing was dropped"}, nil
		}
	case c.Schema == nil:
		keys := sortedKeys(s)
		field = keys[c.Rand.IntN(len(keys))]
		note = fmt.Sprintf("%s: dropped %q, picked at random among the result's fields", noSchema(c), field)
	default:
		pool := present(required(c.Schema), s)
		if len(pool) == 0 {
			return &Effect{Note: "the outputSchema of " + c.Tool + " requires none of the result's fields: there is no required field to drop, the server's answer was sent"}, nil
		}
		field = pool[c.Rand.IntN(len(pool))]
	}
	ns := make(map[string]any, len(s))
	for k, v := range s {
		if k != field {
			ns[k] = v
		}
	}
	r := clone(c.Result)
	r["structuredContent"] = ns
	return &Effect{Result: r, Note: note, Introduced: []Introduced{{Path: path("structuredContent", field), Value: nil, Was: s[field]}}}, nil
}
