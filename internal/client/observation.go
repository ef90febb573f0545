package client

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/toolscore/toolscore/internal/jsonstream"
	"github.com/toolscore/toolscore/record"
)

// Observation is what one client did with one tools/call.
type Observation struct {
	Client  string `json:"client"`
	Library string `json:"library,omitempty"`
	// Returned is the tools/call result as the library handed it to its caller, re-encoded as
	// JSON; empty when the library raised instead.
	Returned json.RawMessage `json:"returned,omitempty"`
	// ReturnedLarge stands for Returned when it is over jsonstream.KeepLimit: the whole value
	// is in the run's stdout file, and a record keeps its prefix, size and hash.
	ReturnedLarge *jsonstream.Excerpt `json:"returned_large,omitempty"`
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
	// AnswerLarge stands for an answer over jsonstream.KeepLimit: Answer is then its first
	// KeepLimit bytes while it is graded, and empty in a record.
	AnswerLarge *jsonstream.Excerpt `json:"answer_large,omitempty"`
	// Stream is the agent's own record of the tool result (e.g. the tool_result in Claude Code's
	// stream-json), an excerpt, as a cross-check of the model's view.
	Stream      string              `json:"stream_excerpt,omitempty"`
	StreamLarge *jsonstream.Excerpt `json:"stream_excerpt_large,omitempty"`
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
	// ExcerptLarge stands for an excerpt over jsonstream.KeepLimit (an adapter that did not cut
	// it): Excerpt is then its first KeepLimit bytes while it is graded, and empty in a record.
	ExcerptLarge *jsonstream.Excerpt `json:"excerpt_large,omitempty"`
	// IsError is the error flag the agent set on the result.
	IsError bool `json:"is_error,omitempty"`
	// SchemaSent says whether the tool's outputSchema reached the model (in the tool's
	// definition in the model request); the grader decides it against the transcript's tools/list.
	SchemaSent bool `json:"schema_sent"`
	// Block is the exact tool result block of the model request, verbatim; ToolDef the tool's
	// definition in that request.
	Block   json.RawMessage `json:"block,omitempty"`
	ToolDef json.RawMessage `json:"tool_def,omitempty"`
	// BlockLarge and ToolDefLarge stand for a block or a definition over jsonstream.KeepLimit in
	// a record: the agent's own files in the run's directory hold them whole.
	BlockLarge   *jsonstream.Excerpt `json:"block_large,omitempty"`
	ToolDefLarge *jsonstream.Excerpt `json:"tool_def_large,omitempty"`
	// Called is the name the agent exposed the tool under and the model called.
	Called string `json:"called,omitempty"`
}

// Raised is an error a client library raised, as it gave it.
type Raised struct {
	Class   string `json:"class"`
	Code    *int64 `json:"code,omitempty"`
	Message string `json:"message"`
	// MessageLarge stands for a message over jsonstream.KeepLimit (a library that quoted the
	// whole result in its error); Message is then empty.
	MessageLarge *jsonstream.Excerpt `json:"message_large,omitempty"`
}

// Text is the message as a person reads it: whole, or its first KiB for a large one.
func (r *Raised) Text() string {
	if r.MessageLarge != nil {
		return r.MessageLarge.Prefix + "…"
	}
	return r.Message
}

// Why ReadObservation finds no observation, for a reader (toolscore check-client) that says so
// in its own words.
var (
	ErrNoObservation = errors.New("the adapter printed no observation")
	ErrNotJSON       = errors.New("the adapter's observation is not JSON")
	ErrNoOutcome     = errors.New("the adapter's observation has neither returned nor raised nor handed (nor, for an agent, what the model saw)")
)

// ReadObservation reads the adapter's observation from the file holding its stdout: its last
// non-empty line. The file is read as a stream, whatever its size: when returned is given, it is
// called with the reader at the observation's returned value, which it must consume; a value over
// jsonstream.KeepLimit (returned, a raised message) is kept as an excerpt.
func ReadObservation(path string, returned func(*jsonstream.Reader) error) (*Observation, error) {
	f, err := record.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNoObservation
	}
	if err != nil {
		return nil, fmt.Errorf("reading the adapter's output: %w", err)
	}
	defer f.Close()
	start, end, err := lastLine(f)
	if err != nil {
		return nil, fmt.Errorf("reading the adapter's output: %w", err)
	}
	if start == end {
		return nil, ErrNoObservation
	}
	var o Observation
	d := jsonstream.NewReader(io.NewSectionReader(f, start, end-start))
	err = d.Object(func(key string) error {
		switch key {
		case "client":
			return small(d, &o.Client)
		case "library":
			return small(d, &o.Library)
		case "listed":
			return small(d, &o.Listed)
		case "raised":
			return readRaised(d, &o.Raised)
		case "handed":
			return readView(d, &o.Handed)
		case "agent":
			return readAgent(d, &o.Agent)
		case "returned":
			k := jsonstream.NewKeeper(jsonstream.KeepLimit)
			read := d.Skip
			if returned != nil {
				read = func() error { return returned(d) }
			}
			if err := d.Capture(k, read); err != nil {
				return err
			}
			o.Returned, o.ReturnedLarge = nil, nil
			if b, whole := k.Whole(); whole {
				o.Returned = b
			} else {
				o.ReturnedLarge = k.Excerpt()
			}
			return nil
		}
		return d.Skip()
	})
	if err == nil {
		if _, end := d.Peek(); end != io.EOF {
			err = errors.New("more after the observation's object")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotJSON, err)
	}
	if o.Returned == nil && o.ReturnedLarge == nil && o.Raised == nil && o.Agent == nil && o.Handed == nil {
		return nil, ErrNoOutcome
	}
	return &o, nil
}

// lastLine finds the last line of r that is not blank, reading it through once.
func lastLine(r io.Reader) (start, end int64, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var off, lineStart int64
	blank := true
	for {
		chunk, err := br.ReadSlice('\n')
		if len(bytes.TrimSpace(chunk)) > 0 {
			blank = false
		}
		off += int64(len(chunk))
		if !blank && (err == nil || err == io.EOF) {
			start, end = lineStart, off
		}
		if err == nil {
			lineStart, blank = off, true
		}
		if err == io.EOF {
			return start, end, nil
		}
		if err != nil && err != bufio.ErrBufferFull {
			return 0, 0, err
		}
	}
}

// small decodes a member that is never large into v.
func small(d *jsonstream.Reader, v any) error {
	raw, err := d.Raw(jsonstream.KeepLimit)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// readRaised reads a raised error, its message kept whole or as an excerpt.
func readRaised(d *jsonstream.Reader, to **Raised) error {
	if c, err := d.Peek(); err == nil && c == 'n' {
		*to = nil
		return d.Skip()
	}
	r := &Raised{}
	*to = r
	return d.Object(func(key string) error {
		switch key {
		case "class":
			return small(d, &r.Class)
		case "code":
			return small(d, &r.Code)
		case "message":
			if c, err := d.Peek(); err == nil && c == 'n' {
				return d.Skip()
			}
			k := jsonstream.NewKeeper(jsonstream.KeepLimit)
			if err := d.String(k); err != nil {
				return err
			}
			r.Message, r.MessageLarge = "", nil
			if b, whole := k.Whole(); whole {
				r.Message = string(b)
			} else {
				r.MessageLarge = k.Excerpt()
			}
			return nil
		}
		return d.Skip()
	})
}

// readAgent reads an agent's view as readView reads a model view, its answer and stream excerpt
// kept whole up to jsonstream.KeepLimit, else their first KeepLimit bytes and an excerpt.
func readAgent(d *jsonstream.Reader, to **AgentView) error {
	if c, err := d.Peek(); err == nil && c == 'n' {
		*to = nil
		return d.Skip()
	}
	a := &AgentView{}
	*to = a
	return d.Object(func(key string) error {
		switch key {
		case "model_view":
			var v *ModelView
			if err := readView(d, &v); err != nil || v == nil {
				return err
			}
			a.ModelView = *v
			return nil
		case "answer":
			return keepString(d, &a.Answer, &a.AnswerLarge)
		case "stream_excerpt":
			return keepString(d, &a.Stream, &a.StreamLarge)
		case "stream_agrees":
			return small(d, &a.StreamAgrees)
		case "model":
			return small(d, &a.Model)
		case "model_requests":
			return small(d, &a.ModelRequests)
		case "exit":
			return small(d, &a.Exit)
		case "files":
			return small(d, &a.Files)
		}
		return d.Skip()
	})
}

// readView reads a model view (a framework's handed value, or an agent's model_view) in bounded
// memory, as returned is read: its excerpt, block and tool definition are kept whole up to
// jsonstream.KeepLimit, else as their first bytes, size and SHA-256; its other members are small.
func readView(d *jsonstream.Reader, to **ModelView) error {
	if c, err := d.Peek(); err == nil && c == 'n' {
		*to = nil
		return d.Skip()
	}
	v := &ModelView{}
	*to = v
	return d.Object(func(key string) error {
		switch key {
		case "kind":
			return small(d, &v.Kind)
		case "carried_fault":
			return small(d, &v.CarriedFault)
		case "excerpt":
			return keepString(d, &v.Excerpt, &v.ExcerptLarge)
		case "is_error":
			return small(d, &v.IsError)
		case "schema_sent":
			return small(d, &v.SchemaSent)
		case "called":
			return small(d, &v.Called)
		case "block":
			return keepRaw(d, jsonstream.KeepLimit, &v.Block, &v.BlockLarge)
		case "tool_def":
			// The grader looks for the output schema in it (grade.schemaSent), so a definition is
			// read whole up to a larger bound; its record keeps it whole up to KeepLimit.
			return keepRaw(d, ToolDefLimit, &v.ToolDef, &v.ToolDefLarge)
		}
		return d.Skip()
	})
}

// keepString reads a string member: whole up to jsonstream.KeepLimit, else its first KeepLimit
// bytes (for the grader) and an excerpt of it all. null leaves both unset.
func keepString(d *jsonstream.Reader, s *string, large **jsonstream.Excerpt) error {
	*s, *large = "", nil
	if c, err := d.Peek(); err == nil && c == 'n' {
		return d.Skip()
	}
	k := jsonstream.NewKeeper(jsonstream.KeepLimit)
	if err := d.String(k); err != nil {
		return err
	}
	if b, whole := k.Whole(); whole {
		*s = string(b)
	} else {
		*s, *large = k.Head(jsonstream.KeepLimit), k.Excerpt()
	}
	return nil
}

// ToolDefLimit bounds the tool definition of a model view the grader reads whole.
const ToolDefLimit = 1 << 20

// keepRaw reads a JSON value: whole up to limit bytes, else an excerpt of its bytes.
func keepRaw(d *jsonstream.Reader, limit int, raw *json.RawMessage, large **jsonstream.Excerpt) error {
	*raw, *large = nil, nil
	if c, err := d.Peek(); err == nil && c == 'n' {
		return d.Skip()
	}
	k := jsonstream.NewKeeper(limit)
	if err := d.Capture(k, d.Skip); err != nil {
		return err
	}
	if b, whole := k.Whole(); whole {
		*raw = b
	} else {
		*large = k.Excerpt()
	}
	return nil
}

// Lacks says what of the contract's JSON line an observation that parsed leaves out, one
// phrase each: the client's name, its library, and, as the kind of adapter needs, the outcome
// (returned, raised with the raised error's class and message, or handed) or an agent's model view.
// ReadObservation accepts what the grader can grade; these are what every report and record
// show beside the outcome, so an adapter of the contract gives them too.
func (o *Observation) Lacks(agent bool) []string {
	var out []string
	if o.Client == "" {
		out = append(out, `the JSON line has no "client"`)
	}
	if o.Library == "" {
		out = append(out, `the JSON line has no "library" (its name and version)`)
	}
	if r := o.Raised; r != nil {
		if r.Class == "" {
			out = append(out, `"raised" without "class"`)
		}
		if r.Message == "" && r.MessageLarge == nil {
			out = append(out, `"raised" without "message"`)
		}
	}
	// A framework's handed value is an outcome too: the grader grades it (grade.handed).
	outcome := o.Returned != nil || o.ReturnedLarge != nil || o.Raised != nil || o.Handed != nil
	switch {
	case agent && o.Agent == nil:
		out = append(out, `the JSON line has no "agent" (what the model saw): it is not an agent adapter`)
	case !agent && !outcome:
		out = append(out, `the JSON line has an "agent" view but neither "returned", "raised" nor "handed": an agent adapter is checked with --agent`)
	}
	return out
}
