package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolscore/toolscore/record"
)

// claudeAgentSDKLibrary is what a run of the claude-agent-sdk column reports it ran: the SDK's
// version, not that of the Claude Code executable it bundles (2.1.337 in 0.3.337).
const claudeAgentSDKLibrary = "@anthropic-ai/claude-agent-sdk 0.3.337"

// TestClaudeAgentSDKOnDocker: the Claude Agent SDK 0.3.337 for TypeScript in its cell, query()
// with the scenario's server in options.mcpServers, against the scripted model. Its MCP client is
// the Claude Code executable it bundles (sdk.mjs starts it and hands it the servers; the SDK's
// JavaScript neither calls the tool nor shapes its result), so every cell is claudeCodeWant's:
// what Claude Code 2.1.332 does, found by running both, and 2.1.337 does the same. CI's sample
// is one fault of each class under the published schema and protocol 2026-07-28 (a good
// result, a result the executable checks against the schema, one its SDK's result schema
// refuses, a tool error); scripts/nightly sweeps the ledger's every fault, schema mode and
// protocol.
func TestClaudeAgentSDKOnDocker(t *testing.T) {
	api := engine(t)
	var recs []record.Run
	if fullProduct() {
		_, recs = agentSweep(t, "claude-agent-sdk", claudeAgentSDKLibrary, claudeCodeWant)
	} else {
		want := map[string]agentWant{}
		for _, f := range []string{"clean", "type-swap", "wrong-container", "error"} {
			want[f] = claudeCodeWant(f, "published", "2026-07-28")
		}
		for _, rec := range agents27Sweep(t, "claude-agent-sdk", claudeAgentSDKLibrary, want) {
			recs = append(recs, rec)
		}
	}
	for _, rec := range recs {
		name := rec.Fault + " × " + rec.Schema + " × " + rec.Protocol
		a := rec.Observation.Agent
		v := a.ModelView
		if w := claudeCodeWant(rec.Fault, rec.Schema, rec.Protocol); w.message != "" && v.Excerpt != w.message {
			t.Errorf("%s: the model was told %q, want %q", name, v.Excerpt, w.message)
		}
		if v.Called != "mcp__scenario__get_account_balance" || v.SchemaSent {
			t.Errorf("%s: called %q, schema sent %v", name, v.Called, v.SchemaSent)
		}
		if a.StreamAgrees == nil || !*a.StreamAgrees {
			t.Errorf("%s: the messages query() yielded do not agree with the model's view: %s", name, a.Stream)
		}
	}
	noLeftovers(t, api, "the claude-agent-sdk sweep")
}

// TestClaudeAgentSDKLocalAndDocker: over streamable HTTP (the server an "http" entry of
// mcpServers) the SDK gives the same counts in its cell as on a machine with no Docker daemon,
// where the local backend installs it from npm into its cache and runs query.mjs there; and they
// are the stdio cells' (TestClaudeAgentSDKOnDocker): the schema checked under 2026-07-28.
func TestClaudeAgentSDKLocalAndDocker(t *testing.T) {
	engine(t)
	manifest := filepath.Join(t.TempDir(), "agent-sdk-http.yaml")
	if err := os.WriteFile(manifest, []byte(`name: claude agent sdk over http
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
prompt: What is the balance of ledger account ACC-4471? Answer with the amount and currency.
truth: ["40718.77", "4071877"]
faults: [clean, type-swap]
schema_modes: [published]
protocols: [2026-07-28]
transports: [http]
clients: [claude-agent-sdk]
runs: 1
timeout: 180s
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cells := compareBackends(t, []string{manifest, "--parallel", "2"}, 2)
	want := map[string]string{"clean": "passed", "type-swap": "rejected"}
	for _, c := range cells {
		if c.Transport != "http" || c.Outcome[want[c.Fault]] != 1 || c.Library != claudeAgentSDKLibrary {
			t.Errorf("%s: %s on %s, library %q; want %s", c.Key(), c.Counts(), c.Transport, c.Library, want[c.Fault])
		}
	}
}
