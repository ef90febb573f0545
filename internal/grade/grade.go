package grade

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/jsonstream"
	"github.com/toolscore/toolscore/internal/proc"
	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
)

// Grade is one run's outcome and the evidence for it: the record's (record.Grade), which the
// runner keeps in the run's line of runs.jsonl.
type Grade = record.Grade

// maxEvidence bounds the evidence line, which every report and results.json example repeats.
const maxEvidence = 2000

// SDK grades a run of an SDK-level client. It reads the answer on the wire and the observation
// as streams, comparing them by digest, so a result of any size costs the grader no copy of it.
func SDK(res Run, entries []transcript.Entry) Grade { return sdk(res, entries, nil) }

// sdk is SDK with, for a replayed run, the recording's answer (see noteWire).
func sdk(res Run, entries []transcript.Entry, recorded *transcript.Entry) Grade {
	var g Grade
	request, answer := transcript.TargetAnswer(entries)
	wire := noteWire(&g, answer, recorded, false)
	// A task handle on the wire (the task-handle fault): the client is judged on the task's
	// result, which the proxy gave only to a client that asked for it.
	task, delivered, followed := transcript.TaskFollowed(entries, answer)
	var got digested
	obs, perr := client.ReadObservation(res.Stdout, func(d *jsonstream.Reader) (err error) {
		got, err = readPayload(d)
		return err
	})
	g.Observation = obs
	// An observation that is there is what the client did, even when the run then outlived its
	// time (the adapter waited on a server that would not go).
	gone := transcript.HandshakeExit(entries)
	observed := obs != nil && perr == nil && (obs.Raised != nil || obs.Returned != nil || obs.ReturnedLarge != nil || obs.Handed != nil)
	switch {
	case res.OOMKilled:
		g.Outcome, g.Evidence = record.OOM, "the cell ran out of memory and was killed"
	case res.Err == nil && gone != "":
		g.Outcome, g.Evidence = record.ServerExited, gone
	case res.TimedOut && !observed:
		g.Outcome = record.Hung
		g.Evidence = fmt.Sprintf("no observation within %s", res.Took.Round(1e6)) + cpuNote(res.CPU) + stuck(entries, answer)
	case res.Err != nil:
		g.Outcome, g.Evidence = record.Crashed, res.Err.Error()
	case (res.ExitCode != 0 && !res.TimedOut) || perr != nil:
		g.Outcome = record.Crashed
		g.Evidence = fmt.Sprintf("the adapter exited with status %d", res.ExitCode)
		if perr != nil && res.ExitCode == 0 {
			g.Evidence = perr.Error()
		}
		if tail := lastLine(res.Stderr); tail != "" {
			g.Evidence += ": " + tail
		}
	case !observed:
		// The only observation ReadObservation takes without an SDK outcome is an agent's: the
		// adapter broke the contract of the client it is declared as, which is its own failure.
		g.Outcome = record.Crashed
		g.Evidence = `the adapter printed an agent's observation ("agent") but its client is not declared agent: true, and it printed neither "returned", "raised" nor "handed"`
	case obs.Raised != nil && request == nil && !wireExplains(entries):
		g.Outcome, g.Evidence = record.Crashed, noCall+"; it reported "+obs.Raised.Class+": "+obs.Raised.Text()
	case obs.Raised != nil:
		g.Outcome, g.Evidence = record.Threw, obs.Raised.Class+": "+obs.Raised.Text()
		if wire.rpcError != nil {
			g.Outcome = record.RPCError
		}
	case obs.Handed != nil:
		g.Outcome, g.Evidence = handed(&g, request != nil, answer, recorded, obs.Handed)
	case wire.result == nil:
		g.Outcome, g.Evidence = record.Altered, "the client returned a result, but none was on the wire"
	case task != "" && delivered != nil && differs(got, taskResult(delivered)) == "":
		g.Outcome = record.Passed
	case task != "" && differs(got, *wire.result) == "":
		g.Outcome, g.Evidence = record.Altered, "the client returned no more than the task handle carries (its content and structuredContent) instead of the task's result"
	case task != "" && delivered == nil:
		g.Outcome, g.Evidence = record.Altered, "the client returned a result that is not the task's: "+differs(got, *wire.result)
	case task != "":
		g.Outcome, g.Evidence = record.Altered, differs(got, taskResult(delivered))
	default:
		if diff := differs(got, *wire.result); diff != "" {
			g.Outcome, g.Evidence = record.Altered, diff
		} else {
			g.Outcome = record.Passed
		}
	}
	if (g.Outcome == record.Passed || g.Outcome == record.Altered) && task == "" && obs.Returned != nil && g.Wire != "" {
		// What reached the caller, part by part: read from the answer and the returned value
		// the record keeps whole (a larger one's parts are not told apart).
		var a struct {
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal([]byte(g.Wire), &a) == nil {
			g.Reached = reached(a.Result, obs.Returned)
		}
	}
	if followed != "" {
		g.Evidence = strings.TrimPrefix(g.Evidence+"; "+followed, "; ")
	}
	if res.TimedOut && g.Outcome != record.Hung && g.Outcome != record.ServerExited {
		note := fmt.Sprintf("the adapter printed its observation but had not exited after %s", res.Took.Round(1e6))
		g.Evidence = strings.TrimPrefix(g.Evidence+"; "+note, "; ")
	}
	g.Evidence = clip(withNote(g.Evidence, refNote(entries)), maxEvidence)
	return g
}

// handed grades what a framework handed its model as an agent's model view is graded, against
// the wire's result read whole (a framework's text is bounded, so the result is too, in practice).
func handed(g *Grade, called bool, answer, recorded *transcript.Entry, v *record.ModelView) (record.Outcome, string) {
	w := noteWire(g, answer, recorded, true)
	if carried, ok := carriedFault(v, g.Introduced); ok {
		v.CarriedFault = &carried
	}
	g.ModelView = v.Kind
	outcome, evidence := agentOutcome(called, answer != nil, w.resultRaw, w.rpcError, v)
	forRecord(v)
	return outcome, evidence
}

// stuck says what a hung client waited on: the first request the server never answered, named
// (the handshake, a listing, the call), or the call when nothing else shows.
func stuck(entries []transcript.Entry, answer *transcript.Entry) string {
	if w := transcript.FirstUnanswered(entries); w != nil {
		return fmt.Sprintf("; the server never answered %s (id %s)", w.Method, w.ID)
	}
	if answer == nil {
		return "; the server never answered the call"
	}
	return ""
}

// wireAnswer is what the answer on the wire held: its result (nil when it had none) and its
// JSON-RPC error (nil when absent).
type wireAnswer struct {
	result    *digested
	resultRaw json.RawMessage // the result's bytes, when asked for
	rpcError  json.RawMessage
}

// noteWire records the answer the proxy sent (nil: none came) as the run's evidence, whole or
// as an excerpt, with the values its fault introduced, and reads its result: as a payload
// digest, or (raw) as its bytes, for an agent, whose grader decodes it. recorded, when set, is
// the recording's answer a replayed run was played: the values are its, since the replay's
// clean proxy knows nothing of the fault that put them on the wire.
func noteWire(g *Grade, answer, recorded *transcript.Entry, raw bool) (w wireAnswer) {
	if answer == nil {
		return w
	}
	g.Introduced = answer.Introduced
	if recorded != nil {
		g.Introduced = recorded.Introduced
	}
	r, err := answer.OpenWire()
	if err != nil {
		g.Wire = "(the answer could not be read back from the transcript: " + err.Error() + ")"
		return w
	}
	defer r.Close()
	k := jsonstream.NewKeeper(jsonstream.KeepLimit)
	all := io.TeeReader(r, k)
	d := jsonstream.NewReader(all)
	err = d.Object(func(key string) error {
		switch {
		case strings.EqualFold(key, "result") && raw:
			b, err := d.Raw(math.MaxInt)
			w.resultRaw, w.result = b, &digested{}
			return err
		case strings.EqualFold(key, "result"):
			p, err := readPayload(d)
			w.result = &p
			return err
		case strings.EqualFold(key, "error"):
			b, err := d.Raw(jsonstream.KeepLimit)
			if errors.Is(err, jsonstream.ErrTooLarge) {
				b, err = json.RawMessage(`{"message":"(too large to keep)"}`), nil
			}
			w.rpcError = b
			return err
		}
		return d.Skip()
	})
	if _, end := d.Peek(); err != nil || end != io.EOF {
		w = wireAnswer{} // not one JSON object: no result, no error, as encoding/json would say
	}
	_, _ = io.Copy(io.Discard, all)
	if b, whole := k.Whole(); whole {
		g.Wire = strings.TrimRight(string(b), "\r\n")
	} else {
		g.WireLarge = k.Excerpt()
	}
	return w
}

// taskResultRaw is the task's result as taskResult finds it, as JSON (nil if unreadable).
func taskResultRaw(e *transcript.Entry) json.RawMessage {
	r, err := e.OpenWire()
	if err != nil {
		return nil
	}
	defer r.Close()
	var a struct {
		Result json.RawMessage `json:"result"`
	}
	if json.NewDecoder(r).Decode(&a) != nil {
		return nil
	}
	if d, _ := e.Detail.(map[string]any); d["method"] == "tasks/get" {
		b := a.Result
		a.Result = nil
		if json.Unmarshal(b, &a) != nil {
			return nil
		}
	}
	return a.Result
}

// taskResult reads the task's result from the proxy's answer that carried it: the result of a
// tasks/result, the result inlined in a completed tasks/get (2026-07-28).
func taskResult(e *transcript.Entry) digested {
	p := digested{notObject: "the answer that carried the task's result could not be read"}
	r, err := e.OpenWire()
	if err != nil {
		return p
	}
	defer r.Close()
	d := jsonstream.NewReader(r)
	d2, _ := e.Detail.(map[string]any)
	inline := d2["method"] == "tasks/get"
	_ = d.Object(func(key string) error {
		if key != "result" {
			return d.Skip()
		}
		if !inline {
			p, err = readPayload(d)
			return err
		}
		return d.Object(func(key string) error {
			if key != "result" {
				return d.Skip()
			}
			p, err = readPayload(d)
			return err
		})
	})
	return p
}

// payload is the part of a tools/call result that a fault changes and a client must pass on;
// fields a library adds of its own (resultType, _meta) are not the client's to be judged on.
type payload struct {
	Content           any  `json:"content"`
	StructuredContent any  `json:"structuredContent"`
	IsError           bool `json:"isError"`
}

// digested is a payload read as a stream: each part as a digest of what it means (see
// jsonstream.Reader.Digest), with its bytes kept when small, for the evidence.
type digested struct {
	content, structured part
	isError             bool
	// notObject says why the result could not be read as one (encoding/json's words).
	notObject string
}

type part struct {
	sum [32]byte
	raw *jsonstream.Keeper
	// absent marks a part the result did not carry (or carried as null): the evidence says so
	// rather than showing the empty value it is compared as.
	absent bool
}

// A missing content list and an empty one are the same result, as are a missing and a null
// structuredContent.
var noContent, noStructured = constPart("[]"), constPart("null")

func constPart(s string) part {
	k := jsonstream.NewKeeper(jsonstream.KeepLimit)
	sum, _ := jsonstream.NewReader(io.TeeReader(strings.NewReader(s), k)).Digest()
	return part{sum: sum, raw: k, absent: true}
}

// readPayload reads a result into its payload; a value that is well-formed JSON but not a
// result object is noted in notObject, not an error.
func readPayload(d *jsonstream.Reader) (digested, error) {
	p := digested{content: noContent, structured: noStructured}
	c, err := d.Peek()
	switch {
	case err != nil:
		return p, d.Skip()
	case c == 'n':
		return p, d.Skip()
	case c != '{':
		p.notObject = "json: cannot unmarshal " + map[byte]string{'[': "array", '"': "string", 't': "bool", 'f': "bool"}[c] + " into a tools/call result"
		if c >= '0' && c <= '9' || c == '-' {
			p.notObject = "json: cannot unmarshal number into a tools/call result"
		}
		return p, d.Skip()
	}
	err = d.Object(func(key string) error {
		c, _ := d.Peek()
		switch {
		case strings.EqualFold(key, "content") && c == 'n':
			p.content = noContent
			return d.Skip()
		case strings.EqualFold(key, "content"):
			return readPart(d, &p.content)
		case strings.EqualFold(key, "structuredContent"):
			return readPart(d, &p.structured)
		case strings.EqualFold(key, "isError"):
			switch c {
			case 't', 'f':
				p.isError = c == 't'
			case 'n':
			default:
				p.notObject = "json: isError is not true or false"
			}
		}
		return d.Skip()
	})
	return p, err
}

func readPart(d *jsonstream.Reader, to *part) error {
	p := part{raw: jsonstream.NewKeeper(jsonstream.KeepLimit)}
	err := d.Capture(p.raw, func() (err error) {
		p.sum, err = d.Digest()
		return err
	})
	*to = p
	return err
}

// differs says how what the client returned differs from what was on the wire, or "".
func differs(got, want digested) string {
	if got.notObject != "" {
		return "the client's result is not a JSON object: " + got.notObject
	}
	if want.notObject != "" {
		return "the wire result is not a JSON object: " + want.notObject
	}
	var diffs []string
	if got.content.sum != want.content.sum {
		diffs = append(diffs, "content "+got.content.brief()+" where the wire had "+want.content.brief())
	}
	if got.structured.sum != want.structured.sum {
		diffs = append(diffs, "structuredContent "+got.structured.brief()+" where the wire had "+want.structured.brief())
	}
	if got.isError != want.isError {
		diffs = append(diffs, fmt.Sprintf("isError %v where the wire had %v", got.isError, want.isError))
	}
	return strings.Join(diffs, "; ")
}

// brief shows a part as compact JSON, cut at 200 bytes; a large one by its first bytes.
func (p part) brief() string {
	if p.absent {
		return "none"
	}
	b, whole := p.raw.Whole()
	if !whole {
		return p.raw.Head(200) + fmt.Sprintf("… (%d bytes)", p.raw.Len())
	}
	var v any
	if decode(b, &v) != nil {
		return clip(string(b), 200)
	}
	return brief(v)
}

func decode(b json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

func brief(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// clip cuts s to at most n bytes, at a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	k := jsonstream.NewKeeper(n)
	k.Write([]byte(s))
	return k.Head(n) + "…"
}

// lastLine is the line of what the adapter wrote on stderr that says why it failed.
func lastLine(b []byte) string {
	return proc.Explaining(string(b), 300)
}
