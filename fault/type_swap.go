package fault

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// TypeSwap changes the JSON type of one structured field to one its outputSchema does not allow:
// a number becomes a string of its digits ("balance_minor": "4071877"), a string a one-element
// array; where the schema allows that too (type: [integer, string]) the next of string, array,
// null it does not. The seed picks among the required fields (then the declared ones) whose type
// the schema constrains, numbers first; with no schema, among all of the result's fields, and
// where no swap breaks the schema the note says so.
type TypeSwap struct {
	// Field names the field to swap; empty lets the seed choose, numbers first.
	Field string `json:"field,omitempty"`
}

func init() { Register("type-swap", &TypeSwap{}) }

func (*TypeSwap) usesSchema() {}

func (f *TypeSwap) Apply(_ context.Context, c *Call) (*Effect, error) {
	s := structured(c.Result)
	if len(s) == 0 {
		return &Effect{Note: "the result had no structured field to change"}, nil
	}
	field, note := f.Field, ""
	if field == "" {
		field, note = f.pick(c, s)
	}
	was, ok := s[field]
	if !ok {
		return &Effect{Note: "the result has no field " + field}, nil
	}
	now, breaks := swapped(fieldTypes(c.Schema, field), was)
	if !breaks && note == "" && c.Schema != nil {
		note = fmt.Sprintf("the outputSchema of %s allows %s any type a swap could give: the swapped value still conforms", c.Tool, field)
	}
	ns := make(map[string]any, len(s))
	for k, v := range s {
		ns[k] = v
	}
	ns[field] = now
	r := clone(c.Result)
	r["structuredContent"] = ns
	return &Effect{Result: r, Note: note, Introduced: []Introduced{{Path: path("structuredContent", field), Value: now, Was: was}}}, nil
}

// pick lets the seed choose the field to swap, numbers first: among the required fields a swap
// can break, else the result's fields a swap can break, else (with a note) any of them.
func (f *TypeSwap) pick(c *Call, s map[string]any) (string, string) {
	breakable := func(names []string) []string {
		var out []string
		for _, n := range names {
			if _, ok := swapped(fieldTypes(c.Schema, n), s[n]); ok {
				out = append(out, n)
			}
		}
		return out
	}
	note := ""
	var pool []string
	if c.Schema != nil {
		if pool = breakable(present(required(c.Schema), s)); len(pool) == 0 {
			pool = breakable(sortedKeys(s))
		}
		if len(pool) == 0 {
			pool = sortedKeys(s)
			note = "the outputSchema of " + c.Tool + " constrains the type of none of the result's fields, so the swap still conforms"
		}
	} else {
		pool = sortedKeys(s)
		note = noSchema(c)
	}
	var numbers, others []string
	for _, k := range pool {
		if _, ok := s[k].(json.Number); ok {
			numbers = append(numbers, k)
		} else {
			others = append(others, k)
		}
	}
	if len(numbers) > 0 {
		pool = numbers
	} else {
		pool = others
	}
	field := pool[c.Rand.IntN(len(pool))]
	if note != "" {
		note += fmt.Sprintf(": swapped %q, picked at random among the result's fields (numbers first)", field)
	}
	return field, note
}

// swapped returns v as the first value of another JSON type that types does not allow, and
// true; or the first of them, and false, when types allows them all (nil types allows anything).
func swapped(types []string, v any) (any, bool) {
	var tries []any
	switch v := v.(type) {
	case json.Number:
		tries = []any{v.String(), []any{v}, nil}
	case bool:
		tries = []any{strconv.FormatBool(v), []any{v}, nil}
	case string:
		tries = []any{[]any{v}, nil}
	case nil:
		tries = []any{"null", []any{nil}}
	default:
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v)
		tries = []any{strings.TrimSuffix(b.String(), "\n"), nil}
	}
	for _, t := range tries {
		if !allows(types, t) {
			return t, true
		}
	}
	return tries[0], false
}
