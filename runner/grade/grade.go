// Package grade turns one run (what the adapter reported, and what the transcript shows went
// over the wire) into an outcome with its evidence.
package grade

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/toolscore/toolscore/runner/backend"
	"github.com/toolscore/toolscore/runner/client"
	"github.com/toolscore/toolscore/runner/fault"
	"github.com/toolscore/toolscore/runner/proxy"
)

// Outcomes of an SDK-level client, as DESIGN.md names them.
const (
	Passed   = "passed"     // returned what was on the wire
	Altered  = "altered"    // returned something else
	Threw    = "threw"      // the library raised
	RPCError = "rpc-error"  // the library reported the JSON-RPC error that was on the wire
	Hung     = "hung"       // no answer before the run's timeout
	Crashed  = "crashed"    // the adapter died or printed no observation
	OOM      = "oom-killed" // the cell ran out of memory and the kernel killed it
)

// Grade is one run's outcome and the evidence for it.
type Grade struct {
	Outcome string `json:"outcome"`
	// Evidence is one line a person reads: the exception text, or what differed.
	Evidence string `json:"evidence,omitempty"`
	// Wire is the answer exactly as the proxy sent it to the client, when there was one.
	Wire string `json:"wire,omitempty"`
	// Introduced lists the values the fault put on the wire.
	Introduced  []fault.Introduced  `json:"introduced,omitempty"`
	Observation *client.Observation `json:"observation,omitempty"`
	// For an agent (grade.Agent): the kind of the model's view, the answer's grade, and whether
	// the answer named a problem.
	ModelView string `json:"model_view,omitempty"`
	Answer    string `json:"answer,omitempty"`
	Flagged   bool   `json:"flagged,omitempty"`
}

// SDK grades a run of an SDK-level client.
func SDK(res backend.Result, transcript []proxy.Entry) Grade {
	var g Grade
	_, answer := proxy.TargetAnswer(transcript)
	wireResult, wireError := g.noteWire(answer)
	obs, perr := client.ParseObservation(res.Stdout)
	g.Observation = obs
	switch {
	case res.OOMKilled:
		g.Outcome, g.Evidence = OOM, "the cell ran out of memory and was killed"
	case res.TimedOut:
		g.Outcome = Hung
		g.Evidence = fmt.Sprintf("no observation within %s", res.Took.Round(1e6))
		if answer == nil {
			g.Evidence += "; the server never answered the call"
		}
	case res.Err != nil:
		g.Outcome, g.Evidence = Crashed, res.Err.Error()
	case res.ExitCode != 0 || perr != nil:
		g.Outcome = Crashed
		g.Evidence = fmt.Sprintf("the adapter exited with status %d", res.ExitCode)
		if perr != nil && res.ExitCode == 0 {
			g.Evidence = perr.Error()
		}
		if tail := lastLine(res.Stderr); tail != "" {
			g.Evidence += ": " + tail
		}
	case obs.Raised != nil:
		g.Outcome, g.Evidence = Threw, obs.Raised.Class+": "+obs.Raised.Message
		if wireError != nil {
			g.Outcome = RPCError
		}
	case wireResult == nil:
		g.Outcome, g.Evidence = Altered, "the client returned a result, but none was on the wire"
	default:
		if diff := differs(obs.Returned, wireResult); diff != "" {
			g.Outcome, g.Evidence = Altered, diff
		} else {
			g.Outcome = Passed
		}
	}
	return g
}

// noteWire records the answer the proxy sent (nil: none came) as the run's evidence, and
// returns its result and its JSON-RPC error, either nil when absent.
func (g *Grade) noteWire(answer *proxy.Entry) (result, rpcErr json.RawMessage) {
	if answer == nil {
		return nil, nil
	}
	g.Wire = strings.TrimRight(string(answer.Wire), "\r\n")
	g.Introduced = answer.Introduced
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	_ = json.Unmarshal(answer.Wire, &msg)
	return msg.Result, msg.Error
}

// payload is the part of a tools/call result that a fault changes and a client must pass on;
// fields a library adds of its own (resultType, _meta) are not the client's to be judged on.
type payload struct {
	Content           any  `json:"content"`
	StructuredContent any  `json:"structuredContent"`
	IsError           bool `json:"isError"`
}

// differs says how what the client returned differs from what was on the wire, or "".
func differs(returned, wire json.RawMessage) string {
	var got, want payload
	if err := decode(returned, &got); err != nil {
		return "the client's result is not a JSON object: " + err.Error()
	}
	if err := decode(wire, &want); err != nil {
		return "the wire result is not a JSON object: " + err.Error()
	}
	if want.Content == nil {
		want.Content = []any{} // a missing content list and an empty one are the same result
	}
	if got.Content == nil {
		got.Content = []any{}
	}
	var diffs []string
	if !reflect.DeepEqual(got.Content, want.Content) {
		diffs = append(diffs, "content "+brief(got.Content)+" where the wire had "+brief(want.Content))
	}
	if !reflect.DeepEqual(got.StructuredContent, want.StructuredContent) {
		diffs = append(diffs, "structuredContent "+brief(got.StructuredContent)+" where the wire had "+brief(want.StructuredContent))
	}
	if got.IsError != want.IsError {
		diffs = append(diffs, fmt.Sprintf("isError %v where the wire had %v", got.IsError, want.IsError))
	}
	return strings.Join(diffs, "; ")
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

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	s := strings.TrimSpace(lines[len(lines)-1])
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
