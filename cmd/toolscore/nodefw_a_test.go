package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nodeFWAManifest is the deliberate sample of the Vercel AI SDK's and Mastra's MCP clients:
// the faults that tell a validating client from one that is not, with the schema published,
// under the 2026 protocol, on both transports (the test picks one or both per sweep).
const nodeFWAManifest = `name: node frameworks a
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [clean, type-swap, wrong-container, error]
schema_modes: [published]
protocols: [2026-07-28]
transports: [stdio, http]
clients: [ai-sdk, ai-sdk/schemas, mastra]
runs: 1
`

// nodeFWAWant is what each client does with each fault, found by running them (the lockfiles
// pin @ai-sdk/mcp 2.0.99 and @mastra/mcp 2.0.0, which brings @modelcontextprotocol/client 2.0.0).
// The file:line are in the installed packages' dist.
func nodeFWAWant(client, fault string) string {
	switch client {
	case "ai-sdk":
		// tools() with schemas "automatic" validates nothing beyond the result's own shape
		// (@ai-sdk/mcp dist/index.js:150, structuredContent: z.optional(z.unknown()), so an
		// array passes), and its execute returns the CallToolResult as it came
		// (dist/index.js:2943 for isError, 2945 otherwise): every fault is passed on.
		return "passed"
	case "ai-sdk/schemas":
		switch fault {
		case "type-swap", "wrong-container":
			// With an outputSchema, execute validates structuredContent against it and throws
			// (@ai-sdk/mcp dist/index.js:2944 → 2983, "returned structuredContent that does not
			// match the expected outputSchema").
			return "threw"
		}
		// An isError result is returned before any validation (dist/index.js:2943), as the
		// CallToolResult, which carries its isError: the grader's passed, as for the SDKs.
		return "passed"
	case "mastra":
		switch fault {
		case "type-swap", "wrong-container":
			// The MCP client under Mastra, @modelcontextprotocol/client 2.0.0, validates
			// structuredContent against the listed outputSchema itself and throws
			// (dist/index.mjs:4155, "Structured content does not match the tool's output
			// schema"), before Mastra's own validator (@mastra/mcp dist/index.js:23986, which
			// would hand the failure back as a value) is reached; the error is no transport
			// error, so Mastra does not reconnect and retry (dist/index.js:23998).
			return "threw"
		case "error":
			// onToolError defaults to "throw" (@mastra/mcp dist/index.js:23160), so an isError
			// result is thrown as MCP_CLIENT_TOOL_EXECUTION_FAILED (dist/index.js:23966).
			return "threw"
		}
		return "passed"
	}
	return "?"
}

// TestNodeFrameworksAOnDocker sweeps the sample on the docker backend and on the local backend
// (node is on the host: both must give the same counts), then the type-swap cells over
// streamable HTTP on docker, and checks every count against nodeFWAWant, what each clean run
// printed (the CallToolResult, or the structured value the framework hands its model), the
// protocol negotiated and the library run.
func TestNodeFrameworksAOnDocker(t *testing.T) {
	api := engine(t)
	manifest := filepath.Join(t.TempDir(), "nodefw-a.yaml")
	if err := os.WriteFile(manifest, []byte(nodeFWAManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	// The stdio sample on both backends (the local one with no Docker daemon reachable, its
	// clients installed from the same lockfiles into the install cache): the same counts.
	dockerOut, localOut := t.TempDir(), t.TempDir()
	args := []string{manifest, "--transports", "stdio", "--parallel", "2"}
	if code, _, stderr := runStatic(t, append([]string{"--backend", "docker", "--out", dockerOut}, args...)...); code != 0 {
		t.Fatalf("the docker sweep exited %d:\n%s", code, stderr)
	}
	noDaemon := []string{"DOCKER_HOST=unix://" + filepath.Join(t.TempDir(), "no-docker.sock")}
	if code, _, stderr := runStaticEnv(t, noDaemon, append([]string{"--backend", "local", "--out", localOut}, args...)...); code != 0 {
		t.Fatalf("the local sweep exited %d:\n%s", code, stderr)
	}
	d, l := readResultsDir(t, dockerOut), readResultsDir(t, localOut)
	if d.Backend != "docker" || l.Backend != "local" || len(d.Cells) != 3*4 || len(l.Cells) != 3*4 {
		t.Fatalf("backends %s/%s, %d/%d cells, want 12", d.Backend, l.Backend, len(d.Cells), len(l.Cells))
	}
	for i := range d.Cells {
		if dc, lc := d.Cells[i], l.Cells[i]; dc.Key() != lc.Key() || dc.Counts() != lc.Counts() {
			t.Errorf("%s: docker %s, local %s %s", dc.Key(), dc.Counts(), lc.Key(), lc.Counts())
		}
	}
	stdio := d.Cells
	httpOut := t.TempDir()
	if code, _, stderr := runStatic(t, manifest, "--backend", "docker", "--transports", "http", "--faults", "type-swap", "--parallel", "2", "--out", httpOut); code != 0 {
		t.Fatalf("the http sweep exited %d:\n%s", code, stderr)
	}
	cells := append(stdio, readResultsDir(t, httpOut).Cells...)
	if len(cells) != 3*4+3 {
		t.Fatalf("%d cells, want 15", len(cells))
	}
	libraries := map[string]string{"ai-sdk": "@ai-sdk/mcp 2.0.99", "ai-sdk/schemas": "@ai-sdk/mcp 2.0.99", "mastra": "@mastra/mcp 2.0.0"}
	for _, c := range cells {
		if want := nodeFWAWant(c.Client, c.Fault); c.Outcome[want] != 1 {
			t.Errorf("%s: %s, want %s 1/1 (evidence: %v)", c.Coordinates(), c.Counts(), want, c.Examples)
		}
		if c.Library != libraries[c.Client] {
			t.Errorf("%s ran %q, want %q", c.Coordinates(), c.Library, libraries[c.Client])
		}
		// The AI SDK opens a 2026 session with server/discover on both transports (its stdio
		// transport is told to wait for the answer: images/ai-sdk/adapter.mjs). Mastra's MCP
		// client probes stdio on a disposable sibling process (@modelcontextprotocol/client
		// 2.0.0 dist/index.mjs:2764-2776), not on the cell's server, so the cell's transcript
		// sees no negotiation; over HTTP the probe is on the cell's endpoint.
		negotiated := "2026-07-28"
		if c.Client == "mastra" && c.Transport != "http" {
			negotiated = "none"
		}
		if c.Negotiated[negotiated] != 1 {
			t.Errorf("%s: negotiated %v, want %s", c.Coordinates(), c.Negotiated, negotiated)
		}
	}
	// What a clean run printed, on both backends: the automatic AI SDK tool returns the
	// CallToolResult; with schemas it hands the validated structuredContent alone
	// (dist/index.js:2944), and so does Mastra (@mastra/mcp dist/index.js:23989).
	for dir, want := range map[string]string{
		"ai-sdk__clean__published__stdio__2026-07-28":         `"returned":{`,
		"ai-sdk_schemas__clean__published__stdio__2026-07-28": `"handed":{"kind":"structured","excerpt":"{\"account_id\":\"ACC-4471\",\"balance_minor\":4071877`,
		"mastra__clean__published__stdio__2026-07-28":         `"handed":{"kind":"structured"`,
	} {
		for _, out := range []string{dockerOut, localOut} {
			b, err := os.ReadFile(filepath.Join(out, "runs", dir, "run-1", "stdout"))
			if err != nil || !strings.Contains(string(b), want) {
				t.Errorf("%s printed %q (%v), want it to contain %s", dir, b, err, want)
			}
		}
	}
	noLeftovers(t, api, "the node frameworks' sweep")
}
