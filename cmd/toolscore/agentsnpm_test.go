package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// npmAgentsWant is what each agent CLI of issue 50 does with the ledger's four fault classes
// (clean, a schema fault, a shape fault, a tool error), schema published, 2026-07-28, stdio:
// outcome, model view and answer, as its own code decides.
//
// Continue's CLI 1.5.47 (the lines are those of the src/ its package ships):
//   - the tool message is JSON.stringify(result?.content) whatever the result
//     (src/tools/index.tsx:207-209): clean reaches the model as the text inside that JSON;
//   - its bundled TypeScript MCP SDK 1.x refuses type-swap (structuredContent against the
//     published outputSchema) and wrong-container (its result schema): the thrown error becomes
//     "Error executing tool …", the call marked errored (src/stream/streamChatResponse.helpers.ts:587-599):
//     rejected;
//   - an isError result is sent as any result is, the flag dropped (src/tools/index.tsx:209):
//     altered.
//
// Cline's CLI 3.0.65: the MCP tool's execute returns callTool's result whole (@cline/core
// dist/index.js:230) and the agent sends the model its JSON (content, structuredContent,
// isError): nothing is validated, so type-swap and wrong-container reach the model as they were
// on the wire (passed, the fault carried), the view structured; an isError result keeps its
// flag in that JSON: an error, passed.
//
// Measured: the two halves (8 cells each, parallel 2) took 16m54s together on a loaded 2-core
// machine, the two cell images built (about 5 min each) and both CLIs installed first.
var npmAgentsWant = map[string]map[string][3]string{
	"continue-cli": {
		"clean":           {"passed", "text", "truth"},
		"type-swap":       {"rejected", "error", "no-value"},
		"wrong-container": {"rejected", "error", "no-value"},
		"error":           {"altered", "text", "no-value"},
	},
	"cline-cli": {
		"clean":           {"passed", "structured", "truth"},
		"type-swap":       {"passed", "structured", "truth"},
		"wrong-container": {"passed", "structured", "truth"},
		// The answer quotes the whole JSON of the failed result, and the grader reads a value
		// stated in it (the server's "503"): other, flagged, on both backends.
		"error": {"passed", "error", "other"},
	},
}

// TestNPMAgentsLocalAndDocker: the agent CLIs of issue 50 (Continue's and Cline's), each once
// per fault class, give npmAgentsWant's counts in their cells and on a machine with no Docker
// daemon, where the local backend installs each CLI from npm into its cache. scripts/nightly
// sweeps the ledger's every fault for them (TOOLSCORE_FULL=1): every run reaches the tool and
// is graded, none crashes or hangs.
func TestNPMAgentsLocalAndDocker(t *testing.T) {
	engine(t)
	if fullProduct() {
		npmAgentsFullProduct(t)
	}
	faults := "[clean, type-swap, wrong-container, error]"
	manifest := filepath.Join(t.TempDir(), "agents-npm.yaml")
	if err := os.WriteFile(manifest, []byte(`name: the npm agents of issue 50
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
prompt: What is the balance of ledger account ACC-4471? Answer with the amount and currency.
truth: ["40718.77", "4071877"]
faults: `+faults+`
schema_modes: [published]
protocols: [2026-07-28]
clients: [continue-cli, cline-cli]
runs: 1
timeout: 300s
`), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cells := compareBackends(t, []string{manifest, "--parallel", "2"}, 4*2)
	t.Logf("%d cells on each backend in %s (image builds and installs included when needed)", len(cells), time.Since(start).Round(time.Second))
	for _, c := range cells {
		if c.Outcome["crashed"] > 0 || c.Outcome["hung"] > 0 || c.Outcome["unavailable"] > 0 || c.Outcome["no-call"] > 0 {
			t.Errorf("%s: %s", c.Key(), c.Counts())
		}
		if w := npmAgentsWant[c.Client][c.Fault]; c.Outcome[w[0]] != 1 || c.ModelView[w[1]] != 1 || c.Answer[w[2]] != 1 {
			t.Errorf("%s: %s, model view %v, answer %v; want %s, %s, %s; evidence %v", c.Key(), c.Counts(), c.ModelView, c.Answer, w[0], w[1], w[2], c.Examples)
		}
	}
}

// npmAgentsFullProduct sweeps the embedded ledger's every fault, schema mode and protocol for
// the two agents on docker: every run reaches the tool and is graded (no crash, hang or
// no-call); the four fault classes held above keep their counts.
func npmAgentsFullProduct(t *testing.T) {
	b, err := os.ReadFile(agentManifest(t, "continue-cli,cline-cli"))
	if err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(t.TempDir(), "agents-npm-full.yaml")
	if err := os.WriteFile(manifest, []byte(strings.Replace(string(b), "timeout: 60s", "timeout: 300s", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if code, _, stderr := runStatic(t, manifest, "--backend", "docker", "--parallel", "2", "--fail-on", "never", "--out", out); code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	for _, c := range readResultsDir(t, out).Cells {
		if c.Outcome["crashed"] > 0 || c.Outcome["hung"] > 0 || c.Outcome["unavailable"] > 0 || c.Outcome["no-call"] > 0 {
			t.Errorf("%s: %s", c.Key(), c.Counts())
		}
		if w, ok := npmAgentsWant[c.Client][c.Fault]; ok && c.Schema == "published" && c.Protocol == "2026-07-28" && c.Outcome[w[0]] != 1 {
			t.Errorf("%s: %s, want %s", c.Key(), c.Counts(), w[0])
		}
	}
}
