// Package client holds the adapters that drive a real MCP client library (or bare JSON-RPC)
// against a server command and report what the library gave back: an observation.
package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Observation is what one client did with one tools/call.
type Observation struct {
	Client  string `json:"client"`
	Library string `json:"library,omitempty"`
	// Returned is the tools/call result as the library handed it to its caller, re-encoded as
	// JSON; empty when the library raised instead.
	Returned json.RawMessage `json:"returned,omitempty"`
	// Raised is the error the library raised, verbatim.
	Raised *Raised `json:"raised,omitempty"`
	// Listed is true when the adapter listed the tools before calling.
	Listed bool `json:"listed"`
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
	// Stream is the agent's own record of the tool result (e.g. the tool_result in Claude Code's
	// stream-json), an excerpt, as a cross-check of the model's view.
	Stream string `json:"stream_excerpt,omitempty"`
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

// Kinds of model view (issue 6): what the agent's client layer put in front of the model.
const (
	ViewStructured = "structured" // the JSON of structuredContent
	ViewText       = "text"       // a text block's words, without an error flag
	ViewError      = "error"      // marked to the model as an error or a rejection
	ViewNone       = "none"       // nothing usable (or no tool result at all)
)

// ModelView is the tool result as the model got it in the request after the call.
type ModelView struct {
	Kind string `json:"kind"`
	// CarriedFault says whether what the model got carries a value the fault introduced (the
	// grader decides it from the proxy's transcript; unset when the fault introduced nothing).
	CarriedFault *bool `json:"carried_fault,omitempty"`
	// Excerpt is the text the model got, cut at 2000 characters.
	Excerpt string `json:"excerpt"`
	// IsError is the error flag the agent set on the result.
	IsError bool `json:"is_error,omitempty"`
	// SchemaSent says whether the tool's outputSchema reached the model (in the tool's
	// definition in the model request); the grader decides it against the transcript's tools/list.
	SchemaSent bool `json:"schema_sent"`
	// Block is the exact tool result block of the model request, verbatim; ToolDef the tool's
	// definition in that request.
	Block   json.RawMessage `json:"block,omitempty"`
	ToolDef json.RawMessage `json:"tool_def,omitempty"`
	// Called is the name the agent exposed the tool under and the model called.
	Called string `json:"called,omitempty"`
}

// Raised is an error a client library raised, as it gave it.
type Raised struct {
	Class   string `json:"class"`
	Code    *int64 `json:"code,omitempty"`
	Message string `json:"message"`
}

// ParseObservation reads the adapter's observation: the last non-empty line of its stdout.
func ParseObservation(stdout []byte) (*Observation, error) {
	lines := bytes.Split(bytes.TrimSpace(stdout), []byte("\n"))
	last := lines[len(lines)-1]
	if len(last) == 0 {
		return nil, errors.New("the adapter printed no observation")
	}
	var o Observation
	if err := json.Unmarshal(last, &o); err != nil {
		return nil, fmt.Errorf("the adapter's observation is not JSON: %w", err)
	}
	if o.Returned == nil && o.Raised == nil && o.Agent == nil {
		return nil, errors.New("the adapter's observation has neither returned nor raised (nor, for an agent, what the model saw)")
	}
	return &o, nil
}
