package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolscore/toolscore/record"
)

// What a run of each Claude Agent SDK column reports it ran: the SDK's version, not that of the
// Claude Code executable it bundles (2.1.337 in both, the same file).
const (
	claudeAgentSDKLibrary   = "@anthropic-ai/claude-agent-sdk 0.3.337"
	claudeAgentSDKPyLibrary = "claude-agent-sdk 0.2.190"
)

// TestClaudeAgentSDKOnDocker: the Claude Agent SDK 0.3.337 for TypeScript in its cell, query()
// with the scenario's server in options.mcpServers, against the scripted model. Its MCP client is
// the Claude Code executable it bundles (sdk.mjs starts it and hands it the servers; the SDK's
// JavaScript neither calls the tool nor shapes its result), so every cell is claudeCodeWant's:
// what Claude Code 2.1.332 does, found by running both, and the bundled 2.1.337 does the same.
func TestClaudeAgentSDKOnDocker(t *testing.T) {
	claudeSDKSweep(t, "claude-agent-sdk", claudeAgentSDKLibrary)
}

// TestClaudeAgentSDKPyOnDocker: the Claude Agent SDK 0.2.190 for Python in its cell, query()
// with the server in ClaudeAgentOptions.mcp_servers. Its wheel bundles the same Claude Code
// executable as the TypeScript SDK 0.3.337 (the same sha256), handed the servers by
// --mcp-config (_internal/transport/subprocess_cli.py:699-737): claudeCodeWant's cells again.
func TestClaudeAgentSDKPyOnDocker(t *testing.T) {
	claudeSDKSweep(t, "claude-agent-sdk-py", claudeAgentSDKPyLibrary)
}

// claudeSDKSweep sweeps one Claude Agent SDK on the docker backend and holds every cell to
// claudeCodeWant, and each run's evidence: the tool called under Claude Code's name, no
// outputSchema sent to the model, and the messages query() yielded agreeing with the model's
// view. CI's sample is one fault of each class under the published schema and protocol
// 2026-07-28 (a good result, a result the executable checks against the schema, one its MCP
// SDK's result schema refuses, a tool error); scripts/nightly sweeps the ledger's every fault,
// schema mode and protocol.
func claudeSDKSweep(t *testing.T, agent, library string) {
	api := engine(t)
	var recs []record.Run
	if fullProduct() {
		_, recs = agentSweep(t, agent, library, claudeCodeWant)
	} else {
		want := map[string]agentWant{}
		for _, f := range []string{"clean", "type-swap", "wrong-container", "error"} {
			want[f] = claudeCodeWant(f, "published", "2026-07-28")
		}
		for _, rec := range agents27Sweep(t, agent, library, want) {
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
	noLeftovers(t, api, "the "+agent+" sweep")
}

// TestClaudeAgentSDKsLocalAndDocker: over streamable HTTP (the server an "http" entry of the
// options' servers) each SDK gives the same counts in its cell as on a machine with no Docker
// daemon, where the local backend installs it from its registry into its cache and runs its
// program there; and they are the stdio cells' (claudeSDKSweep): the schema checked under
// 2026-07-28.
func TestClaudeAgentSDKsLocalAndDocker(t *testing.T) {
	engine(t)
	manifest := filepath.Join(t.TempDir(), "agent-sdks-http.yaml")
	if err := os.WriteFile(manifest, []byte(`name: claude agent sdks over http
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
prompt: What is the balance of ledger account ACC-4471? Answer with the amount and currency.
truth: ["40718.77", "4071877"]
faults: [clean, type-swap]
schema_modes: [published]
protocols: [2026-07-28]
transports: [http]
clients: [claude-agent-sdk, claude-agent-sdk-py]
runs: 1
timeout: 180s
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cells := compareBackends(t, []string{manifest, "--parallel", "2"}, 2*2)
	want := map[string]string{"clean": "passed", "type-swap": "rejected"}
	library := map[string]string{"claude-agent-sdk": claudeAgentSDKLibrary, "claude-agent-sdk-py": claudeAgentSDKPyLibrary}
	for _, c := range cells {
		if c.Transport != "http" || c.Outcome[want[c.Fault]] != 1 || c.Library != library[c.Client] {
			t.Errorf("%s: %s on %s, library %q; want %s, %s", c.Key(), c.Counts(), c.Transport, c.Library, want[c.Fault], library[c.Client])
		}
	}
}
