package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/model"
)

// geminiExpect is agentWant and whether what the model got carries what the fault introduced
// ("" when the fault introduces nothing or the model got none of it; "yes", "no").
type geminiExpect struct {
	agentWant
	carried string
}

// geminiWant is what Gemini CLI 0.61.0 does with each fault of the ledger scenario, found by
// running the real CLI in its cell (scripted model, the router's JSON call answered):
//
//   - its client layer puts only the text blocks in front of the model, never structuredContent,
//     each wrapped in <untrusted_context>…</untrusted_context>, under the functionResponse's
//     "output" (so the view is text, not structured as with Claude Code). The outputSchema is
//     never sent to the model (schema_sent false in both modes; the declaration has the input
//     schema only, plus a wait_for_previous parameter of the CLI's own);
//   - so faults that live only in structuredContent are invisible with the schema hidden:
//     type-swap and drop-required pass, the model reads the untouched text and answers the truth
//     (carried_fault false). Claude Code shows those to the model;
//   - wrong-container (structuredContent an array) is rejected in both modes: the MCP SDK's own
//     result parsing refuses a structuredContent that is not an object, schema or not. Claude
//     Code passes the array on when the schema is hidden;
//   - with the schema published it rejects by the schema the same shape faults Claude Code does
//     (type-swap, drop-required, wrong-container, and a result without structuredContent: empty,
//     truncate), with the SDK's messages;
//   - every failure, an isError result, a JSON-RPC error or a rejection, reaches the model as
//     {"error": "MCP tool '…' reported tool error for function call: … with response: …"}, the
//     raw response (the server's text included) inside;
//   - an empty result (hidden) becomes an empty response object {}: none. Claude Code gives its
//     own "(… completed with no output)" placeholder;
//   - corrupt and corrupt-plausible are well-formed lies in the text: passed on, believed, and
//     the answer states the fault's values; truncate (hidden) passes the cut text, the amount
//     intact.
//
// The scripted model answers by quoting what it got, so the answer's grade follows the view.
// Gemini CLI sends initialize 2025-06-18, which both protocols of the scenario offer: the same
// bytes reach it under each, and the protocol changes nothing.
func geminiWant(fault, schema string) geminiExpect {
	const (
		noStructured = "MCP error -32600: Tool get_account_balance has an output schema but did not return structured content"
		notObject    = "Invalid input: expected record, received array"
	)
	if schema == "published" {
		switch fault {
		case "empty":
			return geminiExpect{agentWant{"rejected", "error", "no-value", true, noStructured}, ""}
		case "truncate":
			return geminiExpect{agentWant{"rejected", "error", "no-value", true, noStructured}, "no"}
		case "type-swap":
			return geminiExpect{agentWant{"rejected", "error", "no-value", true, "MCP error -32602: Structured content does not match the tool's output schema: data/balance_minor must be integer"}, "no"}
		case "drop-required":
			return geminiExpect{agentWant{"rejected", "error", "no-value", true, "MCP error -32602: Structured content does not match the tool's output schema: data must have required property 'account_id'"}, "no"}
		}
	}
	switch fault {
	case "wrong-container":
		return geminiExpect{agentWant{"rejected", "error", "no-value", true, notObject}, "no"}
	case "error":
		return geminiExpect{agentWant{"passed", "error", "no-value", true, "upstream ledger service unavailable (503): try again later"}, "yes"}
	case "rpc-error":
		return geminiExpect{agentWant{"rpc-error", "error", "no-value", true, "MCP error -32603: Internal error"}, ""}
	case "empty":
		return geminiExpect{agentWant{"passed", "none", "no-value", true, ""}, ""}
	case "truncate":
		// Seed 1 cuts the text inside the date ("… as of 2026-03-3"): the amount survives.
		return geminiExpect{agentWant{"passed", "text", "truth", false, ""}, "yes"}
	case "corrupt", "corrupt-plausible":
		return geminiExpect{agentWant{"passed", "text", "fault-value", false, ""}, "yes"}
	case "type-swap", "drop-required":
		// Only structuredContent changed, and the model never sees it.
		return geminiExpect{agentWant{"passed", "text", "truth", false, ""}, "no"}
	}
	return geminiExpect{agentWant{"passed", "text", "truth", false, ""}, ""} // clean, latency
}

// TestGeminiCLIOnDocker runs the real Gemini CLI in its cell image over every fault of the
// embedded ledger scenario in both schema modes, against the scripted model, and checks each
// run's outcome, model view, answer and carried fault against geminiWant, and the evidence: the
// functionResponse in the model's recorded request is the one reported, the router's JSON call
// came first, the model was offered the scenario's tool alone (no built-in tools), Gemini CLI's
// own stream-json agrees, and nobody sent the outputSchema to the model.
func TestGeminiCLIOnDocker(t *testing.T) {
	api := engine(t)
	out, recs := agentSweep(t, "gemini-cli", "@google/gemini-cli 0.61.0", func(f, s, _ string) agentWant { return geminiWant(f, s).agentWant })
	for _, rec := range recs {
		name := rec.Fault + " × " + rec.Schema + " × " + rec.Protocol
		a := rec.Observation.Agent
		v := a.ModelView
		w := geminiWant(rec.Fault, rec.Schema)
		if w.message != "" && !strings.Contains(v.Excerpt, w.message) {
			t.Errorf("%s: the model was told %q, want it to say %q", name, v.Excerpt, w.message)
		}
		if w.outcome == "rejected" && rec.Evidence != v.Excerpt {
			t.Errorf("%s: evidence %q, want what the model was told", name, rec.Evidence)
		}
		if w.view == "error" && !strings.HasPrefix(v.Excerpt, "MCP tool 'get_account_balance' reported tool error for function call: ") {
			t.Errorf("%s: the model was told %q", name, v.Excerpt)
		}
		if v.SchemaSent {
			t.Errorf("%s: schema_sent, but Gemini CLI sends no outputSchema to the model", name)
		}
		if v.Called != "mcp_scenario_get_account_balance" {
			t.Errorf("%s: the model called %q", name, v.Called)
		}
		if a.StreamAgrees == nil || !*a.StreamAgrees {
			t.Errorf("%s: Gemini CLI's stream-json does not agree with the model's view: %s", name, a.Stream)
		}
		carried := ""
		if v.CarriedFault != nil {
			carried = map[bool]string{true: "yes", false: "no"}[*v.CarriedFault]
		}
		if carried != w.carried {
			t.Errorf("%s: carried_fault %q, want %q", name, carried, w.carried)
		}
		// The evidence: the functionResponse in the model's recorded request is the one
		// reported; the router's JSON call came first; only the scenario's tool was declared.
		recorded := filepath.Join(out, filepath.Dir(rec.Tee), "gemini-cli", "model-requests.jsonl")
		rf, err := os.Open(recorded)
		if err != nil {
			t.Errorf("%s: %v (the run's stderr: %s)", name, err, rec.Stderr)
			continue
		}
		reqs, err := model.ReadRequests(rf)
		rf.Close()
		if err != nil || len(reqs) != 3 {
			t.Errorf("%s: %d model requests (%v), want the router's, the call and the answer", name, len(reqs), err)
		}
		found := false
		for i, q := range reqs {
			var gr model.GeminiRequest
			if json.Unmarshal(q.Body, &gr) != nil {
				continue
			}
			if i == 0 && !gr.WantsJSON() {
				t.Errorf("%s: the first request (%s) is not the router's JSON call", name, q.Path)
			}
			if i > 0 && !reflect.DeepEqual(gr.ToolNames(), []string{"mcp_scenario_get_account_balance"}) {
				t.Errorf("%s: request %d declared %v, want the scenario's tool alone", name, i, gr.ToolNames())
			}
			if p := gr.FindFunctionResponse(model.GeminiCallID); p != nil && string(p.Raw) == string(v.Block) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no recorded model request carries the reported functionResponse %s", name, v.Block)
		}
		var part model.GeminiPart
		if v.Kind == "text" && (json.Unmarshal(v.Block, &part) != nil || part.FunctionResponse == nil) {
			t.Errorf("%s: the block is not a functionResponse: %s", name, v.Block)
		} else if v.Kind == "text" {
			if out, _ := part.FunctionResponse.Output(); out != "<untrusted_context>\n"+v.Excerpt+"\n</untrusted_context>" {
				t.Errorf("%s: the model got %q, want the text in the CLI's framing", name, out)
			}
		}
	}
	noLeftovers(t, api, "the gemini-cli sweep")
}
