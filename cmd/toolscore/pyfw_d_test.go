package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/scenarios"
	"github.com/toolscore/toolscore/tally"
)

// pyfwDClients are three more Python frameworks of issue 50 whose adapters print what the
// framework hands its model (`handed`): Agno, Semantic Kernel and AutoGen.
const pyfwDClients = "agno,semantic-kernel,autogen"

// pyfwDLibraries is the library each says it ran, as its requirements.txt pins it.
var pyfwDLibraries = map[string]string{
	"agno":            "agno 3.1.10 (fastmcp 4.2.3, mcp 2.3.0)",
	"semantic-kernel": "semantic-kernel 1.45.0 (mcp 1.30.0)",
	"autogen":         "autogen-ext 0.7.5 (autogen-agentchat 0.7.5, mcp 1.30.0)",
}

// pyfwDWant is what each framework does with a fault of the study on the wire, under protocol
// 2026-07-28, found by running them (the line numbers are of the installed packages; each
// client's section of docs/clients.md says the same). None of the three hands its model an
// error flag: whatever goes wrong reaches the model as words in an ordinary tool message.
//
//   - agno and autogen hand the model the result's text blocks (agno/utils/mcp.py:207-247, 301-306;
//     autogen_ext/tools/mcp/_workbench.py:345-349 and autogen_core's ToolResult.to_text): a fault
//     that leaves the wire's text as it was passes (corrupt, corrupt-plausible, latency; the
//     schema faults with the schema hidden; empty with the schema hidden, nothing for nothing).
//   - An isError result becomes words with no flag (agno: "Error from MCP tool ...", mcp.py:196-200;
//     autogen: is_error, which no model client of autogen-ext sends), and so does a JSON-RPC
//     error (agno mcp.py:334-342, autogen _workbench.py:358-361): altered, both.
//   - The mcp SDK under each (2.3.0 for agno, 1.30.0 for autogen) refuses, with the schema
//     published, structuredContent that does not fit the listed outputSchema or is missing
//     (mcp/client/session.py), and the framework hands the model that exception's words:
//     type-swap, drop-required, empty, truncate and wrong-container published are altered.
//     Both open the session with initialize (agno's protocol_mode "legacy" by default,
//     agno/tools/mcp/mcp.py:271; autogen's mcp 1.30.0 knows no later revision), so they speak
//     2025-11-25, whose CallToolResult types structuredContent as an object: wrong-container's
//     array fails under either schema mode.
//   - semantic-kernel hands the model str() of the plugin's list of kernel contents
//     (semantic_kernel/connectors/mcp.py:95-100, 606-623; contents/chat_message_content.py:331-332):
//     a Python repr, never the wire's text, so every cell is altered.
func pyfwDWant(client, fault, schema string) string {
	if client == "semantic-kernel" {
		return "altered"
	}
	switch fault {
	case "error", "rpc-error", "wrong-container":
		return "altered"
	case "type-swap", "drop-required", "empty", "truncate":
		if schema == "published" {
			return "altered"
		}
	}
	return "passed"
}

// pyfwDManifest is the embedded ledger scenario narrowed to these faults, schema modes and
// transport, the given clients, protocol 2026-07-28, one run a cell. Its timeout is generous:
// importing Semantic Kernel took near three minutes on a loaded machine here.
func pyfwDManifest(t *testing.T, transport string, schemas []string, clients string, faults ...string) string {
	t.Helper()
	text := string(scenarios.Ledger)
	i := strings.Index(text, "\nfaults:")
	if i < 0 {
		t.Fatal("the embedded scenario has no faults section")
	}
	manifest := filepath.Join(t.TempDir(), "pyfw-d.yaml")
	writeFile(t, manifest, text[:i+1]+"faults: ["+strings.Join(faults, ", ")+"]\nschema_modes: ["+strings.Join(schemas, ", ")+
		"]\nprotocols: [2026-07-28]\ntransports: ["+transport+"]\nclients: ["+clients+"]\nruns: 1\ntimeout: 600s\n")
	return manifest
}

// checkPyfwD asserts every cell of a sweep against pyfwDWant, the library each framework ran,
// and that on clean each handed its model a text.
func checkPyfwD(t *testing.T, res *tally.Results, cells int) map[string]string {
	t.Helper()
	if len(res.Unavailable) > 0 || len(res.Cells) != cells {
		t.Fatalf("%d cells, unavailable %v; want %d and none", len(res.Cells), res.Unavailable, cells)
	}
	counts := map[string]string{}
	for _, c := range res.Cells {
		counts[c.Key()] = c.Counts()
		if want := pyfwDWant(c.Client, c.Fault, c.Schema); c.Outcome[want] != 1 {
			t.Errorf("%s: %s, want %s 1/1 (evidence: %v)", c.Coordinates(), c.Counts(), want, c.Examples)
		}
		if c.Library != pyfwDLibraries[c.Client] {
			t.Errorf("%s ran %q, want %q", c.Coordinates(), c.Library, pyfwDLibraries[c.Client])
		}
		if c.Fault == "clean" && c.ModelView["text"] != 1 {
			t.Errorf("%s: the model got %v, want text", c.Coordinates(), c.ModelView)
		}
	}
	return counts
}

// TestPythonFrameworksDOnDocker is the deliberate sample of agno, semantic-kernel and autogen
// on the docker backend, through the real packages and the real proxy, each client once per
// class of the study's faults (a clean result, one whose structuredContent breaks the published
// schema, an isError result, a JSON-RPC error, an empty result) on stdio, and the isError result
// on streamable HTTP; then, where python3 is on this machine, part of the stdio sample on the
// local backend (AutoGen alone, all three nightly) gives the same counts. The full product of
// the study's faults under both schema modes runs nightly (TOOLSCORE_FULL=1).
func TestPythonFrameworksDOnDocker(t *testing.T) {
	api := engine(t)
	faults := []string{"clean", "type-swap", "error", "rpc-error", "empty"}
	schemas := []string{"published"}
	if fullProduct() {
		faults = []string{"clean", "error", "rpc-error", "empty", "truncate", "corrupt", "corrupt-plausible", "type-swap", "drop-required", "wrong-container", "latency"}
		schemas = []string{"published", "hidden"}
	}
	out := t.TempDir()
	if code, _, stderr := runStatic(t, pyfwDManifest(t, "stdio", schemas, pyfwDClients, faults...), "--backend", "docker", "--parallel", "2", "--fail-on", "never", "--out", out); code != 0 {
		t.Fatalf("the stdio sweep exited %d:\n%s", code, stderr)
	}
	docker := checkPyfwD(t, readResultsDir(t, out), 3*len(faults)*len(schemas))

	httpOut := t.TempDir()
	if code, _, stderr := runStatic(t, pyfwDManifest(t, "http", []string{"published"}, pyfwDClients, "error"), "--backend", "docker", "--parallel", "2", "--fail-on", "never", "--out", httpOut); code != 0 {
		t.Fatalf("the http sweep exited %d:\n%s", code, stderr)
	}
	checkPyfwD(t, readResultsDir(t, httpOut), 3)
	noLeftovers(t, api, "the Python framework sweeps")

	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 on PATH: the local half of the check cannot run here")
	}
	// Each local install takes minutes on a loaded machine: CI's sample installs the one with
	// the fewest packages; the nightly, all three.
	clients, cells := "autogen", 3
	if fullProduct() {
		clients, cells = pyfwDClients, 9
	}
	localOut := t.TempDir()
	if code, _, stderr := runStatic(t, pyfwDManifest(t, "stdio", []string{"published"}, clients, "clean", "type-swap", "error"), "--backend", "local", "--parallel", "2", "--fail-on", "never", "--out", localOut); code != 0 {
		t.Fatalf("the local sweep exited %d:\n%s", code, stderr)
	}
	for k, v := range checkPyfwD(t, readResultsDir(t, localOut), cells) {
		if docker[k] != v {
			t.Errorf("%s: local %s, docker %s", k, v, docker[k])
		}
	}
}
