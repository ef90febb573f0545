package fault

import "context"

// Error replaces the result with isError: true and a text block naming a failure, with no
// structuredContent.
type Error struct {
	Message string `json:"message"`
}

func init() {
	Register("error", &Error{Message: "upstream ledger service unavailable (503): try again later"})
}

func (f *Error) Apply(_ context.Context, c *Call) (*Effect, error) {
	return &Effect{
		Result:     map[string]any{"content": []any{map[string]any{"type": "text", "text": f.Message}}, "isError": true},
		Introduced: []Introduced{{Path: "content[0].text", Value: f.Message}},
	}, nil
}
