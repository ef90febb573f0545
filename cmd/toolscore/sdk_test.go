package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/tally"
)

// sdkWant is what the real SDK clients do with each fault on the wire, found by running them
// (scripts/test builds their images from the lockfiles: @modelcontextprotocol/sdk 1.32.2,
// @modelcontextprotocol/client 2.4.0, mcp 2.3.0, mcp-go v1.2.1):
//
//   - every client raises the JSON-RPC error, and none looks inside an isError result;
//   - both TypeScript lines and the Python SDK reject structuredContent that is not an object
//     (wrong-container) by their own result schema, whatever the schema mode;
//   - the TypeScript SDKs validate structuredContent against outputSchema only when they know
//     it: on list-then-call with the schema published. CallTool alone passes every shape fault;
//   - the Python SDK validates on both paths, because call_tool lists the tools itself when it
//     has not seen them, and it also rejects a result without structuredContent (empty,
//     truncate) once a schema is published;
//   - mcp-go validates nothing, like go-sdk;
//   - nobody catches corrupt or corrupt-plausible: they are well-formed lies.
//
// The protocol changes none of it. Under 2026-07-28 mcp-go opens a 2026 session with
// server/discover (its results carry resultType) and under 2025-11-25 falls back to
// initialize; the TypeScript and Python SDKs send initialize 2025-11-25 under both, so the same
// bytes reach them.
func sdkWant(client, fault, schema string) string {
	if fault == "rpc-error" {
		return "rpc-error"
	}
	if strings.HasPrefix(client, "mcp-go/") {
		return "passed"
	}
	if fault == "wrong-container" {
		return "threw"
	}
	validates := schema == "published" &&
		(strings.HasPrefix(client, "python-sdk/") || strings.HasSuffix(client, "/list-then-call"))
	switch fault {
	case "type-swap", "drop-required", "empty", "truncate":
		if validates {
			return "threw"
		}
	}
	return "passed"
}

const sdkClients = "ts-sdk/call,ts-sdk/list-then-call,ts-client-v2/call,ts-client-v2/list-then-call,python-sdk/call,python-sdk/list-then-call,mcp-go/call,mcp-go/list-then-call"

// TestSDKClientsOnDocker runs the TypeScript, Python and mcp-go cells of the embedded ledger
// scenario on the docker backend, through the real proxy and the real libraries, and checks
// every count against sdkWant. CI's sample proves each client and each fault once: every
// client × every fault under the published schema and protocol 2026-07-28, then every client
// under the hidden schema and protocol 2025-11-25 on the faults a published schema turns into
// a throw (so both schema modes and both protocols are seen for each client); scripts/nightly
// sweeps the full product (8 × 11 × 2 × 2 = 352 cells).
func TestSDKClientsOnDocker(t *testing.T) {
	api := engine(t)
	sweeps := [][]string{{"--clients", sdkClients}}
	want := 8 * 11 * 2 * 2
	if !fullProduct() {
		sweeps = [][]string{
			{"--clients", sdkClients, "--schema", "published", "--protocols", "2026-07-28"},
			{"--clients", sdkClients, "--schema", "hidden", "--protocols", "2025-11-25", "--faults", "type-swap,drop-required,empty,truncate"},
		}
		want = 8*11 + 8*4
	}
	res := &tally.Results{}
	for _, args := range sweeps {
		out := t.TempDir()
		code, _, stderr := runStatic(t, append([]string{"--backend", "docker", "--runs", "1", "--parallel", "2", "--out", out}, args...)...)
		if code != 0 {
			t.Fatalf("the sweep %v exited %d:\n%s", args, code, stderr)
		}
		r := readResultsDir(t, out)
		if len(r.Unavailable) > 0 {
			t.Fatalf("the sweep %v: unavailable %v", args, r.Unavailable)
		}
		res.Cells = append(res.Cells, r.Cells...)
	}
	if len(res.Cells) != want {
		t.Fatalf("%d cells; want %d", len(res.Cells), want)
	}
	for _, c := range res.Cells {
		if want := sdkWant(c.Client, c.Fault, c.Schema); c.Outcome[want] != 1 {
			t.Errorf("%s: %s, want %s 1/1 (evidence: %v)", c.Coordinates(), c.Counts(), want, c.Examples)
		}
		negotiated := "2025-11-25"
		if strings.HasPrefix(c.Client, "mcp-go/") {
			negotiated = c.Protocol
		}
		if c.Negotiated[negotiated] != 1 {
			t.Errorf("%s: negotiated %v, want %s", c.Coordinates(), c.Negotiated, negotiated)
		}
	}
	libraries := map[string]string{
		"ts-sdk/call": "@modelcontextprotocol/sdk 1.32.2", "ts-client-v2/call": "@modelcontextprotocol/client 2.4.0",
		"python-sdk/call": "mcp 2.3.0", "mcp-go/call": "github.com/mark3labs/mcp-go v1.2.1",
	}
	for _, c := range res.Cells {
		if want, ok := libraries[c.Client]; ok && c.Library != want {
			t.Errorf("%s ran %q, want %q", c.Client, c.Library, want)
		}
	}
	noLeftovers(t, api, "the SDK sweep")
}

// TestSDKDeterministic: the same cells run twice give the same counts (the faults are seeded,
// the clients deterministic).
func TestSDKDeterministic(t *testing.T) {
	engine(t)
	var counts [2]string
	for i := range counts {
		out := t.TempDir()
		code, _, stderr := runStatic(t, "--backend", "docker", "--clients", "python-sdk/call,ts-sdk/list-then-call", "--faults", "corrupt,type-swap,truncate", "--schema", "published", "--runs", "3", "--out", out)
		if code != 0 {
			t.Fatalf("sweep %d exited %d:\n%s", i+1, code, stderr)
		}
		for _, c := range readResultsDir(t, out).Cells {
			counts[i] += c.Key() + ": " + c.Counts() + "\n"
		}
	}
	if counts[0] != counts[1] {
		t.Errorf("the same cells gave different counts:\n%s\nthen\n%s", counts[0], counts[1])
	}
}

// TestSDKVersionsSideBySide: a manifest can pin another version of a client, and two versions
// of one client are columns side by side, each with its image built for it.
func TestSDKVersionsSideBySide(t *testing.T) {
	engine(t)
	manifest := filepath.Join(t.TempDir(), "versions.yaml")
	os.WriteFile(manifest, []byte(`name: two versions
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [clean, type-swap]
schema_modes: [published]
clients:
  - ts-sdk/list-then-call
  - {name: ts-sdk/list-then-call, version: "1.20.0"}
runs: 1
`), 0o644)
	out := t.TempDir()
	if code, _, stderr := runStatic(t, manifest, "--backend", "docker", "--out", out); code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	seen := map[string]string{}
	for _, c := range readResultsDir(t, out).Cells {
		seen[c.Client] = c.Library
	}
	if seen["ts-sdk/list-then-call"] != "@modelcontextprotocol/sdk 1.32.2" || seen["ts-sdk/list-then-call@1.20.0"] != "@modelcontextprotocol/sdk 1.20.0" {
		t.Errorf("libraries per column: %v", seen)
	}
}
