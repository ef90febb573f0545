package record

import "encoding/json"

// Observation is what one client did with one tools/call, as its adapter printed it (the client
// contract) and its run's record keeps it.
type Observation struct {
	Client  string `json:"client"`
	Library string `json:"library,omitempty"`
	// Returned is the tools/call result as the library handed it to its caller, re-encoded as
	// JSON; empty when the library raised instead.
	Returned json.RawMessage `json:"returned,omitempty"`
	// ReturnedLarge stands for Returned when it is too large to keep in every record: the whole
	// value is in the run's stdout file, and a record keeps its prefix, size and hash.
	ReturnedLarge *Excerpt `json:"returned_large,omitempty"`
	// Raised is the error the library raised, verbatim.
	Raised *Raised `json:"raised,omitempty"`
	// Listed is true when the adapter listed the tools before calling.
	Listed bool `json:"listed"`
	// Handed is set by a framework adapter whose library turns the tool's result into what it
	// hands a model (a string, an error text, a value naming a validation failure) rather than
	// returning the result: graded as an agent's model view is, so a fault handed back as a
	// value is rejected, never passed.
	Handed *ModelView `json:"handed,omitempty"`
	// Agent is set by an agent adapter: what the agent put in front of the model, and what it
	// answered. An agent observation has no Returned or Raised of its own.
	Agent *AgentView `json:"agent,omitempty"`
}

// AgentView is what one agent run showed the model and what it answered.
type AgentView struct {
	ModelView ModelView `json:"model_view"`
	// Answer is the agent's final text, as its own record (e.g. Claude Code's stream-json
	// result) gives it.
	Answer string `json:"answer"`
	// AnswerLarge stands for a large answer: Answer is then its first bytes while it is graded,
	// and empty in a record.
	AnswerLarge *Excerpt `json:"answer_large,omitempty"`
	// Stream is the agent's own record of the tool result (e.g. the tool_result in Claude Code's
	// stream-json), an excerpt, as a cross-check of the model's view.
	Stream      string   `json:"stream_excerpt,omitempty"`
	StreamLarge *Excerpt `json:"stream_excerpt_large,omitempty"`
	// StreamAgrees says whether the agent's record of the tool result is the one the model got.
	StreamAgrees *bool `json:"stream_agrees,omitempty"`
	// Model names the model the agent asked for (the scripted model answers to any name).
	Model string `json:"model,omitempty"`
	// ModelRequests is how many requests the model received (count_tokens and the like included).
	ModelRequests int `json:"model_requests"`
	// Exit is the agent CLI's exit status (never the verdict: an agent can fail silently and
	// exit 0; the evidence is the model's requests).
	Exit int `json:"exit"`
	// Files lists the run's agent files (relative to the run's directory): the model's recorded
	// requests, the agent's stream, its config.
	Files []string `json:"files,omitempty"`
}

// ModelView is the tool result as the model got it in the request after the call.
type ModelView struct {
	// Kind is ViewStructured, ViewText, ViewError or ViewNone.
	Kind string `json:"kind"`
	// CarriedFault says whether what the model got carries a value the fault introduced (the
	// grader decides it from the proxy's transcript; unset when the fault introduced nothing).
	CarriedFault *bool `json:"carried_fault,omitempty"`
	// Excerpt is the text the model got, cut at 2000 characters.
	Excerpt string `json:"excerpt"`
	// ExcerptLarge stands for a large excerpt (an adapter that did not cut it): Excerpt is then
	// its first bytes while it is graded, and empty in a record.
	ExcerptLarge *Excerpt `json:"excerpt_large,omitempty"`
	// IsError is the error flag the agent set on the result.
	IsError bool `json:"is_error,omitempty"`
	// SchemaSent says whether the tool's outputSchema reached the model (in the tool's
	// definition in the model request); the grader decides it against the transcript's tools/list.
	SchemaSent bool `json:"schema_sent"`
	// Block is the exact tool result block of the model request, verbatim; ToolDef the tool's
	// definition in that request.
	Block   json.RawMessage `json:"block,omitempty"`
	ToolDef json.RawMessage `json:"tool_def,omitempty"`
	// BlockLarge and ToolDefLarge stand for a large block or definition in a record: the
	// agent's own files in the run's directory hold them whole.
	BlockLarge   *Excerpt `json:"block_large,omitempty"`
	ToolDefLarge *Excerpt `json:"tool_def_large,omitempty"`
	// Called is the name the agent exposed the tool under and the model called.
	Called string `json:"called,omitempty"`
}

// Raised is an error a client library raised, as it gave it.
type Raised struct {
	Class   string `json:"class"`
	Code    *int64 `json:"code,omitempty"`
	Message string `json:"message"`
	// MessageLarge stands for a large message (a library that quoted the whole result in its
	// error); Message is then empty.
	MessageLarge *Excerpt `json:"message_large,omitempty"`
}

// Text is the message as a person reads it: whole, or its first KiB for a large one.
func (r *Raised) Text() string {
	if r.MessageLarge != nil {
		return r.MessageLarge.Prefix + "…"
	}
	return r.Message
}

// Excerpt stands for a value too large to copy into every record: its first bytes, its size and
// its SHA-256, so it can be found and checked in the file that holds it whole.
type Excerpt struct {
	Prefix string `json:"prefix"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}
