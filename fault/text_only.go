package fault

import "context"

// TextOnly removes structuredContent and keeps the content list: the data is then in the text
// only. Revision 2025-11-25 (server/tools) says a server whose tool publishes an outputSchema
// MUST return structured results that conform to it, so under a published schema this is a
// server breaking a MUST, which a client may refuse; without one it is the result every
// revision before 2025-06-18 had. A result without structuredContent is sent as it was, with a
// note.
type TextOnly struct{}

func init() { Register("text-only", &TextOnly{}) }

func (*TextOnly) Apply(_ context.Context, c *Call) (*Effect, error) {
	was, ok := c.Result["structuredContent"]
	if !ok {
		return &Effect{Note: "the result had no structuredContent to remove: the server's answer was sent"}, nil
	}
	r := clone(c.Result)
	delete(r, "structuredContent")
	eff := &Effect{Result: r, Introduced: []Introduced{{Path: "structuredContent", Value: nil, Was: was}}}
	if _, text := textBlock(c.Result); text == "" {
		eff.Note = "the result had no text: without its structuredContent it carries no data"
	}
	return eff, nil
}
