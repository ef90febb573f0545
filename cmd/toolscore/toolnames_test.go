package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// toolNames are the tools of testdata/toolnames/server.mjs: names the MCP spec allows that client
// libraries rename for their model (a hyphen, a dot, more than 64 characters).
var toolNames = []string{"get-sum", "math.add", "sum_of_two_numbers_with_a_name_longer_than_sixty_four_characters_in_all"}

// TestToolNamesNodeClients runs the node-framework clients and ts-sdk, installed from their
// lockfiles on the local backend, and the Go clients, against a bare server whose tools are named
// toolNames, clean: each client must reach the tool it was asked for, whatever its library
// renames it to, and hand back its sum. openai-agents-js 0.20.0 renames get-sum to get_sum
// (agents-core dist/tool.mjs:689), and an adapter that looked the tool up by its MCP name said
// `threw`. The Python clients (python-sdk, fastmcp, langchain-py, openai-agents-py, pydantic-ai)
// keep the MCP name too and pass the same sweep, but their installs take minutes: not here.
func TestToolNamesNodeClients(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not on PATH")
	}
	server, err := filepath.Abs("testdata/toolnames/server.mjs")
	if err != nil {
		t.Fatal(err)
	}
	var tools strings.Builder
	for _, n := range toolNames {
		tools.WriteString("  - {name: " + n + ", arguments: {a: 2, b: 3}}\n")
	}
	manifest := filepath.Join(t.TempDir(), "toolnames.yaml")
	writeFile(t, manifest, "name: tool names\nserver: {command: [node, "+server+"]}\ntools:\n"+tools.String()+
		"faults: [clean]\nschema_modes: [as-is]\nprotocols: [2025-11-25]\n"+
		"clients: [openai-agents-js, langchain-js, ai-sdk, mastra, ts-sdk/call, go-sdk/call, mcp-go/call, raw]\nruns: 1\n")
	out := t.TempDir()
	noDaemon := []string{"DOCKER_HOST=unix://" + filepath.Join(t.TempDir(), "no-docker.sock")}
	code, _, stderr := runStaticEnv(t, noDaemon, manifest, "--backend", "local", "--parallel", "2", "--out", out)
	if code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	res := readResultsDir(t, out)
	const clients = 8
	if len(res.Cells) != clients*len(toolNames) {
		t.Fatalf("%d cells, want %d", len(res.Cells), clients*len(toolNames))
	}
	for _, c := range res.Cells {
		if c.Outcome["passed"] != 1 {
			t.Errorf("%s: %s, want passed 1/1 (evidence: %v)", c.Coordinates(), c.Counts(), c.Examples)
		}
	}
	// Each client called the tool it was asked for: its sum, under its MCP name, is what it printed.
	for _, n := range toolNames {
		outs, _ := filepath.Glob(filepath.Join(out, "runs", "*", "run-1", "stdout"))
		got := 0
		for _, o := range outs {
			if b, err := os.ReadFile(o); err == nil && strings.Contains(string(b), n+": 5") {
				got++
			}
		}
		if got != clients {
			t.Errorf("%d runs printed %q, want %d", got, n+": 5", clients)
		}
	}
}
