package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
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
	// Calls is how the client sent the target call, from the transcript: set on every run
	// whose transcript was read, absent in records of toolscores before it.
	Calls *Calls `json:"calls,omitempty"`
}

// Calls is how many times a client sent the target call in a run, and how: the ids it used,
// the target calls it cancelled, how long it waited before each try after the first, and
// whether it repeated a call of a tool with side effects.
type Calls struct {
	// Sent counts the target tools/call requests the client sent in the run's session.
	Sent int `json:"sent"`
	// IDs are their JSON-RPC ids, as on the wire, the first MaxCallIDs of them.
	IDs []string `json:"ids,omitempty"`
	// Cancelled are the ids of target calls the client sent notifications/cancelled for.
	Cancelled []string `json:"cancelled,omitempty"`
	// WaitsMillis is, for each try after the first (up to MaxCallIDs), how long the client
	// waited before it: from the previous try's answer when that came before it (a JSON-RPC
	// answer, or an HTTP status the proxy answered with), else from the previous try's request.
	WaitsMillis []int64 `json:"waits_ms,omitempty"`
	// SideEffects says why the tool counts as one with side effects: the manifest's
	// side_effects: true, or else its annotations in the tools/list answer the client read
	// ("destructiveHint: true", "readOnlyHint: false"); empty when neither says so (the
	// manifest's false, no annotations, readOnlyHint: true, or idempotentHint: true).
	SideEffects string `json:"side_effects,omitempty"`
	// Duplicate is true when a tool with side effects was called more than once in the run.
	Duplicate bool `json:"duplicate,omitempty"`
}

// MaxCallIDs bounds the ids and waits a run's Calls lists: a client in a loop sends many.
const MaxCallIDs = 16

// Said is the calls in words for a run's evidence, or "" when there is nothing past one call
// sent and not cancelled.
func (c *Calls) Said() string {
	if c == nil || (c.Sent <= 1 && len(c.Cancelled) == 0) {
		return ""
	}
	s := fmt.Sprintf("the client sent the call %d times (ids %s)", c.Sent, strings.Join(c.IDs, ", "))
	if c.Sent == 1 {
		s = "the client sent the call once (id " + strings.Join(c.IDs, ", ") + ")"
	}
	if c.Sent > len(c.IDs) {
		s = strings.TrimSuffix(s, ")") + ", ...)"
	}
	if len(c.WaitsMillis) > 0 {
		w := make([]string, len(c.WaitsMillis))
		for i, ms := range c.WaitsMillis {
			w[i] = (time.Duration(ms) * time.Millisecond).String()
		}
		s += ", waiting " + strings.Join(w, ", ") + " before the tries after the first"
	}
	if len(c.Cancelled) > 0 {
		s += "; it cancelled id " + strings.Join(c.Cancelled, ", ")
	}
	if c.Duplicate {
		s += "; duplicate: the tool has side effects (" + c.SideEffects + ")"
	}
	return s
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
