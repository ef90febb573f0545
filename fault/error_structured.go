package fault

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// ErrorStructured answers isError: true with a text block naming a failure and structuredContent
// {"error": message}: the error object a failing tool sends, which an outputSchema describing the
// tool's success does not match (it lacks the fields the schema requires). The note says when the
// schema would take it (it requires nothing, or there is none): SDKs disagree on whether an
// error result's structuredContent is checked at all.
type ErrorStructured struct {
	Message string `json:"message"`
}

func init() {
	Register("error-structured", &ErrorStructured{Message: "upstream ledger service unavailable (503): try again later"})
}

func (*ErrorStructured) usesSchema() {}

func (f *ErrorStructured) Apply(_ context.Context, c *Call) (*Effect, error) {
	now := map[string]any{"error": f.Message}
	was, had := c.Result["structuredContent"]
	r := map[string]any{
		"content":           []any{map[string]any{"type": "text", "text": f.Message}},
		"structuredContent": now,
		"isError":           true,
	}
	in := Introduced{Path: "structuredContent", Value: now}
	if had {
		in.Was = was
	}
	return &Effect{
		Result:     r,
		Introduced: []Introduced{{Path: "content[0].text", Value: f.Message}, in, {Path: "isError", Value: true}},
		Note:       errorObjectNote(c, f.Message),
	}, nil
}

// errorObjectNote says why the schema would take {"error": message} anyway, or "" when it
// refuses it: a required field other than error, or an error property of another type.
func errorObjectNote(c *Call, message string) string {
	if c.Schema == nil {
		return noSchema(c) + ": nothing says the error object does not conform"
	}
	missing := slices.DeleteFunc(required(c.Schema), func(f string) bool { return f == "error" })
	if len(missing) > 0 || !allows(fieldTypes(c.Schema, "error"), message) {
		return ""
	}
	if ts := fieldTypes(c.Schema, "error"); ts != nil {
		return fmt.Sprintf("the outputSchema of %s allows error as %s and requires nothing else: the error object conforms", c.Tool, strings.Join(ts, " or "))
	}
	return "the outputSchema of " + c.Tool + " requires no field the error object lacks: it may conform"
}
