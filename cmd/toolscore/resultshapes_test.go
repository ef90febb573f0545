package main

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestResultTypeOnTheWire: result-type through the real proxy under 2026-07-28, each value: the
// server's resultType removed (the proxy, which gives a fault's result the server's envelope
// back, leaves it out as the fault says), unknown, and input_required, the tool's payload as it
// was and the transcript's introduced saying what stood there.
func TestResultTypeOnTheWire(t *testing.T) {
	for value, want := range map[string]string{"absent": "", "unknown": `"resultType":"partial"`, "input_required": `"resultType":"input_required"`} {
		t.Run(value, func(t *testing.T) {
			t.Parallel()
			cmd, tee := proxyCommand(t, "result-type", "hidden", "--protocol", modernRevision, "--options", `{"value":"`+value+`"}`)
			_, call, _ := modernExchange(t, cmd)
			w := decode(t, call)
			if has := bytes.Contains(call, []byte(`"resultType"`)); has != (want != "") || !bytes.Contains(call, []byte(want)) {
				t.Errorf("want %s on the wire, got %s", map[bool]string{true: want, false: "no resultType"}[want != ""], call)
			}
			if w.text() == "" || !reflect.DeepEqual(w.object(), truthObject) {
				t.Errorf("the tool's payload changed: %s", call)
			}
			checkTee(t, tee, "result-type", call)
			for _, r := range readTee(t, tee) {
				if r["fault"] == "result-type" {
					in, _ := r["introduced"].([]any)
					if len(in) != 1 || in[0].(map[string]any)["was"] != "complete" {
						t.Errorf("introduced %v, want one value that was complete", r["introduced"])
					}
				}
			}
		})
	}
}

// resultShapesWant is what each client of the study does with the result-shape faults (run 1,
// seed 1: scalar-structured sends the number 4071877, result-type input_required with nothing
// to ask), found by sweeping the full product once on docker (every client and agent, both
// schema modes and protocols, stdio and http: 448 cells, each 1/1). The transport changes
// nothing; the TS and Python SDKs negotiate 2025-11-25 under both protocols. Each outcome other
// than passed, by the line that causes it:
//
//   - scalar-structured: the TS SDKs' result schemas want an object, structuredContent:
//     z.record(z.string(), z.unknown()) (@modelcontextprotocol/sdk 1.32.2
//     dist/esm/types.js:1302; @modelcontextprotocol/client 2.4.0 dist/src-CeKsbNLO.mjs:1117),
//     and so does the Python SDK's, structured_content: dict[str, Any] | None (mcp_types
//     _v2025_11_25/__init__.py:3123, class CallToolResult at :3092): threw, in every cell. Gemini
//     CLI's bundled SDK refuses it the same way (bundle/chunk-5FZXKDXH.js:303837) and the CLI
//     tells the model it was a tool error (isMCPToolError, :274933): rejected. Claude Code under
//     2025-11-25 refuses it as a malformed result ("expected record"), and under 2026-07-28 with
//     the schema published by the schema ("data must be object"): rejected; with it hidden under
//     2026-07-28 it shows the model the number, as codex does everywhere (passed: the grader
//     reads a scalar view as the value it was).
//   - no-content: mcp-go refuses a result without content unless it is input_required
//     (mcp/utils.go:871, "content is missing"), and the Python SDK requires the field, content:
//     list[ContentBlock] (_v2025_11_25/__init__.py:3104): threw. The TS SDKs default it to []
//     (sdk dist/esm/types.js:1296, content: z.array(...).default([]); client
//     dist/src-CeKsbNLO.mjs:540, normalizeContentlessToolResult): passed. Claude Code under
//     2026-07-28 refuses it ("expected array" at content): rejected. Gemini CLI builds the
//     model's part from content alone (transformMcpContentToParts, chunk-5FZXKDXH.js:275130), so
//     structuredContent never reaches the model: altered.
//   - error-structured: the TS SDK 1.x validates structuredContent against a known outputSchema
//     even on an isError result (dist/esm/client/index.js:493, "if (result.structuredContent)"):
//     threw on list-then-call with the schema published; @modelcontextprotocol/client 2.x
//     checks "!result.isError" first (dist/public-CvV4ZHkX.mjs:3920), and the Python SDK
//     validates only "if ... not result.is_error" (mcp/client/session.py:1101): passed. Codex
//     shows the model the JSON of structuredContent without the error flag: altered.
//   - result-type input_required: every SDK hands it over (mcp-go reads resultType only to
//     excuse a missing content, utils.go:871). Codex refuses it under both protocols ("Unexpected
//     response type"; in a 2025-11-25 session the member is one that revision does not define,
//     and codex reads it all the same), Claude Code under 2026-07-28 ("input_required carries
//     neither inputRequests nor requestState"): rejected.
//
// Codex (a compiled binary) and Claude Code (a compiled bundle) are cited by their messages.
//
// The Python frameworks (measured on stdio under both protocols and schema modes):
// openai-agents-py hands the model agents/tool.py:2002's fixed error text whenever mcp 2.3.0
// raises under it (rejected): no-content always (content: list[ContentBlock],
// _v2025_11_25/__init__.py:3104, _v2026_07_28/__init__.py:2993), scalar-structured unless a
// 2026-07-28 session with the schema hidden takes it (structured_content is a dict at
// _v2025_11_25/__init__.py:3123, Any at _v2026_07_28/__init__.py:3022, checked against a
// published outputSchema at mcp/client/session.py:1154); error-structured reaches the model as
// plain content without the error mark (agents/mcp/util.py:797-819): altered. langchain-py runs
// mcp 1.30.0, whose CallToolResult requires content and a dict structuredContent
// (mcp/types.py:1130), and whose errors escape the tool (langchain_core/tools/base.py:1258):
// threw on both; error-structured is an error ToolMessage (langchain_mcp_adapters/tools.py:274):
// passed.
func resultShapesWant(client, fault, schema, protocol string) string {
	modern := protocol == modernRevision
	switch client + " " + fault {
	case "openai-agents-py no-content":
		return "rejected"
	case "openai-agents-py scalar-structured":
		if modern && schema == "hidden" {
			return "passed"
		}
		return "rejected"
	case "openai-agents-py error-structured":
		return "altered"
	case "langchain-py no-content", "langchain-py scalar-structured":
		return "threw"
	}
	sdk := strings.HasPrefix(client, "ts-") || strings.HasPrefix(client, "python-sdk/")
	switch fault {
	case "scalar-structured":
		switch {
		case sdk:
			return "threw"
		case client == "gemini-cli", client == "claude-code" && (!modern || schema == "published"):
			return "rejected"
		}
	case "no-content":
		switch {
		case strings.HasPrefix(client, "mcp-go/"), strings.HasPrefix(client, "python-sdk/"):
			return "threw"
		case client == "claude-code" && modern:
			return "rejected"
		case client == "gemini-cli":
			return "altered"
		}
	case "error-structured":
		switch {
		case client == "ts-sdk/list-then-call" && schema == "published":
			return "threw"
		case client == "codex":
			return "altered"
		}
	case "result-type":
		if client == "codex" || client == "claude-code" && modern {
			return "rejected"
		}
	}
	return "passed"
}

// TestResultShapesOnDocker sweeps the result-shape faults through the real clients on docker and
// checks every count against resultShapesWant: the full product (every client and agent, both
// schema modes and protocols, stdio and http) under TOOLSCORE_FULL=1, else a sample whose
// clients differ on every fault.
func TestResultShapesOnDocker(t *testing.T) {
	engine(t)
	clients, schemas, protocols, transports := "mcp-go/call,ts-sdk/call,python-sdk/call,codex", "hidden", modernRevision, "stdio"
	if fullProduct() {
		clients, schemas, protocols, transports = studyClients, "hidden, published", modernRevision+", 2025-11-25", "stdio, http"
	}
	manifest := filepath.Join(t.TempDir(), "result-shapes.yaml")
	writeFile(t, manifest, `name: result shapes
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
prompt: What is the balance of ledger account ACC-4471? Answer with the amount and currency.
truth: ["40718.77", "4071877"]
faults: [scalar-structured, no-content, error-structured, result-type]
schema_modes: [`+schemas+`]
protocols: [`+protocols+`]
transports: [`+transports+`]
clients: [`+clients+`]
runs: 1
timeout: 60s
`)
	out := t.TempDir()
	if code, _, stderr := runStatic(t, manifest, "--backend", "docker", "--parallel", "2", "--out", out); code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	res := readResultsDir(t, out)
	want := len(clientList(clients)) * 4 * len(strings.Split(schemas, ",")) * len(strings.Split(protocols, ",")) * len(strings.Split(transports, ","))
	if len(res.Unavailable) > 0 || len(res.Cells) != want {
		t.Fatalf("%d cells, unavailable %v; want %d and none", len(res.Cells), res.Unavailable, want)
	}
	var counts []string
	for _, c := range res.Cells {
		counts = append(counts, c.Coordinates()+": "+c.Counts())
		if w := resultShapesWant(c.Client, c.Fault, c.Schema, c.Protocol); c.Outcome[w] != 1 {
			t.Errorf("%s: %s, want %s 1/1 (evidence: %v)", c.Coordinates(), c.Counts(), w, c.Examples)
		}
	}
	t.Logf("%d cells:\n%s", len(counts), strings.Join(counts, "\n"))
}
