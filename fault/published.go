package fault

import (
	"context"
	"math/rand/v2"
	"slices"
)

// ListFault is a fault of what tools/list publishes rather than of the call's answer: the proxy
// hands it each target tool's outputSchema as the cell publishes it (after the schema mode) and
// publishes the schema it returns instead. Its Apply passes the call's result as the server sent
// it (it embeds passResult).
type ListFault interface {
	Fault
	RewriteSchema(ctx context.Context, s *Published) (*SchemaEffect, error)
}

// Published is one target tool's outputSchema as tools/list publishes it.
type Published struct {
	Tool string
	// Schema is the outputSchema, numbers as json.Number; a fault returns a new one and never
	// changes this one.
	Schema map[string]any
	// Rand is seeded the same for every listing of the session, so each gets the same bytes.
	Rand *rand.Rand
	// Serve makes doc available at path (which starts with "/") on a loopback HTTP listener the
	// proxy opens for the session and records every request to, and returns its URL.
	Serve func(path string, doc any) (string, error)
}

// SchemaEffect is what a ListFault publishes instead of the tool's outputSchema.
type SchemaEffect struct {
	// Schema replaces the outputSchema; nil keeps it.
	Schema map[string]any
	// Introduced lists what the fault put in the schema, each Path inside the outputSchema.
	Introduced []Introduced
	Note       string
}

// Lists says whether f rewrites what tools/list publishes.
func Lists(f Fault) bool {
	_, ok := f.(ListFault)
	return ok
}

// copySchema copies a schema one level deep, and its properties and $defs, so a fault never
// edits the schema it was handed.
func copySchema(s map[string]any) map[string]any {
	out := make(map[string]any, len(s)+1)
	for k, v := range s {
		out[k] = v
	}
	for _, k := range []string{"properties", "$defs"} {
		if m, ok := s[k].(map[string]any); ok {
			c := make(map[string]any, len(m)+1)
			for mk, mv := range m {
				c[mk] = mv
			}
			out[k] = c
		}
	}
	return out
}

// pickProperty lets the seed (or the field option, when set) choose the property a schema fault
// rewrites: among the schema's required properties, else any of its properties; "" when the
// schema declares none, or not the named one.
func pickProperty(s *Published, field string) string {
	props, _ := s.Schema["properties"].(map[string]any)
	if field != "" {
		if _, ok := props[field]; ok {
			return field
		}
		return ""
	}
	var pool []string
	for _, r := range required(s.Schema) {
		if _, ok := props[r]; ok {
			pool = append(pool, r)
		}
	}
	if len(pool) == 0 {
		pool = sortedKeys(props)
	}
	if len(pool) == 0 {
		return ""
	}
	slices.Sort(pool)
	return pool[s.Rand.IntN(len(pool))]
}
