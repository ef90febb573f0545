package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// driftWant is what each client and agent of the study does with schema-drift and http-401,
// found by running them all on docker (TOOLSCORE_FULL=1; the clients at the versions their
// images pin: @modelcontextprotocol/sdk 1.32.2, @modelcontextprotocol/client 2.4.0, mcp 2.3.0,
// mcp-go v1.2.1, go-sdk v1.8.0, Claude Code 2.1.332, Codex 0.171.0, Gemini CLI 0.61.0).
//
// schema-drift (the proxy says notifications/tools/list_changed when the call comes, publishes
// account_id renamed account_id_v2 from then on, and answers with the field renamed):
//
//   - only the agents Claude Code and Gemini CLI list the tools again on the notification; no
//     SDK does by itself. The TypeScript SDKs refresh on list_changed only when the caller opts
//     in (sdk dist/esm/client/index.js:110 `if (options?.listChanged)`, client
//     dist/public-CvV4ZHkX.mjs:2779), which the adapters, like most callers, do not;
//   - the TypeScript list-then-call paths validate the answer against the validator cached from
//     the first tools/list (sdk dist/esm/client/index.js:528-536 cacheToolMetadata) and throw
//     "Structured content does not match the tool's output schema" (index.js:498;
//     client dist/public-CvV4ZHkX.mjs:3922): a valid answer rejected. Their call paths cached
//     no schema and validate nothing;
//   - python-sdk/list-then-call likewise validates against the schema it cached on its first
//     list (mcp/client/session.py:1125 lists only for a tool it has not seen; :1154 raises
//     "Invalid structured content"); its caching layer evicts the tools/list response on the
//     notification (mcp/client/caching.py:325) but not the validation cache. python-sdk/call
//     passes: it had no schema, so call_tool lists after the answer (session.py:1125-1127),
//     gets the drifted schema, and the answer matches it;
//   - Claude Code lists again at once (the answer is held until that list is delivered; held
//     500ms longer it does the same), yet under 2026-07-28, where it validates, it still rejects
//     the answer by the schema it had when it made the call ("Structured content does not
//     match the tool's output schema", claude-code bin/claude.exe at byte 172311716). Under
//     2025-11-25 it validates nothing and passes;
//   - go-sdk, mcp-go, Codex and Gemini CLI validate nothing: passed. Under the hidden schema mode
//     nobody has a schema to cache: passed.
//
// http-401 (after the handshake and tools/list, the call and everything later get 401 with
// WWW-Authenticate: Bearer error="invalid_token", ..., resource_metadata):
//
//   - every SDK raises, none configured with an auth provider: go-sdk "Unauthorized"
//     (mcp/streamable.go:2608), mcp-go ErrAuthorizationRequired (client/transport/
//     streamable_http.go:705), the TypeScript SDKs StreamableHTTPError "Error POSTing to
//     endpoint" (sdk dist/esm/client/streamableHttp.js:378; it tries auth only with an
//     authProvider, :328), the Python SDK a made-up JSON-RPC error "Server returned an error
//     response" (mcp/client/streamable_http.py:426);
//   - Claude Code follows the challenge as the authorization spec says: it GETs the
//     resource_metadata URL, the authorization server and OpenID metadata, and tries Dynamic
//     Client Registration (POST /register), each answered 401 (the token is dead), and tells
//     the model "Dynamic Client Registration rejected (HTTP 401)" (bin/claude.exe at byte
//     184017324): rejected;
//   - Gemini CLI passes its SDK's "Error POSTing to endpoint (HTTP 401)" to the model as a tool
//     error (bundle/chunk-5FZXKDXH.js:306418 and :274983): rejected;
//   - Codex makes a tool result of its own, the text "Authentication required" with the challenge
//     in _meta mcp/www_authenticate (bin/codex at byte 1756122), with no error flag the model
//     sees: altered, as its isError results are.
func driftWant(client, fault, schema, protocol string) string {
	if fault == "http-401" {
		switch client {
		case "claude-code", "gemini-cli":
			return "rejected"
		case "codex":
			return "altered"
		}
		return "threw"
	}
	if schema != "published" {
		return "passed"
	}
	switch client {
	case "ts-sdk/list-then-call", "ts-client-v2/list-then-call", "python-sdk/list-then-call":
		return "threw"
	case "claude-code":
		if protocol == "2026-07-28" {
			return "rejected"
		}
	}
	return "passed"
}

// relists says whether the client lists the tools again on notifications/tools/list_changed.
func relists(client string) bool { return client == "claude-code" || client == "gemini-cli" }

// TestSchemaDriftAndTokenExpiryOnDocker sweeps schema-drift and http-401 through the clients on
// docker: the full product of every client and agent, both schema modes, both protocols and
// both transports (http-401 on http alone) under TOOLSCORE_FULL=1, otherwise a sample of three
// clients whose outcomes differ for each fault. Every count is asserted against driftWant, and
// each schema-drift run's transcript must show the proxy's own notification and whether the
// client listed again.
func TestSchemaDriftAndTokenExpiryOnDocker(t *testing.T) {
	engine(t)
	clients := "ts-sdk/list-then-call,python-sdk/call,codex"
	schemas, protocols, transports := "[published]", "[2025-11-25]", "[http]"
	if fullProduct() {
		clients, schemas, protocols, transports = studyClients, "[hidden, published]", "[2026-07-28, 2025-11-25]", "[stdio, http]"
	}
	dir := t.TempDir()
	manifest := filepath.Join(dir, "drift.yaml")
	writeFile(t, manifest, `name: schema drift and token expiry
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
prompt: What is the balance of ledger account ACC-4471? Answer with the amount and currency.
truth: ["40718.77", "4071877"]
faults: [schema-drift, http-401]
schema_modes: `+schemas+`
protocols: `+protocols+`
transports: `+transports+`
clients: [`+clients+`]
runs: 1
`)
	out := filepath.Join(dir, "out")
	if code, _, stderr := runStatic(t, manifest, "--backend", "docker", "--parallel", "2", "--out", out); code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	res := readResultsDir(t, out)
	n := len(clientList(clients))
	want := n * 2 // the sample: one schema mode, protocol and transport
	if fullProduct() {
		want = n*2*2*2 + n*2*2 // schema-drift on both transports, http-401 on http
	}
	if len(res.Cells) != want || len(res.Unavailable) > 0 {
		t.Fatalf("%d cells, unavailable %v; want %d", len(res.Cells), res.Unavailable, want)
	}
	for _, c := range res.Cells {
		w := driftWant(c.Client, c.Fault, c.Schema, c.Protocol)
		if c.Outcome[w] != 1 {
			t.Errorf("%s: %s, want %s 1/1 (evidence: %v)", c.Coordinates(), c.Counts(), w, c.Examples)
			continue
		}
		if c.Fault != "schema-drift" {
			continue
		}
		tee, err := os.ReadFile(filepath.Join(out, c.Examples[w].Tee))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(tee), `made up by the proxy (schema-drift): the server never sent it`) {
			t.Errorf("%s: the transcript has no notification of the proxy's own", c.Coordinates())
		}
		if got := strings.Contains(string(tee), "until the client listed the tools again"); got != relists(c.Client) {
			t.Errorf("%s: the client listed the tools again: %v, want %v", c.Coordinates(), got, relists(c.Client))
		}
	}
}
