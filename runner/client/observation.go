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
	if o.Returned == nil && o.Raised == nil {
		return nil, errors.New("the adapter's observation has neither returned nor raised")
	}
	return &o, nil
}
