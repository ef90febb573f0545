package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/model"
)

// codexWant is what Codex 0.171.0 does with each fault of the ledger scenario, found by running
// the real CLI in its cell (scripted model as gpt-5.5, the newest catalogue model that calls
// tools directly; the MCP tool deferred behind Codex's client-side tool_search, which the
// script uses first):
//
//   - like Claude Code, its client layer puts the JSON of structuredContent in front of the
//     model whenever there is structuredContent, never the text block, and never sends the
//     outputSchema (schema_sent is false in both modes);
//   - unlike Claude Code it validates nothing in either mode: publishing the schema changes
//     nothing. type-swap, drop-required and wrong-container (an array) reach the model as they
//     were on the wire, and a result without structuredContent (truncate, empty) is passed on
//     as its text, or as nothing, where Claude Code rejects it by the schema;
//   - unlike Claude Code it drops isError: the Responses API has no error flag on a
//     function_call_output and Codex adds no word of its own, so the error text reaches the
//     model as a plain result (altered: text, not error). Its own --json record does mark the
//     call "failed";
//   - a JSON-RPC error becomes Codex's own message ("tool call error: tool call failed for
//     `scenario/get_account_balance` … Mcp error: -32603: Internal error"): an error, as in
//     Claude Code;
//   - every output is framed "Wall time: N seconds\nOutput:"; the view is what follows, and an
//     empty result is the bare frame: none;
//   - corrupt and corrupt-plausible are well-formed lies: passed on, believed, and the answer
//     states the fault's values.
//
// The scripted model answers by quoting what it got, so the answer's grade follows the view.
//
// Codex sends initialize 2025-06-18, which both protocols of the scenario offer: the same bytes
// reach it under each, and the protocol changes nothing.
func codexWant(fault, schema, protocol string) agentWant {
	switch fault {
	case "error":
		return agentWant{"altered", "text", "no-value", true, "upstream ledger service unavailable (503): try again later"}
	case "rpc-error":
		return agentWant{"rpc-error", "error", "no-value", true, "tool call error: tool call failed for `scenario/get_account_balance`\n\nCaused by:\n    Mcp error: -32603: Internal error"}
	case "empty":
		return agentWant{"passed", "none", "no-value", true, ""}
	case "truncate":
		// Seed 1 cuts the text inside the date ("… as of 2026-03-3"): the amount survives.
		return agentWant{"passed", "text", "truth", false, "ACC-4471: balance 40,718.77 USD as of 2026-03-3"}
	case "corrupt", "corrupt-plausible":
		return agentWant{"passed", "structured", "fault-value", false, ""}
	}
	return agentWant{"passed", "structured", "truth", false, ""} // clean, latency, and the shape faults, in both modes
}

// TestCodexOnDocker runs the real Codex CLI in its cell image over every fault of the embedded
// ledger scenario in both schema modes, against the scripted model, and checks each run's
// outcome, model view and answer against codexWant, and the evidence: the function_call_output
// in the model's recorded request is the one reported, it came after the tool search, Codex's
// own --json record agrees with it, and nobody sent the outputSchema to the model.
func TestCodexOnDocker(t *testing.T) {
	api := engine(t)
	out, recs := agentSweep(t, "codex", "@openai/codex 0.171.0", codexWant)
	for _, rec := range recs {
		name := rec.Fault + " × " + rec.Schema + " × " + rec.Protocol
		a := rec.Observation.Agent
		v := a.ModelView
		w := codexWant(rec.Fault, rec.Schema, rec.Protocol)
		if w.message != "" && v.Excerpt != w.message {
			t.Errorf("%s: the model was told %q, want %q", name, v.Excerpt, w.message)
		}
		if v.SchemaSent {
			t.Errorf("%s: schema_sent, but Codex sends no outputSchema to the model", name)
		}
		if v.Called != "mcp__scenario__get_account_balance" || a.Model != "gpt-5.5" {
			t.Errorf("%s: called %q as model %q", name, v.Called, a.Model)
		}
		if a.StreamAgrees == nil || !*a.StreamAgrees {
			t.Errorf("%s: Codex's --json record does not agree with the model's view: %s", name, a.Stream)
		}
		// Every fault that changes values or shape reaches the model: Codex rejects none.
		switch rec.Fault {
		case "corrupt", "corrupt-plausible", "type-swap", "drop-required", "wrong-container", "truncate", "error":
			if v.CarriedFault == nil || !*v.CarriedFault {
				t.Errorf("%s: carried_fault %v, want true", name, v.CarriedFault)
			}
		}
		if rec.Fault == "wrong-container" && !strings.HasPrefix(v.Excerpt, "[") {
			t.Errorf("%s: the model got %q, want the array", name, v.Excerpt)
		}
		if rec.Fault == "error" && !strings.Contains(rec.Evidence, "isError") {
			t.Errorf("%s: evidence %q, want the dropped isError named", name, rec.Evidence)
		}
		// The evidence: the output in the model's recorded request is the one reported, and it
		// came after the tool search loaded the tool.
		recorded := filepath.Join(out, filepath.Dir(rec.Tee), "codex", "model-requests.jsonl")
		rf, err := os.Open(recorded)
		if err != nil {
			t.Errorf("%s: %v (the run's stderr: %s)", name, err, rec.Stderr)
			continue
		}
		reqs, err := model.ReadRequests(rf)
		rf.Close()
		found := false
		var replies []string
		for _, q := range reqs {
			replies = append(replies, q.Reply)
			var rr model.ResponsesRequest
			if q.Path == "/v1/responses" && json.Unmarshal(q.Body, &rr) == nil {
				if o := rr.FindCallOutput(model.ResponsesCallID); o != nil && string(o.Raw) == string(v.Block) {
					found = true
				}
			}
		}
		if err != nil || !found {
			t.Errorf("%s: no recorded model request carries the reported output %s (%v)", name, v.Block, err)
		}
		if want := "call tool_search,call mcp__scenario__get_account_balance,answer"; strings.Join(replies, ",") != want {
			t.Errorf("%s: the model's turns were %q, want %q", name, replies, want)
		}
	}
	noLeftovers(t, api, "the codex sweep")
}
