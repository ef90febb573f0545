package fault

import "context"

// StructuredOnly empties the content list (content: []) and keeps structuredContent: a result
// revision 2025-11-25 allows (content is required, and may be empty; the text block that
// repeats the structured data is a SHOULD, server/tools), unlike no-content, which removes the
// required list. A result without structuredContent, or whose content is already empty, is
// sent as it was, with a note.
type StructuredOnly struct{}

func init() { Register("structured-only", &StructuredOnly{}) }

func (*StructuredOnly) Apply(_ context.Context, c *Call) (*Effect, error) {
	if _, ok := c.Result["structuredContent"]; !ok {
		return &Effect{Note: "the result had no structuredContent: emptying its content would leave nothing, the server's answer was sent"}, nil
	}
	was, _ := c.Result["content"].([]any)
	if len(was) == 0 {
		return &Effect{Note: "the result's content was already empty: the server's answer was sent"}, nil
	}
	r := clone(c.Result)
	r["content"] = []any{}
	return &Effect{Result: r, Introduced: []Introduced{{Path: "content", Value: []any{}, Was: was}}}, nil
}
