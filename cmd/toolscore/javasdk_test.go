package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/tally"
)

// javaSDKManifest sweeps both of the Java SDK's paths over the ledger with the faults, schema
// modes, protocols and transports given.
func javaSDKManifest(t *testing.T, faults, schemas, protocols, transports string) string {
	return ledgerManifest(t, "java sdk", "java-sdk, java-sdk/validating", faults, schemas, protocols, transports)
}

// ledgerManifest is a manifest named name that sweeps clients over the built-in ledger with the
// faults, schema modes, protocols and transports given, one run a cell.
func ledgerManifest(t *testing.T, name, clients, faults, schemas, protocols, transports string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "manifest.yaml")
	os.WriteFile(path, []byte(`name: `+name+`
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [`+faults+`]
schema_modes: `+schemas+`
protocols: `+protocols+`
transports: [`+transports+`]
clients: [`+clients+`]
runs: 1
`), 0o644)
	return path
}

// javaSDKWant is what the official MCP Java SDK (io.modelcontextprotocol.sdk:mcp 2.2.0, pinned
// by images/java-sdk/pom.xml) does with each fault, its lines read from mcp-core-2.2.0.jar (the
// line numbers are the jar's own LineNumberTable: `javap -c -l` on McpAsyncClient):
//
//   - java-sdk, the client as McpClient.sync(transport).build() makes it, checks nothing:
//     McpAsyncClient.validateToolResult returns the result untouched unless
//     enableCallToolSchemaCaching is set (McpAsyncClient.java:718-721), and
//     CallToolResult.structuredContent is a plain Object, so an array (wrong-container) or a
//     string where the schema says integer (type-swap) is handed over as it came: passed.
//   - java-sdk/validating sets McpClient.SyncSpec.enableCallToolSchemaCaching(true)
//     (McpClient.java:551), so the client lists the tools after the handshake, caches each
//     outputSchema, and validateToolResult checks structuredContent against it with its
//     JsonSchemaValidator (McpAsyncClient.java:734), throwing IllegalArgumentException("Tool
//     call result validation failed: ...") when it does not conform (McpAsyncClient.java:738):
//     threw on type-swap, drop-required and wrong-container; a result without
//     structuredContent (empty, truncate) reaches the validator as null, and
//     DefaultJsonSchemaValidator.validate throws IllegalArgumentException("Structured content
//     must not be null") itself (DefaultJsonSchemaValidator.java:63-64 in
//     mcp-json-jackson3-2.2.0.jar), uncaught by the client: threw as well. With the schema
//     hidden nothing is cached, and validateToolResult only logs (McpAsyncClient.java:726-730):
//     passed.
//   - an isError result is never validated (McpAsyncClient.java:718-721: result.isError() ==
//     TRUE returns it as is), and it carries the failure to the caller: the error fault is
//     passed on both paths; a JSON-RPC error is raised as McpError on both (rpc-error).
//   - nobody catches corrupt or corrupt-plausible: they are well-formed lies.
//
// The SDK sends initialize at 2025-11-25 under the 2026-07-28 cap: the same bytes reach it
// under both protocols, and the transport changes nothing.
func javaSDKWant(client, fault, schema string) string {
	switch {
	case fault == "rpc-error":
		return "rpc-error"
	case client != "java-sdk/validating" || schema != "published":
		return "passed"
	}
	switch fault {
	case "type-swap", "drop-required", "wrong-container", "empty", "truncate":
		return "threw"
	}
	return "passed"
}

// javaSDKThrows is the start of what the validating client throws on a fault it catches.
func javaSDKThrows(fault string) string {
	if fault == "empty" || fault == "truncate" {
		return "IllegalArgumentException: Structured content must not be null"
	}
	return "IllegalArgumentException: Tool call result validation failed"
}

// ledgerFaults are the faults of the embedded ledger study (scenarios/ledger.yaml).
const ledgerFaults = "clean, error, rpc-error, empty, truncate, corrupt, {name: corrupt-plausible, decoy_args: {account_id: ACC-4476}}, type-swap, drop-required, wrong-container, {name: latency, latency: 1s}"

// TestJavaSDKOnDocker sweeps the Java SDK's two paths in their cell image (built with Maven
// from pom.xml on TOOLSCORE_JAVA_IMAGE): the deliberate sample, both paths × clean, type-swap,
// wrong-container, error × published × 2026-07-28 on stdio, and type-swap on streamable HTTP
// (under TOOLSCORE_FULL=1 every fault × schema mode × protocol × transport instead), and checks
// every count, the library and the validation's own message. Where a JDK and Maven are on this
// machine, the stdio sample runs on the local backend as well and must give the same counts.
func TestJavaSDKOnDocker(t *testing.T) {
	api := serialEngine(t)
	counts := func(backend, manifest string, cells int) map[string]string {
		t.Helper()
		got := map[string]string{}
		for _, c := range sweepCells(t, backend, manifest, cells) {
			want := javaSDKWant(c.Client, c.Fault, c.Schema)
			if c.Outcome[want] != 1 {
				t.Errorf("%s %s: %s, want %s 1/1 (evidence: %v)", backend, c.Coordinates(), c.Counts(), want, c.Examples)
			}
			if wantMsg := javaSDKThrows(c.Fault); want == "threw" && !strings.Contains(c.Examples[want].Evidence, wantMsg) {
				t.Errorf("%s %s: evidence %q, want the SDK's validation failure", backend, c.Coordinates(), c.Examples[want].Evidence)
			}
			if c.Library != "io.modelcontextprotocol.sdk:mcp 2.2.0" {
				t.Errorf("%s %s ran %q, want io.modelcontextprotocol.sdk:mcp 2.2.0", backend, c.Coordinates(), c.Library)
			}
			if c.Negotiated["2025-11-25"] != 1 {
				t.Errorf("%s %s: negotiated %v, want 2025-11-25", backend, c.Coordinates(), c.Negotiated)
			}
			got[c.Key()] = c.Counts()
		}
		return got
	}
	stdio := javaSDKManifest(t, "clean, type-swap, wrong-container, error", "[published]", "[2026-07-28]", "stdio")
	docker := counts("docker", stdio, 2*4)
	if fullProduct() {
		// Every fault of the ledger study × both schema modes × both protocols × both transports.
		counts("docker", javaSDKManifest(t, ledgerFaults, "[hidden, published]", "[2026-07-28, 2025-11-25]", "stdio, http"), 2*11*2*2*2)
	} else {
		counts("docker", javaSDKManifest(t, "type-swap", "[published]", "[2026-07-28]", "http"), 2)
	}
	noLeftovers(t, api, "the Java SDK sweep")

	for _, p := range []string{"java", "javac", "mvn"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("the local half needs a JDK and Maven on this machine: %s not found", p)
		}
	}
	t.Setenv("TOOLSCORE_CACHE", t.TempDir())
	local := counts("local", stdio, 2*4)
	for k, v := range docker {
		if local[k] != v {
			t.Errorf("%s: docker %s, local %s", k, v, local[k])
		}
	}
}

// sweepCells sweeps manifest on backend at parallel 2 and returns its cells, failing unless the
// sweep ran cells of them and found every client available.
func sweepCells(t *testing.T, backend, manifest string, cells int) []*tally.Cell {
	t.Helper()
	out := t.TempDir()
	code, _, stderr := runStatic(t, manifest, "--backend", backend, "--parallel", "2", "--out", out)
	if code != 0 {
		t.Fatalf("the %s sweep exited %d:\n%s", backend, code, stderr)
	}
	res := readResultsDir(t, out)
	if len(res.Unavailable) > 0 || len(res.Cells) != cells {
		t.Fatalf("%s: %d cells, unavailable %v; want %d and none", backend, len(res.Cells), res.Unavailable, cells)
	}
	return res.Cells
}
