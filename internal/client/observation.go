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
func ReadObservation(path string, returned func(*jsonstream.Reader) error) (*record.Observation, error) {
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
	var o record.Observation
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
func readRaised(d *jsonstream.Reader, to **record.Raised) error {
	if c, err := d.Peek(); err == nil && c == 'n' {
		*to = nil
		return d.Skip()
	}
	r := &record.Raised{}
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
func readAgent(d *jsonstream.Reader, to **record.AgentView) error {
	if c, err := d.Peek(); err == nil && c == 'n' {
		*to = nil
		return d.Skip()
	}
	a := &record.AgentView{}
	*to = a
	return d.Object(func(key string) error {
		switch key {
		case "model_view":
			var v *record.ModelView
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
func readView(d *jsonstream.Reader, to **record.ModelView) error {
	if c, err := d.Peek(); err == nil && c == 'n' {
		*to = nil
		return d.Skip()
	}
	v := &record.ModelView{}
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
func Lacks(o *record.Observation, agent bool) []string {
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
