package fault

import "context"

// NotRetryable replaces the result with an isError result that carries the draft failure class
// of SEP-3313 (structured tool-failure classification, an open pull request on 2026-12-07) in
// _meta under io.modelcontextprotocol/toolFailure, saying retryable: false: a client that reads
// it should not call again, and one that does not still has the text, which says the same.
type NotRetryable struct {
	Message string `json:"message"`
	Class   string `json:"class"`
	Code    string `json:"code"`
}

// toolFailureKey is where SEP-3313 puts its classification in a result's _meta.
const toolFailureKey = "io.modelcontextprotocol/toolFailure"

func init() {
	Register("not-retryable", &NotRetryable{
		Message: "account is closed: this call cannot succeed, do not retry it",
		Class:   "capability",
		Code:    "ACCOUNT_CLOSED",
	})
}

func (f *NotRetryable) Apply(context.Context, *Call) (*Effect, error) {
	failure := map[string]any{
		"class":         f.Class,
		"code":          f.Code,
		"retryable":     false,
		"correlationId": "toolscore-not-retryable",
		"agentGuidance": "Do not call this tool again with these arguments.",
	}
	meta := map[string]any{toolFailureKey: failure}
	return &Effect{
		Result: map[string]any{
			"content": []any{map[string]any{"type": "text", "text": f.Message}},
			"isError": true,
			"_meta":   meta,
		},
		Introduced: []Introduced{{Path: "content[0].text", Value: f.Message}, {Path: "_meta", Value: meta}},
	}, nil
}
