package fault

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// ScalarStructured replaces structuredContent with a number, a string, a boolean or null: a JSON
// value revision 2026-07-28 allows there, an outputSchema of type object does not, and
// 2025-11-25 (which wants an object) refuses. The seed picks the kind, and the value comes from
// the result where it can: its first number field, its text block, true, null; a result without
// structuredContent is sent as it was, with a note.
type ScalarStructured struct {
	// Value fixes the value sent (a number, a string, true or false, or null); empty lets the
	// seed choose.
	Value json.RawMessage `json:"value,omitempty"`
}

func init() { Register("scalar-structured", &ScalarStructured{}) }

func (f *ScalarStructured) check() *OptionError {
	if len(f.Value) == 0 {
		return nil
	}
	if _, err := scalar(f.Value); err != nil {
		return &OptionError{Option: "value", Err: err}
	}
	return nil
}

func (f *ScalarStructured) Apply(_ context.Context, c *Call) (*Effect, error) {
	was, ok := c.Result["structuredContent"]
	if !ok {
		return &Effect{Note: "the result had no structuredContent to replace"}, nil
	}
	var now any
	if len(f.Value) > 0 {
		now, _ = scalar(f.Value)
	} else {
		now = pickScalar(c)
	}
	r := clone(c.Result)
	r["structuredContent"] = now
	return &Effect{Result: r, Introduced: []Introduced{{Path: "structuredContent", Value: now, Was: was}}}, nil
}

// pickScalar lets the seed choose a number, a string, a boolean or null, each taken from the
// result where it has one: the first number among the structured fields (in key order), the
// text block's text.
func pickScalar(c *Call) any {
	switch c.Rand.IntN(4) {
	case 0:
		s := structured(c.Result)
		for _, k := range sortedKeys(s) {
			if n, ok := s[k].(json.Number); ok {
				return n
			}
		}
		return json.Number(fmt.Sprint(len(s)))
	case 1:
		if _, text := textBlock(c.Result); text != "" {
			return text
		}
		s := structured(c.Result)
		for _, k := range sortedKeys(s) {
			if v, ok := s[k].(string); ok {
				return v
			}
		}
		return ""
	case 2:
		return true
	}
	return nil
}

// scalar decodes an option's value, refusing an object or an array (wrong-container sends
// those).
func scalar(b json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	switch v.(type) {
	case map[string]any, []any:
		return nil, fmt.Errorf("want a number, a string, true, false or null, got %s", jsonType(v))
	}
	return v, nil
}
