package fault

import (
	"context"
	"encoding/json"
)

// TypeSwap changes the JSON type of one structured field: a number becomes a string of its
// digits ("balance_minor": "4071877"), a string becomes a one-element array.
type TypeSwap struct {
	// Field names the field to swap; empty lets the seed choose, numbers first.
	Field string `json:"field,omitempty"`
}

func init() { Register("type-swap", &TypeSwap{}) }

func (f *TypeSwap) Apply(_ context.Context, c *Call) (*Effect, error) {
	s := structured(c.Result)
	if len(s) == 0 {
		return &Effect{Note: "the result had no structured field to change"}, nil
	}
	field := f.Field
	if field == "" {
		var numbers, others []string
		for _, k := range requiredFields(c.Schema, s) {
			if _, ok := s[k].(json.Number); ok {
				numbers = append(numbers, k)
			} else {
				others = append(others, k)
			}
		}
		pool := numbers
		if len(pool) == 0 {
			pool = others
		}
		field = pool[c.Rand.IntN(len(pool))]
	}
	was, ok := s[field]
	if !ok {
		return &Effect{Note: "the result has no field " + field}, nil
	}
	var now any
	switch v := was.(type) {
	case json.Number:
		now = v.String()
	case bool:
		if v {
			now = "true"
		} else {
			now = "false"
		}
	case string:
		now = []any{v}
	default:
		b, _ := json.Marshal(v)
		now = string(b)
	}
	ns := make(map[string]any, len(s))
	for k, v := range s {
		ns[k] = v
	}
	ns[field] = now
	r := clone(c.Result)
	r["structuredContent"] = ns
	return &Effect{Result: r, Introduced: []Introduced{{Path: path("structuredContent", field), Value: now, Was: was}}}, nil
}
