package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/toolscore/toolscore/internal/model"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenarios"
)

// agentManifest is the embedded ledger scenario (its tool, prompt, truth, faults and schema
// modes; in CI a sample of its faults) with the given clients, one run per cell.
func agentManifest(t *testing.T, clients string) string {
	t.Helper()
	text := string(scenarios.Ledger)
	i := strings.Index(text, "\nclients:")
	if i < 0 {
		t.Fatal("the embedded scenario has no clients section")
	}
	if !fullProduct() {
		// CI's sample: the faults that tell the agents' answers apart, under both schema modes
		// and protocols (scripts/nightly sweeps every fault).
		f, rest, ok1 := strings.Cut(text, "\nfaults:")
		_, rest, ok2 := strings.Cut(rest, "\nschema_modes:")
		if !ok1 || !ok2 {
			t.Fatal("the embedded scenario has no faults section before its schema modes")
		}
		text = f + "\nfaults: [" + strings.Join(agentSampleFaults, ", ") + "]\nschema_modes:" + rest
		i = strings.Index(text, "\nclients:")
	}
	p := filepath.Join(t.TempDir(), "agents.yaml")
	if err := os.WriteFile(p, []byte(text[:i+1]+"clients: ["+clients+"]\nruns: 1\ntimeout: 60s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// agentSampleFaults are the faults of an agent's sweep in CI: a good result, a tool error, a
// fault each of the three study agents carries to its model, and the two the SDKs' validators
// reject, which some agents reject too.
var agentSampleFaults = []string{"clean", "error", "corrupt", "type-swap", "wrong-container"}

// agentWant is what one agent run gives: the outcome, the model's view, the graded answer,
// and for a rejection the agent's message.
type agentWant struct {
	outcome, view, answer string
	flagged               bool
	message               string
}

// agentSweep runs one agent (the real CLI in its cell image, against the scripted model) over
// the faults × schema modes × protocols of agentManifest on the docker backend, one run each;
// checks every cell's outcome, model view, answer and flag against want, and the library it
// ran; logs each run's time beside the CLI's own; and returns the output directory and the run
// records that carry an agent observation (a run without one is an error).
func agentSweep(t *testing.T, agent, library string, want func(fault, schema, protocol string) agentWant) (string, []record.Run) {
	t.Helper()
	out := t.TempDir()
	start := time.Now()
	code, _, stderr := runStatic(t, agentManifest(t, agent), "--backend", "docker", "--parallel", "2", "--out", out)
	if code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	took := time.Since(start)
	res := readResultsDir(t, out)
	cells := 11 * 2 * 2
	if !fullProduct() {
		cells = len(agentSampleFaults) * 2 * 2
	}
	if len(res.Unavailable) > 0 || len(res.Cells) != cells {
		t.Fatalf("%d cells, unavailable %v; want %d and none", len(res.Cells), res.Unavailable, cells)
	}
	for _, c := range res.Cells {
		w := want(c.Fault, c.Schema, c.Protocol)
		if c.Outcome[w.outcome] != 1 || c.ModelView[w.view] != 1 || c.Answer[w.answer] != 1 || (c.Answer["flagged"] == 1) != w.flagged {
			t.Errorf("%s: %s, model view %v, answer %v; want %s, %s, %s (flagged %v); evidence %v",
				c.Coordinates(), c.Counts(), c.ModelView, c.Answer, w.outcome, w.view, w.answer, w.flagged, c.Examples)
		}
		if c.Library != library {
			t.Errorf("%s ran %q, want %s", c.Coordinates(), c.Library, library)
		}
	}
	f, err := os.Open(filepath.Join(out, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []record.Run
	var times []string
	cliTime := regexp.MustCompile(`toolscore agent ` + regexp.QuoteMeta(agent) + `: (\S+),`)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var rec record.Run
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		name := rec.Fault + " × " + rec.Schema + " × " + rec.Protocol
		if rec.Observation == nil || rec.Observation.Agent == nil {
			t.Errorf("%s: %s with no agent observation: %s (stderr: %s)", name, rec.Outcome, rec.Evidence, rec.Stderr)
			continue
		}
		if m := cliTime.FindStringSubmatch(rec.Stderr); m != nil {
			times = append(times, name+": run "+(time.Duration(rec.Millis)*time.Millisecond).String()+", CLI "+m[1])
		}
		recs = append(recs, rec)
	}
	sort.Strings(times)
	t.Logf("%d runs in %s at parallel 2 (image build included when it was needed):\n%s", len(recs), took.Round(time.Second), strings.Join(times, "\n"))
	return out, recs
}

// claudeCodeWant is what Claude Code 2.1.332 does with each fault of the ledger scenario under
// each protocol, found by running the real CLI in its cell (scripted model, tools listed without
// a search step). The protocol decides what it checks: against a server offering 2026-07-28 it
// opens a 2026 session with server/discover and validates structuredContent against the
// published outputSchema itself; against a 2025-era server (the proxy answers discover as one
// does) it falls back to initialize 2025-11-25, validates nothing against the schema, and its
// SDK's own result schema refuses an array where an object belongs ("malformed result that
// failed schema validation"), in both modes. Under 2026-07-28:
//
//   - its client layer puts the JSON of structuredContent in front of the model, never the text
//     block, whenever there is structuredContent (and the outputSchema is never sent to the
//     model: schema_sent is false in both modes; the same under 2025-11-25);
//   - with the schema hidden it validates nothing: type-swap, drop-required and even
//     wrong-container (an array) reach the model as they were on the wire. (The TypeScript SDK
//     on its own throws on wrong-container in both modes; Claude Code does not.)
//   - with the schema published it rejects, by the schema, every shape fault the TypeScript SDK's
//     list-then-call path rejects (type-swap, drop-required, wrong-container, and a result
//     without structuredContent: empty, truncate), and tells the model it is an error;
//   - an isError result and a JSON-RPC error reach the model as errors;
//   - an empty result becomes its own placeholder "(… completed with no output)": none;
//   - corrupt and corrupt-plausible are well-formed lies: passed on, believed, and the answer
//     states the fault's values.
//
// Under 2025-11-25 the same, but for the schema checks: wrong-container is rejected in both
// modes, and every other shape fault reaches the model as it was on the wire, the schema
// published or not (empty as none, truncate as its text).
//
// The scripted model answers by quoting what it got, so the answer's grade follows the view.
func claudeCodeWant(fault, schema, protocol string) agentWant {
	if protocol == "2025-11-25" && fault == "wrong-container" {
		return agentWant{"rejected", "error", "no-value", true, claudeMalformed}
	}
	if schema == "published" && protocol != "2025-11-25" {
		switch fault {
		case "empty", "truncate":
			return agentWant{"rejected", "error", "no-value", true, "Tool get_account_balance has an output schema but did not return structured content"}
		case "type-swap":
			return agentWant{"rejected", "error", "no-value", true, "Structured content does not match the tool's output schema: data/balance_minor must be integer"}
		case "drop-required":
			return agentWant{"rejected", "error", "no-value", true, "Structured content does not match the tool's output schema: data must have required property 'account_id'"}
		case "wrong-container":
			return agentWant{"rejected", "error", "no-value", true, "Structured content does not match the tool's output schema: data must be object"}
		}
	}
	switch fault {
	case "error":
		return agentWant{"passed", "error", "no-value", true, ""}
	case "rpc-error":
		return agentWant{"rpc-error", "error", "no-value", true, ""}
	case "empty":
		return agentWant{"passed", "none", "no-value", true, ""}
	case "truncate":
		// Seed 1 cuts the text inside the date ("… as of 2026-03-3"): the amount survives.
		return agentWant{"passed", "text", "truth", false, ""}
	case "corrupt", "corrupt-plausible":
		return agentWant{"passed", "structured", "fault-value", false, ""}
	}
	return agentWant{"passed", "structured", "truth", false, ""} // clean, latency, and the shape faults unvalidated
}

// claudeMalformed is what Claude Code tells the model of an array as structuredContent in a
// 2025 session: its SDK's own result schema refused it.
const claudeMalformed = `MCP server "scenario" returned a malformed result that failed schema validation: Invalid result for tools/call: [
  {
    "expected": "record",
    "code": "invalid_type",
    "path": [
      "structuredContent"
    ],
    "message": "Invalid input: expected record, received array"
  }
]`

// TestClaudeCodeOnDocker runs the real Claude Code CLI in its cell image over every fault of
// the embedded ledger scenario in both schema modes, against the scripted model, and checks
// each run's outcome, model view and answer against claudeCodeWant, and the evidence: the
// tool result in the model's recorded request is the one reported, Claude Code's own
// stream-json agrees with it, and nobody sent the outputSchema to the model.
func TestClaudeCodeOnDocker(t *testing.T) {
	api := engine(t)
	out, recs := agentSweep(t, "claude-code", "@anthropic-ai/claude-code 2.1.332", claudeCodeWant)
	for _, rec := range recs {
		name := rec.Fault + " × " + rec.Schema + " × " + rec.Protocol
		a := rec.Observation.Agent
		v := a.ModelView
		w := claudeCodeWant(rec.Fault, rec.Schema, rec.Protocol)
		if w.message != "" && (v.Excerpt != w.message || rec.Evidence != w.message) {
			t.Errorf("%s: the model was told %q (evidence %q), want %q", name, v.Excerpt, rec.Evidence, w.message)
		}
		if v.SchemaSent {
			t.Errorf("%s: schema_sent, but Claude Code sends no outputSchema to the model", name)
		}
		if a.StreamAgrees == nil || !*a.StreamAgrees {
			t.Errorf("%s: Claude Code's stream-json does not agree with the model's view: %s", name, a.Stream)
		}
		// Faults that change values or shape and reach the model carry them there.
		switch rec.Fault {
		case "corrupt", "corrupt-plausible", "type-swap", "drop-required", "wrong-container", "truncate", "error":
			if want := w.outcome == "passed"; v.CarriedFault == nil || *v.CarriedFault != want {
				t.Errorf("%s: carried_fault %v, want %v", name, v.CarriedFault, want)
			}
		}
		if rec.Fault == "wrong-container" && rec.Schema == "hidden" && rec.Protocol == "2026-07-28" && !strings.HasPrefix(v.Excerpt, "[") {
			t.Errorf("wrong-container × hidden: the model got %q, want the array", v.Excerpt)
		}
		// The evidence: the tool result in the model's recorded request is the one reported.
		recorded := filepath.Join(out, filepath.Dir(rec.Tee), "claude-code", "model-requests.jsonl")
		rf, err := os.Open(recorded)
		if err != nil {
			t.Errorf("%s: %v (the run's stderr: %s)", name, err, rec.Stderr)
			continue
		}
		reqs, err := model.ReadRequests(rf)
		rf.Close()
		found := false
		for _, q := range reqs {
			var mr model.MessagesRequest
			if json.Unmarshal(q.Body, &mr) == nil {
				if b := mr.FindToolResult(model.CallID); b != nil && string(b.Raw) == string(v.Block) {
					found = true
				}
			}
		}
		if err != nil || !found {
			t.Errorf("%s: no recorded model request carries the reported tool result %s (%v)", name, v.Block, err)
		}
	}
	noLeftovers(t, api, "the claude-code sweep")
}
