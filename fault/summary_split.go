package fault

import "context"

// SummarySplit replaces the content list with one text block, summary, a line for a person that
// names none of the data, and keeps structuredContent as the server sent it: the data is then in
// structuredContent only. Revision 2025-11-25 (server/tools, as 2025-06-18 before it) says a
// tool that returns structured content SHOULD also return it serialized in a text block, a
// SHOULD this result keeps the letter of and not the spirit: a client that hands on only the
// text hands on no data. A result without structuredContent is sent as it was, with a note.
type SummarySplit struct {
	Summary string `json:"summary"`
}

func init() { Register("summary-split", &SummarySplit{Summary: "Retrieved 1 record."}) }

func (f *SummarySplit) Apply(_ context.Context, c *Call) (*Effect, error) {
	if _, ok := c.Result["structuredContent"]; !ok {
		return &Effect{Note: "the result had no structuredContent to leave the data in: the server's answer was sent"}, nil
	}
	r := clone(c.Result)
	now := []any{map[string]any{"type": "text", "text": f.Summary}}
	r["content"] = now
	in := Introduced{Path: "content", Value: now}
	if was, ok := c.Result["content"]; ok {
		in.Was = was
	}
	return &Effect{Result: r, Introduced: []Introduced{in}}, nil
}
