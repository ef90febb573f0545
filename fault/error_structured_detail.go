package fault

import "context"

// ErrorStructuredDetail answers isError: true with a one-line text block, summary, that says
// only that the tool failed, and the failure's detail in structuredContent only: {"error":
// {"code": code, "message": message}}. Revision 2025-11-25 (server/tools) reports a tool's
// failure as such a result and lets it carry structuredContent; it says nothing of whether a
// client hands an error result's structuredContent on, so a client that keeps only the text of
// an error loses why it failed. Unlike error-structured, which repeats the message in the text,
// the detail here is nowhere else.
type ErrorStructuredDetail struct {
	Summary string `json:"summary"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

func init() {
	Register("error-structured-detail", &ErrorStructuredDetail{
		Summary: "The tool failed.",
		Code:    "UPSTREAM_UNAVAILABLE",
		Message: "upstream ledger service unavailable (503): try again after 30 seconds",
	})
}

func (f *ErrorStructuredDetail) Apply(_ context.Context, c *Call) (*Effect, error) {
	now := map[string]any{"error": map[string]any{"code": f.Code, "message": f.Message}}
	in := Introduced{Path: "structuredContent", Value: now}
	if was, ok := c.Result["structuredContent"]; ok {
		in.Was = was
	}
	return &Effect{
		Result: map[string]any{
			"content":           []any{map[string]any{"type": "text", "text": f.Summary}},
			"structuredContent": now,
			"isError":           true,
		},
		Introduced: []Introduced{{Path: "content[0].text", Value: f.Summary}, in, {Path: "isError", Value: true}},
	}, nil
}
