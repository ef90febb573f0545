package fault

import (
	"context"
	"fmt"
)

// ResultType changes the result's resultType, which revision 2026-07-28 puts on every result:
// removes it (a client MUST then read complete), sets an unknown one ("partial"), or sets
// input_required with nothing to ask (no inputRequests, no requestState); the tool's content and
// structuredContent stay. The seed picks among the three unless value names one, or another
// string to send. Results of a 2025-11-25 session carry no resultType: removing it then leaves
// the answer as it was, with a note, and a value is still sent, a member that revision does not
// define.
type ResultType struct {
	// Value is "absent", "unknown", "input_required", or any other string to send as the
	// resultType; empty lets the seed choose among the first three.
	Value string `json:"value,omitempty"`
}

func init() { Register("result-type", &ResultType{}) }

// unknownResultType is what "unknown" sends: a value no revision defines.
const unknownResultType = "partial"

func (f *ResultType) Apply(_ context.Context, c *Call) (*Effect, error) {
	value := f.Value
	if value == "" {
		value = []string{"absent", "unknown", "input_required"}[c.Rand.IntN(3)]
	}
	was, had := c.Result["resultType"]
	r := clone(c.Result)
	in := Introduced{Path: "resultType"}
	switch value {
	case "absent":
		if !had {
			return &Effect{Note: "the result carried no resultType (a 2025-11-25 session's results have none): nothing to remove, the server's answer was sent"}, nil
		}
		delete(r, "resultType")
	case "unknown":
		in.Value = unknownResultType
	default:
		in.Value = value
	}
	if in.Value != nil {
		if had && was == in.Value {
			return &Effect{Note: fmt.Sprintf("the result's resultType was already %q: the server's answer was sent", was)}, nil
		}
		r["resultType"] = in.Value
	}
	eff := &Effect{Result: r}
	if had {
		in.Was = was
	} else {
		eff.Note = fmt.Sprintf("the result carried no resultType (a 2025-11-25 session's results have none): %q was added, a member that revision does not define", in.Value)
	}
	eff.Introduced = []Introduced{in}
	return eff, nil
}
