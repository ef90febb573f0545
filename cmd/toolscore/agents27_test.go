package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolscore/toolscore/record"
)

// agents27Manifest is the deliberate sample for the agents that speak the Chat Completions API:
// the ledger scenario's four faults clean, type-swap, wrong-container and error, the schema
// published, protocol 2026-07-28, stdio, one run each, each cell given agents27Timeout.
func agents27Manifest(t *testing.T, agent string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), agent+".yaml")
	err := os.WriteFile(p, []byte(`name: agents27 `+agent+`
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
prompt: What is the balance of ledger account ACC-4471? Answer with the amount and currency.
truth: ["40718.77", "4071877"]
faults: [clean, type-swap, wrong-container, error]
schema_modes: [published]
protocols: [2026-07-28]
clients: [`+agent+`]
runs: 1
timeout: `+cmp.Or(agents27Timeout[agent], "180s")+`
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// agents27Timeout is a cell's time for the agents that need more than 180 s: Kilo Code's CLI
// 7.7.7 spends 2-3 minutes of a cell's run idle before its first model request (15 s of CPU in
// 3 minutes), where it took 50 s on the host; what it waits for was not found.
var agents27Timeout = map[string]string{"kilo-cli": "360s"}

// agents27Sweep runs the sample for one agent on the docker backend and checks every cell's
// outcome, model view, answer and flag against want, and the library; it returns the run
// records (each with its agent observation) by fault.
func agents27Sweep(t *testing.T, agent, library string, want map[string]agentWant) map[string]record.Run {
	t.Helper()
	out := t.TempDir()
	start := time.Now()
	code, _, stderr := runStatic(t, agents27Manifest(t, agent), "--backend", "docker", "--parallel", "2", "--out", out)
	if code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	res := readResultsDir(t, out)
	if len(res.Unavailable) > 0 || len(res.Cells) != len(want) {
		t.Fatalf("%d cells, unavailable %v; want %d and none", len(res.Cells), res.Unavailable, len(want))
	}
	for _, c := range res.Cells {
		w := want[c.Fault]
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
	recs := map[string]record.Run{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var times []string
	for sc.Scan() {
		var rec record.Run
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Observation == nil || rec.Observation.Agent == nil {
			t.Errorf("%s: %s with no agent observation: %s (stderr: %s)", rec.Fault, rec.Outcome, rec.Evidence, rec.Stderr)
			continue
		}
		v := rec.Observation.Agent.ModelView
		if w := want[rec.Fault]; w.message != "" && v.Excerpt != w.message {
			t.Errorf("%s: the model was told %q, want %q", rec.Fault, v.Excerpt, w.message)
		}
		times = append(times, rec.Fault+": "+(time.Duration(rec.Millis)*time.Millisecond).String())
		recs[rec.Fault] = rec
	}
	t.Logf("%s: %d runs in %s at parallel 2 (image build included when it was needed): %s", agent, len(recs), time.Since(start).Round(time.Second), strings.Join(times, ", "))
	return recs
}

// TestQwenCodeOnDocker: Qwen Code 0.24.4 in its cell against the scripted Chat Completions
// model (its MCP tools offered directly: tools.toolSearch off). What it does with each fault,
// found by running it:
//
//   - for a result with structuredContent it gives the model the JSON of structuredContent and
//     then the text blocks, in one tool message (transformMcpContentToParts,
//     chunks/chunk-2VS5EEXU.js:6596-6626): the view is structured, and type-swap reaches the
//     model as it was on the wire (passed, the fault carried; it validates nothing against the
//     published schema on this path); the answer still reads the amount from the text;
//   - wrong-container (structuredContent an array) is refused by its bundled MCP client 2.x's
//     result schema (CallToolResultWireSchema piped into CallToolResultSchema$1, whose
//     structuredContent is record3(string6(), unknown3()), chunks/chunk-DPEB6S2R.js:98489,
//     97938-97941; line 51405 is the v1 SDK that only its IDE connection uses)
//     and the SDK's message "Invalid result for tools/call: …" goes to the model instead, the
//     call recorded is_error: rejected;
//   - an isError result becomes its own message "MCP tool '…' reported tool error for function
//     call: … with response: …" with the raw response inside (chunks/chunk-2VS5EEXU.js:6263-6266):
//     an error, passed.
func TestQwenCodeOnDocker(t *testing.T) {
	api := engine(t)
	recs := agents27Sweep(t, "qwen-code", "@qwen-code/qwen-code 0.24.4", map[string]agentWant{
		"clean":           {"passed", "structured", "truth", false, `{"account_id":"ACC-4471","as_of":"2026-03-31","balance_minor":4071877,"currency":"USD"}`},
		"type-swap":       {"passed", "structured", "truth", false, `{"account_id":"ACC-4471","as_of":"2026-03-31","balance_minor":"4071877","currency":"USD"}`},
		"wrong-container": {"rejected", "error", "no-value", true, ""},
		"error":           {"passed", "error", "no-value", true, ""},
	})
	for fault, rec := range recs {
		a := rec.Observation.Agent
		v := a.ModelView
		if v.Called != "mcp__scenario__get_account_balance" || a.Model != "qwen3-coder-plus" || v.SchemaSent {
			t.Errorf("%s: called %q as model %q, schema sent %v", fault, v.Called, a.Model, v.SchemaSent)
		}
		if a.StreamAgrees == nil || !*a.StreamAgrees {
			t.Errorf("%s: Qwen Code's stream-json record does not agree with the model's view: %s", fault, a.Stream)
		}
		switch fault {
		case "clean", "type-swap":
			// The whole message: the JSON, then the text block.
			if !strings.Contains(string(v.Block), `\nACC-4471: balance 40,718.77 USD as of 2026-03-31`) {
				t.Errorf("%s: the tool message %s does not carry the text block after the JSON", fault, v.Block)
			}
		case "wrong-container":
			if !strings.HasPrefix(v.Excerpt, "Invalid result for tools/call:") || !strings.Contains(v.Excerpt, "expected record, received array") {
				t.Errorf("%s: the model was told %q", fault, v.Excerpt)
			}
		case "error":
			if !strings.HasPrefix(v.Excerpt, "MCP tool 'get_account_balance' reported tool error for function call:") ||
				!strings.Contains(v.Excerpt, "upstream ledger service unavailable (503): try again later") {
				t.Errorf("%s: the model was told %q", fault, v.Excerpt)
			}
		}
	}
	noLeftovers(t, api, "the qwen-code sweep")
}

// TestOpenCodeOnDocker: opencode 1.18.33 in its cell against the scripted Chat Completions
// model (an openai-compatible provider in its config; the MCP server a local entry). opencode is
// one compiled executable: the lines cited are those of `strings` run on
// opencode-linux-x64/bin/opencode of 1.18.33 (the MCP SDK and the AI SDK bundled in it). What
// it does with each fault, found by running it:
//
//   - it gives the model the text blocks only, never structuredContent (clean: text, passed);
//   - its MCP SDK's callTool checks structuredContent against the published outputSchema
//     (getToolOutputValidator, strings line 445654) and an array against its result schema
//     (structuredContent: n(G(),s()).optional(), line 445653): type-swap and wrong-container
//     are refused, and the SDK's message is what the model gets, the call recorded as an
//     error: rejected;
//   - an isError result becomes the AI SDK's tool-error (line 445713: "if(V.isError)
//     …type:"tool-error"…error:V.result"), the server's text handed to the model as the error
//     output: an error, passed.
//
// Each run made three model requests (a title without tools, the call, the answer) and the
// graded call is the one whose tool message carries the scripted call id.
func TestOpenCodeOnDocker(t *testing.T) { openCodeSweep(t, "opencode", "opencode-ai 1.18.33") }

// TestKiloCLIOnDocker: Kilo Code's CLI 7.7.7, an opencode fork, in its cell against the scripted
// Chat Completions model, driven as opencode is (its KILO_ variables for opencode's
// OPENCODE_). It keeps opencode's MCP client and its handling of results: the lines cited are
// those of `strings` run on @kilocode/cli-linux-x64/bin/kilo of 7.7.7 (the MCP SDK and the AI
// SDK bundled in it):
//
//   - the model gets the text blocks only (clean: text, passed);
//   - its MCP SDK's callTool checks structuredContent against the published outputSchema
//     (getToolOutputValidator and "Structured content does not match the tool's output
//     schema", strings line 444638) and refuses an array by its result schema
//     (structuredContent: tQ(ZD(),uN()).optional(), line 444631): type-swap and wrong-container
//     reach the model as the SDK's message, the call an error: rejected;
//   - an isError result becomes the AI SDK's tool-error (line 442834: "if(f.isError)
//     E.push({type:"tool-error",…"), the server's text the error output: an error, passed.
func TestKiloCLIOnDocker(t *testing.T) { openCodeSweep(t, "kilo-cli", "@kilocode/cli 7.7.7") }

// openCodeSweep runs the sample for opencode or a fork of it (which keeps its MCP client): the
// counts TestOpenCodeOnDocker states, the tool under opencode's name, and its --format json
// record agreeing with the model's view.
func openCodeSweep(t *testing.T, agent, library string) {
	api := engine(t)
	recs := agents27Sweep(t, agent, library, map[string]agentWant{
		"clean":           {"passed", "text", "truth", false, "ACC-4471: balance 40,718.77 USD as of 2026-03-31"},
		"type-swap":       {"rejected", "error", "no-value", true, "MCP error -32602: Structured content does not match the tool's output schema: data/balance_minor must be integer"},
		"wrong-container": {"rejected", "error", "no-value", true, ""},
		"error":           {"passed", "error", "no-value", true, "upstream ledger service unavailable (503): try again later"},
	})
	for fault, rec := range recs {
		a := rec.Observation.Agent
		v := a.ModelView
		if v.Called != "scenario_get_account_balance" || a.Model != "toolscore-scripted" || v.SchemaSent {
			t.Errorf("%s: called %q as model %q, schema sent %v", fault, v.Called, a.Model, v.SchemaSent)
		}
		if a.StreamAgrees == nil || !*a.StreamAgrees {
			t.Errorf("%s: %s's --format json record does not agree with the model's view: %s", fault, agent, a.Stream)
		}
		if fault == "wrong-container" && !strings.Contains(v.Excerpt, "expected record, received array") {
			t.Errorf("%s: the model was told %q", fault, v.Excerpt)
		}
	}
	noLeftovers(t, api, "the "+agent+" sweep")
}

// TestCopilotCLIOnDocker: GitHub Copilot CLI 1.0.102 in its cell, offline (COPILOT_OFFLINE=true,
// no GitHub sign-in) with its bring-your-own-key provider on the scripted Chat Completions
// model, the MCP server given by --additional-mcp-config. What it does with each fault, found
// by running it (no source line states these: in 1.0.102 the MCP client and the shaping of its
// results are in the executable's native part, which the JavaScript package it unpacks,
// cli-main.js, calls as S.mcp…/S.ahpRelay…; cli-main.js:1827 does carry the TypeScript MCP SDK's
// result schema, structuredContent a record, and the array below is not refused by it, so the
// call's result does not go through that schema):
//
//   - for a result with structuredContent it sends the model the text blocks, a blank line, then
//     the JSON of structuredContent (the view is structured; its tool.execution_complete record
//     keeps result.contents and result.structuredContent apart, cli-main.js:1537 builds that
//     record's shape);
//   - it validates nothing against the published schema: type-swap reaches the model, and so
//     does wrong-container's array, as it was on the wire (passed, the fault carried);
//   - an isError result reaches the model as "MCP server 'scenario': <the server's text>", its
//     record marking the call failed (success false): an error, passed.
func TestCopilotCLIOnDocker(t *testing.T) {
	api := engine(t)
	recs := agents27Sweep(t, "copilot-cli", "@github/copilot 1.0.102", map[string]agentWant{
		"clean":           {"passed", "structured", "truth", false, `{"account_id":"ACC-4471","as_of":"2026-03-31","balance_minor":4071877,"currency":"USD"}`},
		"type-swap":       {"passed", "structured", "truth", false, `{"account_id":"ACC-4471","as_of":"2026-03-31","balance_minor":"4071877","currency":"USD"}`},
		"wrong-container": {"passed", "structured", "truth", false, `[{"account_id":"ACC-4471","as_of":"2026-03-31","balance_minor":4071877,"currency":"USD"}]`},
		"error":           {"passed", "error", "no-value", true, "MCP server 'scenario': upstream ledger service unavailable (503): try again later"},
	})
	for fault, rec := range recs {
		a := rec.Observation.Agent
		v := a.ModelView
		if v.Called != "scenario-get_account_balance" || a.Model != "toolscore-scripted" || v.SchemaSent {
			t.Errorf("%s: called %q as model %q, schema sent %v", fault, v.Called, a.Model, v.SchemaSent)
		}
		if a.StreamAgrees == nil || !*a.StreamAgrees {
			t.Errorf("%s: Copilot CLI's --output-format json record does not agree with the model's view: %s", fault, a.Stream)
		}
		if fault != "error" && !strings.Contains(string(v.Block), `ACC-4471: balance 40,718.77 USD as of 2026-03-31\n\n`) {
			t.Errorf("%s: the tool message %s does not carry the text block before the JSON", fault, v.Block)
		}
	}
	noLeftovers(t, api, "the copilot-cli sweep")
}

// TestFieldAgentsOverHTTPLocalAndDocker: Qwen Code, opencode and Copilot CLI on the streamable
// HTTP transport (each configured with its own HTTP entry: qwen.go's httpUrl, opencode.go's
// remote entry, copilot.go's type http) give the same counts in their cells as on a machine with
// no Docker daemon, where the local backend installs each CLI from npm into its cache; and the
// counts are those their stdio tests above find, the transport changing nothing: opencode's SDK
// refuses type-swap against the published schema, the other two pass it on.
func TestFieldAgentsOverHTTPLocalAndDocker(t *testing.T) {
	engine(t)
	manifest := filepath.Join(t.TempDir(), "agents-http.yaml")
	if err := os.WriteFile(manifest, []byte(`name: field agents over http
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
prompt: What is the balance of ledger account ACC-4471? Answer with the amount and currency.
truth: ["40718.77", "4071877"]
faults: [clean, type-swap]
schema_modes: [published]
protocols: [2026-07-28]
transports: [http]
clients: [qwen-code, opencode, copilot-cli]
runs: 1
timeout: 180s
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cells := compareBackends(t, []string{manifest, "--parallel", "2"}, 3*2)
	want := map[string]string{
		"qwen-code|clean": "passed", "qwen-code|type-swap": "passed",
		"opencode|clean": "passed", "opencode|type-swap": "rejected",
		"copilot-cli|clean": "passed", "copilot-cli|type-swap": "passed",
	}
	for _, c := range cells {
		if w := want[c.Client+"|"+c.Fault]; c.Transport != "http" || c.Outcome[w] != 1 {
			t.Errorf("%s: %s on %s, want %s", c.Key(), c.Counts(), c.Transport, w)
		}
	}
}
