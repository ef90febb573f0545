package fault

import "context"

// DropRequired removes one required field from structuredContent.
type DropRequired struct {
	// Field names the field to drop; empty lets the seed choose among the required ones.
	Field string `json:"field,omitempty"`
}

func init() { Register("drop-required", &DropRequired{}) }

func (f *DropRequired) Apply(_ context.Context, c *Call) (*Effect, error) {
	s := structured(c.Result)
	if len(s) == 0 {
		return &Effect{Note: "the result had no structured field to drop"}, nil
	}
	field := f.Field
	if field == "" {
		pool := requiredFields(c.Schema, s)
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
	return &Effect{Result: r, Introduced: []Introduced{{Path: path("structuredContent", field), Value: nil, Was: s[field]}}}, nil
}
