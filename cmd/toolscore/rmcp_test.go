package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// rmcpManifest sweeps the Rust SDK's client over the ledger with the faults, schema modes,
// protocols and transports given.
func rmcpManifest(t *testing.T, faults, schemas, protocols, transports string) string {
	return ledgerManifest(t, "rmcp", "rmcp", faults, schemas, protocols, transports)
}

// rmcpWant is what the official Rust MCP SDK (crates.io rmcp 3.11.0, pinned by
// images/rmcp/Cargo.lock) does with each fault, its lines read from the crate's source
// (~/.cargo/registry/src/*/rmcp-3.11.0/src):
//
//   - RunningService::call_tool (service/client.rs:2240-2246) returns the first complete result
//     of call_tool_with_mrtr_max_rounds (service/client.rs:2256-2278), and Peer::call_tool_once
//     hands back the CallToolResult the response deserialized into
//     (service/client.rs:1507-1529). Nothing on the way looks at the tool's outputSchema:
//     the client keeps tools/list only in a response cache (service/client.rs:1932-1936), and no
//     client code validates structuredContent.
//   - CallToolResult's own Deserialize (model.rs:4205-4253) refuses only a resultType other than
//     "complete" and a result with none of content, structuredContent and isError;
//     structuredContent is an Option<Value> (model.rs:4186-4187), so an array (wrong-container)
//     or a string where the schema says integer (type-swap) deserializes as it came: passed.
//   - an isError result is a result too (is_error: Option<bool>, model.rs:4190), handed back as
//     Ok with the flag: the error fault is passed; a JSON-RPC error is
//     ServiceError::McpError with its code (service.rs:80-81): rpc-error.
//   - empty (content [] is a known field), truncate, drop-required, corrupt and
//     corrupt-plausible are well-formed results: passed.
//
// The client asks for 2026-07-28 in initialize (ProtocolVersion's default is LATEST,
// model.rs:156-159 and 176; InitializeRequestParams' default takes it, model.rs:1604-1608) and
// the ledger answers 2025-11-25, which legacy_startup accepts (service/client.rs:1025-1039):
// the same bytes reach it under both protocols, and the transport changes nothing.
func rmcpWant(fault string) string {
	if fault == "rpc-error" {
		return "rpc-error"
	}
	return "passed"
}

// TestRmcpOnDocker sweeps rmcp in its cell image (the adapter compiled with cargo in the image's
// build stage on TOOLSCORE_RUST_IMAGE, running on TOOLSCORE_PYTHON_IMAGE): the deliberate sample,
// clean, type-swap, wrong-container, error × published × 2026-07-28 on stdio, and type-swap on
// streamable HTTP (under TOOLSCORE_FULL=1 every fault × schema mode × protocol × transport
// instead, and a cell at the version pin 3.10.0), and checks every count, the library and the protocol negotiated. Where cargo is on
// this machine, the stdio sample runs on the local backend as well (the adapter compiled there by
// the install) and must give the same counts.
func TestRmcpOnDocker(t *testing.T) {
	api := serialEngine(t)
	counts := func(backend, manifest string, cells int, library string) map[string]string {
		t.Helper()
		got := map[string]string{}
		for _, c := range sweepCells(t, backend, manifest, cells) {
			if want := rmcpWant(c.Fault); c.Outcome[want] != 1 {
				t.Errorf("%s %s: %s, want %s 1/1 (evidence: %v)", backend, c.Coordinates(), c.Counts(), want, c.Examples)
			}
			if c.Library != library {
				t.Errorf("%s %s ran %q, want %s", backend, c.Coordinates(), c.Library, library)
			}
			if c.Negotiated["2025-11-25"] != 1 {
				t.Errorf("%s %s: negotiated %v, want 2025-11-25", backend, c.Coordinates(), c.Negotiated)
			}
			got[c.Key()] = c.Counts()
		}
		return got
	}
	stdio := rmcpManifest(t, "clean, type-swap, wrong-container, error", "[published]", "[2026-07-28]", "stdio")
	docker := counts("docker", stdio, 4, "rmcp 3.11.0")
	if fullProduct() {
		// Every fault of the ledger study × both schema modes × both protocols × both transports.
		counts("docker", rmcpManifest(t, ledgerFaults, "[hidden, published]", "[2026-07-28, 2025-11-25]", "stdio, http"), 11*2*2*2, "rmcp 3.11.0")
		// A version pin: the image's build stage runs cargo update -p rmcp --precise 3.10.0
		// (RMCP_VERSION), and the adapter reports the version it was built with.
		pinned := rmcpManifest(t, "type-swap", "[published]", "[2026-07-28]", "stdio")
		b, _ := os.ReadFile(pinned)
		os.WriteFile(pinned, []byte(strings.Replace(string(b), "clients: [rmcp]", "clients: [{name: rmcp, version: 3.10.0}]", 1)), 0o644)
		counts("docker", pinned, 1, "rmcp 3.10.0")
	} else {
		counts("docker", rmcpManifest(t, "type-swap", "[published]", "[2026-07-28]", "http"), 1, "rmcp 3.11.0")
	}
	noLeftovers(t, api, "the rmcp sweep")

	if _, err := exec.LookPath("cargo"); err != nil {
		t.Skip("the local half needs cargo on this machine: cargo not found on PATH")
	}
	// rustup's cargo is a proxy: on PATH, it may still have no toolchain for this user.
	if out, err := exec.Command("cargo", "--version").CombinedOutput(); err != nil {
		t.Skipf("the local half needs a working cargo on this machine: cargo --version: %v: %s", err, out)
	}
	t.Setenv("TOOLSCORE_CACHE", t.TempDir())
	local := counts("local", stdio, 4, "rmcp 3.11.0")
	for k, v := range docker {
		if local[k] != v {
			t.Errorf("%s: docker %s, local %s", k, v, local[k])
		}
	}
}
