package fault

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// SchemaDrift renames one field mid-session: when the target call comes, the proxy tells the
// client notifications/tools/list_changed (the server never said it; over HTTP on the call's
// own response, a JSON answer turned into an SSE stream for it), publishes the tool's
// outputSchema with the field renamed (in properties and required) in every tools/list it answers
// after, holds the call's answer up to wait for the client to list again, and answers with the
// field renamed in structuredContent; so the answer matches the new schema, and a client that
// validates by the schema it cached rejects a valid answer. The seed picks the field among the
// required ones (with no schema, among the result's); under the hidden schema mode only the
// answer changes.
type SchemaDrift struct {
	// Field names the field to rename; empty lets the seed choose among the required ones.
	Field string `json:"field,omitempty"`
	// To is the field's new name; empty is the field's name with _v2 after it.
	To string `json:"to,omitempty"`
	// Wait bounds how long the answer waits for the client to list the tools again.
	Wait Duration `json:"wait"`
}

func init() { Register("schema-drift", &SchemaDrift{Wait: Duration(500 * time.Millisecond)}) }

func (*SchemaDrift) usesSchema() {}

// Drifter is a fault that changes the tool's published outputSchema mid-session, which the
// proxy announces, publishes and waits on as SchemaDrift says.
type Drifter interface {
	Fault
	// Rename is the field the drift renames and its new name, picked from the tool's
	// outputSchema with the call's seeded rng (the one Apply gets); from is "" when the schema
	// requires nothing to rename.
	Rename(schema map[string]any, rng *rand.Rand) (from, to string)
	// Grace is how long the call's answer waits for the client to list the tools again.
	Grace() time.Duration
}

func (f *SchemaDrift) Grace() time.Duration { return time.Duration(f.Wait) }

func (f *SchemaDrift) Rename(schema map[string]any, rng *rand.Rand) (from, to string) {
	from = f.Field
	if from == "" {
		pool := required(schema)
		if len(pool) == 0 {
			return "", ""
		}
		from = pool[rng.IntN(len(pool))]
	}
	return from, f.newName(from)
}

func (f *SchemaDrift) newName(from string) string {
	if f.To != "" {
		return f.To
	}
	return from + "_v2"
}

func (f *SchemaDrift) Apply(_ context.Context, c *Call) (*Effect, error) {
	s := structured(c.Result)
	if len(s) == 0 {
		return &Effect{Note: "the result had no structured field to rename"}, nil
	}
	from, to := f.Rename(c.Schema, c.Rand)
	note := ""
	if from == "" {
		if c.Schema != nil {
			return &Effect{Note: "the outputSchema of " + c.Tool + " requires no field: there is none to rename, the server's answer was sent"}, nil
		}
		keys := sortedKeys(s)
		from = keys[c.Rand.IntN(len(keys))]
		to = f.newName(from)
		note = fmt.Sprintf("%s: renamed %q, picked at random among the result's fields", noSchema(c), from)
	}
	v, ok := s[from]
	_, taken := s[to]
	switch {
	case !ok:
		return &Effect{Note: "the result has no field " + from + "; nothing was renamed"}, nil
	case taken:
		return &Effect{Note: "the result already has a field " + to + "; nothing was renamed"}, nil
	}
	ns := make(map[string]any, len(s))
	for k, fv := range s {
		if k != from {
			ns[k] = fv
		}
	}
	ns[to] = v
	r := clone(c.Result)
	r["structuredContent"] = ns
	return &Effect{Result: r, Note: note, Introduced: []Introduced{
		{Path: path("structuredContent", to), Value: v},
		{Path: path("structuredContent", from), Value: nil, Was: v},
	}}, nil
}

func (f *SchemaDrift) check() *OptionError {
	if f.Wait < 0 {
		return &OptionError{Option: "wait", Err: fmt.Errorf("must not be negative, got %s", time.Duration(f.Wait))}
	}
	if f.To != "" && f.To == f.Field {
		return &OptionError{Option: "to", Err: fmt.Errorf("must differ from field, both are %q", f.To)}
	}
	return nil
}
