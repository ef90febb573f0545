package fault

import "context"

// NoContent removes the content list and keeps structuredContent: content is required in every
// revision, 2026-07-28 included, whatever structuredContent holds. A result without
// structuredContent then carries neither, which the note says; one without content is sent as
// it was.
type NoContent struct{}

func init() { Register("no-content", &NoContent{}) }

func (*NoContent) Apply(_ context.Context, c *Call) (*Effect, error) {
	was, ok := c.Result["content"]
	if !ok {
		return &Effect{Note: "the result had no content to remove"}, nil
	}
	r := clone(c.Result)
	delete(r, "content")
	eff := &Effect{Result: r, Introduced: []Introduced{{Path: "content", Value: nil, Was: was}}}
	if _, has := r["structuredContent"]; !has {
		eff.Note = "the result had no structuredContent: the answer carries neither content nor structuredContent"
	}
	return eff, nil
}
