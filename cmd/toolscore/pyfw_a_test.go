package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// pyfwAManifest is the deliberate sample of the fastmcp and pydantic-ai clients: the ledger tool
// with its schema published, under protocol 2026-07-28, every fault below on stdio (and one on
// streamable HTTP, by --transports).
const pyfwAManifest = `name: python frameworks a
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [clean, type-swap, wrong-container, error]
schema_modes: [published]
protocols: [2026-07-28]
transports: [stdio, http]
clients: [fastmcp/call, fastmcp/list-then-call, pydantic-ai]
runs: 1
# An agent run imports pydantic-ai and fastmcp and starts the server: over 20s on a loaded
# 2-core machine, so a run has far longer than the 30s default before it counts as hung.
timeout: 120s
`

const pyfwAClients = "fastmcp/call,fastmcp/list-then-call,pydantic-ai"

// pyfwAWant is what each client does with each fault, found by running them (fastmcp 4.1.6 over
// mcp 2.3.0; pydantic-ai-slim 2.68.0 over fastmcp-slim 4.2.3 and mcp 2.3.0, as the images'
// requirements.txt pin them):
//
//   - type-swap and wrong-container: both libraries call the tool through the mcp SDK's
//     ClientSession.call_tool, which revalidates every non-error result against the tool's
//     outputSchema (mcp/client/session.py:1101-1102, listing the tools itself when it has not
//     seen them, :1125-1127) and raises RuntimeError("Invalid structured content returned by
//     tool ...") (mcp/client/session.py:1153-1154). fastmcp's Client.call_tool lets it out
//     (fastmcp/client/mixins/tools.py:330-336 calls call_tool_mcp, which awaits
//     session.call_tool at :203-211 with no handler), so both fastmcp paths threw. pydantic-ai's
//     MCPToolset._call_tool_checked catches only ToolError, McpError and an exception group of
//     them (pydantic_ai/mcp.py:1644-1684), so the RuntimeError ends the agent run: threw, the
//     model is never asked again.
//   - error (isError): fastmcp's call_tool raises ToolError with the first text block
//     (fastmcp/client/mixins/tools.py:394-399, raise_on_error=True by default at :290): threw.
//     pydantic-ai calls fastmcp with raise_on_error=False (tool_error_behavior 'retry',
//     mcp.py:1638-1643) and turns the isError result into ModelRetry (mcp.py:1686-1698, 2139-2140):
//     the model gets the server's text as a retried tool return, an error (messages.py:2331,
//     2586-2587), which is what the wire said: passed.
//   - clean: fastmcp returns the CallToolResult with the wire's fields untouched (tools.py:
//     440-446): passed. pydantic-ai hands the model structuredContent (mcp.py:2190-2200), equal to
//     the wire's: passed.
func pyfwAWant(client, fault string) string {
	switch fault {
	case "type-swap", "wrong-container":
		return "threw"
	case "error":
		if client == "pydantic-ai" {
			return "passed"
		}
		return "threw"
	}
	return "passed"
}

// TestPythonFrameworksAOnDocker runs the sample on the docker backend, through the real proxy and
// the real libraries, and checks every count against pyfwAWant, the library each column ran, and
// what pydantic-ai handed its model; then runs a few of the cells on the local backend, which
// must give the same counts.
func TestPythonFrameworksAOnDocker(t *testing.T) {
	api := engine(t)
	manifest := filepath.Join(t.TempDir(), "pyfw.yaml")
	if err := os.WriteFile(manifest, []byte(pyfwAManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	counts := map[string]string{}
	for _, sweep := range [][]string{
		{"--transports", "stdio"},
		{"--transports", "http", "--faults", "error"},
	} {
		out := t.TempDir()
		code, _, stderr := runStatic(t, append([]string{manifest, "--backend", "docker", "--parallel", "2", "--out", out}, sweep...)...)
		if code != 0 {
			t.Fatalf("the sweep %v exited %d:\n%s", sweep, code, stderr)
		}
		res := readResultsDir(t, out)
		want := 3 * 4
		if sweep[1] == "http" {
			want = 3
		}
		if len(res.Unavailable) > 0 || len(res.Cells) != want {
			t.Fatalf("%v: %d cells, unavailable %v; want %d and none", sweep, len(res.Cells), res.Unavailable, want)
		}
		for _, c := range res.Cells {
			counts[c.Key()] = c.Counts()
			if w := pyfwAWant(c.Client, c.Fault); c.Outcome[w] != 1 {
				t.Errorf("%s: %s, want %s 1/1 (evidence: %v)", c.Coordinates(), c.Counts(), w, c.Examples)
			}
			lib := "fastmcp 4.1.6"
			if c.Client == "pydantic-ai" {
				lib = "pydantic-ai-slim 2.68.0"
				// The model got structuredContent on clean and the server's error text on error:
				// never nothing, never a text where the wire had a structured result.
				view := map[string]string{"clean": "structured", "error": "error"}[c.Fault]
				if view != "" && c.ModelView[view] != 1 {
					t.Errorf("%s: the model got %v, want %s", c.Coordinates(), c.ModelView, view)
				}
			}
			if c.Library != lib {
				t.Errorf("%s ran %q, want %q", c.Coordinates(), c.Library, lib)
			}
		}
	}
	noLeftovers(t, api, "the python frameworks sweep")

	// The same cells on the local backend (python3 on PATH): installed by the clients' Local
	// recipes from the same requirements.txt, they must give the same counts.
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 on PATH: the local backend cannot run these clients")
	}
	out := t.TempDir()
	code, _, stderr := runStatic(t, manifest, "--backend", "local", "--clients", "fastmcp/call,pydantic-ai", "--faults", "clean,type-swap,error", "--transports", "stdio", "--parallel", "2", "--out", out)
	if code != 0 {
		t.Fatalf("the local sweep exited %d:\n%s", code, stderr)
	}
	local := readResultsDir(t, out)
	if len(local.Cells) != 6 {
		t.Fatalf("local: %d cells, want 6", len(local.Cells))
	}
	for _, c := range local.Cells {
		if d := counts[c.Key()]; d != c.Counts() {
			t.Errorf("%s: local %s, docker %s", c.Coordinates(), c.Counts(), d)
		}
	}
}
