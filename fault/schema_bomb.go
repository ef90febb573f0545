package fault

import (
	"context"
	"fmt"
)

// SchemaBomb nests composition keywords in the published outputSchema: one property (field, else
// picked by the seed among the required ones) refers to depth levels of $defs, each an allOf or
// an anyOf of width branches that all refer to the level below, so the frame stays a few KB while
// a validator that expands the levels does width^depth checks; the server's answer still
// conforms. The 2026-07-28 spec says clients SHOULD bound composition keywords. The call's answer
// goes as the server sent it.
type SchemaBomb struct {
	passResult
	// Depth is how many levels of composition nest; Width how many branches each level has.
	Depth int `json:"depth"`
	Width int `json:"width"`
	// Field names the property to bomb; empty lets the seed choose.
	Field string `json:"field,omitempty"`
}

// The defaults ask 10^12 checks of a validator that expands the levels: hours for the fastest
// (Ajv does about 10^8 a second), so a client that spins spins past any run's timeout.
func init() { Register("schema-bomb", &SchemaBomb{Depth: 12, Width: 10}) }

// maxBomb bounds depth and width, so the frame stays bounded (depth × width refs at most).
const maxBomb = 100

func (f *SchemaBomb) RewriteSchema(_ context.Context, s *Published) (*SchemaEffect, error) {
	field := pickProperty(s, f.Field)
	out := copySchema(s.Schema)
	defs, _ := out["$defs"].(map[string]any)
	if defs == nil {
		defs = map[string]any{}
	}
	out["$defs"] = defs
	name := func(level int) string { return fmt.Sprintf("toolscore_bomb_%d", level) }
	ref := func(level int) map[string]any { return map[string]any{"$ref": "#/$defs/" + name(level)} }
	eff := &SchemaEffect{Schema: out}
	add := func(level int, v any) {
		eff.Introduced = append(eff.Introduced, Introduced{Path: path("$defs", name(level)), Value: v, Was: defs[name(level)]})
		defs[name(level)] = v
	}
	// Level 0 is what the property allowed; every level above allows the same, width times over.
	var leaf any = map[string]any{}
	if field != "" {
		leaf = out["properties"].(map[string]any)[field]
	}
	add(0, leaf)
	for level := 1; level <= f.Depth; level++ {
		branches := make([]any, f.Width)
		if level%2 == 1 {
			// allOf: every branch must hold, so each is checked.
			for i := range branches {
				branches[i] = ref(level - 1)
			}
			add(level, map[string]any{"allOf": branches})
			continue
		}
		// anyOf: every branch but the last checks the level below, then fails ({"not": {}} holds
		// for nothing), so a validator tries them all before the last one holds.
		for i := range branches {
			branches[i] = map[string]any{"allOf": []any{ref(level - 1), map[string]any{"not": map[string]any{}}}}
		}
		branches[len(branches)-1] = ref(level - 1)
		add(level, map[string]any{"anyOf": branches})
	}
	top := ref(f.Depth)
	if field == "" {
		eff.Introduced = append(eff.Introduced, Introduced{Path: "allOf", Value: []any{top}, Was: s.Schema["allOf"]})
		all, _ := out["allOf"].([]any)
		out["allOf"] = append(append([]any(nil), all...), top)
		eff.Note = noProperty(s.Tool, f.Field) + ": the whole schema holds the bomb, in an allOf"
		return eff, nil
	}
	out["properties"].(map[string]any)[field] = top
	eff.Introduced = append(eff.Introduced, Introduced{Path: path("properties", field), Value: top, Was: leaf})
	return eff, nil
}

func (f *SchemaBomb) check() *OptionError {
	if f.Depth < 1 || f.Depth > maxBomb {
		return &OptionError{Option: "depth", Err: fmt.Errorf("want 1 to %d levels, got %d", maxBomb, f.Depth)}
	}
	if f.Width < 2 || f.Width > maxBomb {
		return &OptionError{Option: "width", Err: fmt.Errorf("want 2 to %d branches, got %d", maxBomb, f.Width)}
	}
	return nil
}
