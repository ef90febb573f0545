package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/scenarios"
	"github.com/toolscore/toolscore/tally"
)

// mcpUseLibrary is what the mcp-use adapter says it ran, as its requirements.txt pins it.
const mcpUseLibrary = "mcp-use 1.7.1 (mcp 1.30.0)"

// mcpUseWant is what mcp-use does with a fault of the study on the wire, under protocol
// 2026-07-28, found by running it (the line numbers are of the installed packages; its section of
// docs/clients.md says the same). Its LangChain tool catches every exception of the call and an
// isError result alike and returns format_error's dict, {"error": class, "details": ...}
// (mcp_use/agents/adapters/langchain_adapter.py:181-206, errors/error_formatting.py:6-26): the
// model reads an error where the wire had one (an isError result passed, a JSON-RPC error
// rpc-error). mcp 1.30.0, which mcp-use 1.7.1 holds it to (mcp<2), refuses with the schema
// published a result whose structuredContent does not fit the listed outputSchema or is missing
// (mcp/client/session.py:413-443): type-swap, drop-required, wrong-container, empty and truncate
// reach the model as an error where the wire had a result, rejected. With the schema hidden only
// wrong-container is refused, by pydantic: mcp 1.30.0 types structuredContent as an object
// (mcp/types.py). Every other fault reaches the model as the wire's text: passed.
func mcpUseWant(fault, schema string) string {
	switch fault {
	case "rpc-error":
		return "rpc-error"
	case "wrong-container":
		return "rejected"
	case "type-swap", "drop-required", "empty", "truncate":
		if schema == "published" {
			return "rejected"
		}
	}
	return "passed"
}

// mcpUseManifest is the embedded ledger scenario narrowed to these faults, schema modes and
// transport, mcp-use alone, protocol 2026-07-28, one run a cell. Its timeout is generous:
// importing LangChain takes seconds on a loaded machine.
func mcpUseManifest(t *testing.T, transport string, schemas []string, faults ...string) string {
	t.Helper()
	text := string(scenarios.Ledger)
	i := strings.Index(text, "\nfaults:")
	if i < 0 {
		t.Fatal("the embedded scenario has no faults section")
	}
	manifest := filepath.Join(t.TempDir(), "mcp-use.yaml")
	writeFile(t, manifest, text[:i+1]+"faults: ["+strings.Join(faults, ", ")+"]\nschema_modes: ["+strings.Join(schemas, ", ")+
		"]\nprotocols: [2026-07-28]\ntransports: ["+transport+"]\nclients: [mcp-use]\nruns: 1\ntimeout: 180s\n")
	return manifest
}

// checkMcpUse asserts every cell of a sweep against mcpUseWant, the library it ran, and what it
// handed its model on clean: the wire's text.
func checkMcpUse(t *testing.T, res *tally.Results, cells int) map[string]string {
	t.Helper()
	if len(res.Unavailable) > 0 || len(res.Cells) != cells {
		t.Fatalf("%d cells, unavailable %v; want %d and none", len(res.Cells), res.Unavailable, cells)
	}
	counts := map[string]string{}
	for _, c := range res.Cells {
		counts[c.Key()] = c.Counts()
		if want := mcpUseWant(c.Fault, c.Schema); c.Outcome[want] != 1 {
			t.Errorf("%s: %s, want %s 1/1 (evidence: %v)", c.Coordinates(), c.Counts(), want, c.Examples)
		}
		if c.Library != mcpUseLibrary {
			t.Errorf("%s ran %q, want %q", c.Coordinates(), c.Library, mcpUseLibrary)
		}
		if c.Fault == "clean" && c.ModelView["text"] != 1 {
			t.Errorf("%s: the model got %v, want text", c.Coordinates(), c.ModelView)
		}
	}
	return counts
}

// TestMcpUseOnDocker is the deliberate sample of mcp-use on the docker backend, through the real
// package and the real proxy, once per class of the study's faults (a clean result, one whose
// structuredContent breaks the published schema, an isError result, a JSON-RPC error, an empty
// result) on stdio, and the isError result on streamable HTTP; then, where python3 is on this
// machine, part of the stdio sample on the local backend gives the same counts. The full product
// of the study's faults under both schema modes runs nightly (TOOLSCORE_FULL=1).
func TestMcpUseOnDocker(t *testing.T) {
	api := engine(t)
	faults := []string{"clean", "type-swap", "error", "rpc-error", "empty"}
	schemas := []string{"published"}
	if fullProduct() {
		faults = []string{"clean", "error", "rpc-error", "empty", "truncate", "corrupt", "corrupt-plausible", "type-swap", "drop-required", "wrong-container", "latency"}
		schemas = []string{"published", "hidden"}
	}
	out := t.TempDir()
	if code, _, stderr := runStatic(t, mcpUseManifest(t, "stdio", schemas, faults...), "--backend", "docker", "--parallel", "2", "--fail-on", "never", "--out", out); code != 0 {
		t.Fatalf("the stdio sweep exited %d:\n%s", code, stderr)
	}
	docker := checkMcpUse(t, readResultsDir(t, out), len(faults)*len(schemas))

	httpOut := t.TempDir()
	if code, _, stderr := runStatic(t, mcpUseManifest(t, "http", []string{"published"}, "error"), "--backend", "docker", "--parallel", "2", "--fail-on", "never", "--out", httpOut); code != 0 {
		t.Fatalf("the http sweep exited %d:\n%s", code, stderr)
	}
	checkMcpUse(t, readResultsDir(t, httpOut), 1)
	noLeftovers(t, api, "the mcp-use sweeps")

	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 on PATH: the local half of the check cannot run here")
	}
	localOut := t.TempDir()
	if code, _, stderr := runStatic(t, mcpUseManifest(t, "stdio", []string{"published"}, "clean", "type-swap", "error"), "--backend", "local", "--parallel", "2", "--fail-on", "never", "--out", localOut); code != 0 {
		t.Fatalf("the local sweep exited %d:\n%s", code, stderr)
	}
	for k, v := range checkMcpUse(t, readResultsDir(t, localOut), 3) {
		if docker[k] != v {
			t.Errorf("%s: local %s, docker %s", k, v, docker[k])
		}
	}
}
