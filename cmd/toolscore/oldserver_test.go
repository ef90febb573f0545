package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryClientAgainstOlderServers: a server whose newest revision is 2025-06-18 (below
// what most clients ask for), or even 2024-11-05, works with every client and agent: each is
// offered that revision, takes it, and does with a fault what it does against a 2025-11-25
// server. None is counted unavailable or unsupported; the protocol shows in the counts of what
// was negotiated.
func TestEveryClientAgainstOlderServers(t *testing.T) {
	api := engine(t)
	manifest := filepath.Join(t.TempDir(), "old.yaml")
	writeFile(t, manifest, `name: a 2025-06-18 server
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
prompt: What is the balance of ledger account ACC-4471? Answer with the amount and currency.
truth: ["40718.77", "4071877"]
faults: [clean, type-swap, wrong-container]
schema_modes: [published]
protocols: [2025-06-18, 2024-11-05]
clients: [raw, go-sdk/call, mcp-go/list-then-call, ts-sdk/list-then-call, ts-client-v2/list-then-call, python-sdk/call, claude-code, codex, gemini-cli]
runs: 1
timeout: 60s
`)
	out := t.TempDir()
	if code, _, stderr := runStatic(t, manifest, "--backend", "docker", "--parallel", "2", "--out", out); code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	res := readResultsDir(t, out)
	if len(res.Unavailable) > 0 || len(res.Cells) != 9*3*2 {
		t.Fatalf("%d cells, unavailable %v; want 54 and none", len(res.Cells), res.Unavailable)
	}
	for _, c := range res.Cells {
		var want string
		switch c.Client {
		case "raw", "go-sdk/call":
			want = "passed" // they validate nothing (TestLedgerScenario)
		case "claude-code":
			want = claudeCodeWant(c.Fault, c.Schema, "2025-11-25").outcome
		case "codex":
			want = codexWant(c.Fault, c.Schema, c.Protocol).outcome
		case "gemini-cli":
			want = geminiWant(c.Fault, c.Schema).outcome
		default:
			want = sdkWant(c.Client, c.Fault, c.Schema)
		}
		if c.Outcome[want] != 1 || c.Negotiated[c.Protocol] != 1 {
			t.Errorf("%s: %s, negotiated %v; want %s 1/1 after negotiating %s (evidence %v)", c.Coordinates(), c.Counts(), c.Negotiated, want, c.Protocol, c.Examples)
		}
	}
	// A client that asked for more was asked down on the wire, and the transcript says so.
	tee, err := os.ReadFile(filepath.Join(out, "runs", "ts-sdk_list-then-call__clean__published__stdio__2025-06-18", "run-1", "tee.jsonl"))
	if err != nil || !strings.Contains(string(tee), `"client_asked":"2025-11-25"`) || !strings.Contains(string(tee), `"path":"params.protocolVersion"`) {
		t.Errorf("the ts-sdk transcript does not record its initialize asked down to 2025-06-18 (%v)", err)
	}
	noLeftovers(t, api, "the 2025-06-18 sweep")
}
