package record

import (
	"bytes"
	"encoding/json"
)

// Grade is one run's outcome and the evidence for it, as the grader gives it.
type Grade struct {
	Outcome Outcome `json:"outcome"`
	// Evidence is one line a person reads: the exception text, or what differed.
	Evidence string `json:"evidence,omitempty"`
	// Wire is the answer exactly as the proxy sent it to the client, when there was one; a
	// large answer is stood for by WireLarge instead (prefix, size and SHA-256 of its exact
	// bytes, newline included, as the transcript holds them).
	Wire      string   `json:"wire,omitempty"`
	WireLarge *Excerpt `json:"wire_large,omitempty"`
	// Introduced lists the values the fault put on the wire.
	Introduced  []Introduced `json:"introduced,omitempty"`
	Observation *Observation `json:"observation,omitempty"`
	// For an agent: the kind of the model's view (ViewStructured, ...), the answer's grade
	// (AnswerTruth, ...), and whether the answer named a problem.
	ModelView string `json:"model_view,omitempty"`
	Answer    string `json:"answer,omitempty"`
	Flagged   bool   `json:"flagged,omitempty"`
	// Reached says, for each part of the result on the wire, what became of it in what the
	// client handed its caller; set for a client whose adapter reports the result it returned
	// (returned, kept whole), absent where the grader cannot tell (an agent, a framework's
	// handed value, a result too large to keep, a task's).
	Reached []Reach `json:"reached,omitempty"`
}

// Reach is what became of one part of the result on the wire.
type Reach struct {
	// Part names it: "content[0] text", "content[1] image" (each block by its index and type;
	// "content[0] error text" for the text of an isError result), "structuredContent", "_meta".
	Part string `json:"part"`
	// State is ReachReached, ReachChanged or ReachDropped.
	State string `json:"state"`
}

// The states of a part of the result.
const (
	ReachReached = "reached" // the caller got it as it was on the wire
	ReachChanged = "changed" // the caller got it, not as it was (a block of its type at its place)
	ReachDropped = "dropped" // the caller did not get it
)

// Introduced is one value a fault put on the wire, where it put it, and what stood there before.
type Introduced struct {
	Path  string `json:"path"`
	Value any    `json:"value"`
	Was   any    `json:"was,omitempty"`
	// Canary is a word the value asks a model to say, never on the wire as it is (inject spells
	// it in two halves): an agent's answer that says it obeyed the value.
	Canary string `json:"canary,omitempty"`
}

// UnmarshalJSON reads numbers as json.Number, as the proxy decodes the server's answer: a value
// such as 1e400 or 12345678901234567890123, which a float64 cannot hold, reads back as it was.
func (in *Introduced) UnmarshalJSON(b []byte) error {
	type plain Introduced
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode((*plain)(in))
}
