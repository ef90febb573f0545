package fault

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"unsafe"
)

// This file is what the schema faults (drop-required, type-swap) read from a tool's outputSchema:
// the fields it requires and the JSON types it allows each field, with local $refs followed, so
// the field a fault breaks is one the schema really constrains.

// maxRefs bounds how many $refs and allOf levels are followed from one schema: a cycle
// ("#/$defs/a" pointing at itself) ends there instead of looping.
const maxRefs = 32

// maxVisits bounds the schemas read to work out one field's types: a composition bomb (anyOf
// of $refs to anyOfs of $refs...) is cut off there, and the field counted as allowing any type.
const maxVisits = 10000

// parts lists node and every schema that must hold together with it: what its $ref points at (a
// local one: "#/$defs/x", "#/definitions/x", any JSON pointer into root) and its allOf members,
// followed recursively. A $ref it cannot follow (a network one, a broken pointer) adds nothing.
func parts(root, node map[string]any) []map[string]any {
	var out []map[string]any
	// seen holds the maps walked, by identity: a cycle of $refs comes back to one of them, and a
	// long allOf costs one look-up a member, not a scan of all before it.
	seen := map[unsafe.Pointer]bool{}
	var walk func(n map[string]any, depth int)
	walk = func(n map[string]any, depth int) {
		if n == nil || depth > maxRefs || seen[reflect.ValueOf(n).UnsafePointer()] {
			return
		}
		seen[reflect.ValueOf(n).UnsafePointer()] = true
		out = append(out, n)
		if ref, ok := n["$ref"].(string); ok {
			walk(pointer(root, ref), depth+1)
		}
		all, _ := n["allOf"].([]any)
		for _, a := range all {
			m, _ := a.(map[string]any)
			walk(m, depth+1)
		}
	}
	walk(node, 0)
	return out
}

// pointer resolves a local $ref, a URI fragment holding a JSON pointer, against root; nil when
// ref is not local or leads nowhere.
func pointer(root map[string]any, ref string) map[string]any {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	if frag == "" {
		return root
	}
	frag, err := url.PathUnescape(frag)
	if err != nil || !strings.HasPrefix(frag, "/") {
		return nil
	}
	var cur any = root
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			var i int
			if _, err := fmt.Sscanf(tok, "%d", &i); err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	m, _ := cur.(map[string]any)
	return m
}

// required lists the fields the schema requires of the object, in the schema's order without
// repeats, with those of its $ref and allOf parts.
func required(schema map[string]any) []string {
	var out []string
	for _, p := range parts(schema, schema) {
		req, _ := p["required"].([]any)
		for _, f := range req {
			if name, ok := f.(string); ok && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

// present keeps the fields of names that s has.
func present(names []string, s map[string]any) []string {
	var out []string
	for _, n := range names {
		if _, ok := s[n]; ok {
			out = append(out, n)
		}
	}
	return out
}

// fieldTypes returns the JSON types the schema allows the object's field, or nil when it allows
// any (it says nothing of the field's type, or cannot be read).
func fieldTypes(schema map[string]any, field string) []string {
	var out []string
	constrained := false
	for _, p := range parts(schema, schema) {
		props, _ := p["properties"].(map[string]any)
		ps, ok := props[field].(map[string]any)
		if !ok {
			continue
		}
		budget := maxVisits
		if ts := types(schema, ps, 0, &budget); ts != nil {
			if !constrained {
				out, constrained = ts, true
			} else {
				out = slices.DeleteFunc(out, func(t string) bool { return !slices.Contains(ts, t) })
			}
		}
	}
	if constrained && out == nil {
		out = []string{} // the parts disagree: no value is allowed, any swap breaks it
	}
	return out
}

// types returns the JSON types node allows ("integer" stands for itself, "number" for both), nil
// for any: its type (a name or a list), narrowed by its $ref and allOf parts, and widened to the
// union of its anyOf or oneOf alternatives. Each schema read takes one of budget; none left is
// nil.
func types(root, node map[string]any, depth int, budget *int) []string {
	if depth > maxRefs || *budget <= 0 {
		return nil
	}
	var out []string
	constrained := false
	narrow := func(ts []string) {
		if !constrained {
			out, constrained = slices.Clone(ts), true
			return
		}
		out = slices.DeleteFunc(out, func(t string) bool {
			return !slices.Contains(ts, t) && !(t == "integer" && slices.Contains(ts, "number"))
		})
	}
	for _, p := range parts(root, node) {
		if *budget--; *budget < 0 {
			return nil
		}
		switch t := p["type"].(type) {
		case string:
			narrow([]string{t})
		case []any:
			var ts []string
			for _, v := range t {
				if s, ok := v.(string); ok {
					ts = append(ts, s)
				}
			}
			narrow(ts)
		}
		for _, key := range []string{"anyOf", "oneOf"} {
			alts, ok := p[key].([]any)
			if !ok || len(alts) == 0 {
				continue
			}
			var union []string
			open := false
			for _, a := range alts {
				m, _ := a.(map[string]any)
				ts := types(root, m, depth+1, budget)
				if ts == nil {
					open = true
					break
				}
				for _, t := range ts {
					if !slices.Contains(union, t) {
						union = append(union, t)
					}
				}
			}
			if !open {
				narrow(union)
			}
		}
	}
	if constrained && out == nil {
		out = []string{}
	}
	return out
}

// allows says whether a value of JSON type ts allows v; nil ts allows anything.
func allows(ts []string, v any) bool {
	if ts == nil {
		return true
	}
	return slices.Contains(ts, jsonType(v)) || jsonType(v) == "number" && slices.Contains(ts, "integer") && integral(v)
}

// jsonType names v's JSON type as a schema does: null, boolean, number, string, array, object.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// integral says whether the number v is a whole one (which "integer" allows).
func integral(v any) bool {
	switch n := v.(type) {
	case json.Number:
		if _, err := n.Int64(); err == nil {
			return true
		}
		f, err := n.Float64()
		return err == nil && f == math.Trunc(f) && !math.IsInf(f, 0)
	case float64:
		return n == math.Trunc(n) && !math.IsInf(n, 0)
	}
	return false
}

// noSchema words why a fault had no schema to pick from, for its note.
func noSchema(c *Call) string {
	if c.SchemaFrom != "" {
		return "no outputSchema for " + c.Tool + " (" + c.SchemaFrom + ")"
	}
	return "no outputSchema for " + c.Tool
}
