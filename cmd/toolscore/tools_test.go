package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscore/toolscore/fault"
	"github.com/toolscore/toolscore/internal/backend/local"
	"github.com/toolscore/toolscore/internal/runner"
	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/scenario"
)

// TestToolsAxis sweeps two tools of a real third-party server (@modelcontextprotocol/server-everything
// from npm) on the local backend: every cell names its tool, its transcript holds one tools/call
// of that tool, faulted, and every report and the baseline carry the tool.
func TestToolsAxis(t *testing.T) {
	server := everythingServer(t)
	dir := t.TempDir()
	manifest := filepath.Join(dir, "two.yaml")
	text := `name: two tools
server: {command: [node, ` + server + `, stdio]}
tools:
  - name: get-structured-content
    arguments: {location: Chicago}
  - name: echo
    arguments: {message: hello}
faults: [clean, corrupt]
schema_modes: [hidden]
clients: [raw, go-sdk/call]
runs: 1
expect:
  - {tool: echo, client: raw, outcome: passed}
`
	if err := os.WriteFile(manifest, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	stdout, stderr, code := toolscore(t, dir, "run", manifest, "--backend", "local", "--out", out)
	if code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	res := readResultsDir(t, out)
	if len(res.Cells) != 8 {
		t.Fatalf("%d cells; want 2 tools x 2 faults x 2 clients", len(res.Cells))
	}
	for _, c := range res.Cells {
		if c.Counts() != "passed 1/1" {
			t.Errorf("%s: %s; want passed 1/1", c.Coordinates(), c.Counts())
		}
		tee, err := transcript.Read(filepath.Join(out, c.Examples["passed"].Tee))
		if err != nil {
			t.Fatal(err)
		}
		calls, faulted := 0, 0
		for _, e := range tee {
			if e.Match != nil {
				calls++
				if e.Match.Tool != c.Tool {
					t.Errorf("%s: its run called %q", c.Coordinates(), e.Match.Tool)
				}
			}
			if e.Dir == transcript.ServerToClient && e.Fault != "" && e.Fault != "clean" {
				faulted++
			}
		}
		if want := map[bool]int{true: 1, false: 0}[c.Fault == "corrupt"]; calls != 1 || faulted != want {
			t.Errorf("%s: %d calls matched, %d answers faulted; want 1 and %d", c.Coordinates(), calls, faulted, want)
		}
	}
	for _, want := range []string{"\necho: clean ", "\nget-structured-content: clean "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the report lacks a row %q:\n%s", want, stdout)
		}
	}
	if len(res.Expectations) != 1 || res.Expectations[0].State() != "held" || res.Expectations[0].Tool != "echo" {
		t.Errorf("expectations %+v; want the echo one held", res.Expectations)
	}
	_, stderr, code = toolscore(t, dir, "baseline", filepath.Join(out, "results.json"), "--out", "base.json")
	if code != 0 {
		t.Fatalf("baseline exited %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "base.json")); strings.Count(string(b), `"tool": "echo"`) != 4 {
		t.Errorf("the baseline does not name the tool of each cell:\n%s", b)
	}
	if _, stderr, code = toolscore(t, dir, "diff", "base.json", filepath.Join(out, "results.json")); code != 0 {
		t.Errorf("diff against its own baseline exited %d: %s", code, stderr)
	}
}

// TestToolFaultedAlone: a session through a two-tool cell's own proxy (the command the run plan
// gives it) that calls both tools gets the other tool's answer byte for byte as the server sent
// it, and only the cell's tool's answer faulted.
func TestToolFaultedAlone(t *testing.T) {
	manifest := `name: two
server: {builtin: ledger}
tools:
  - {name: get_account_balance, arguments: {account_id: ACC-4471}}
  - list_accounts
faults: [corrupt]
schema_modes: [as-is]
clients: [go-sdk/call]
runs: 1
`
	sc, err := scenario.Load("two.yaml", []byte(manifest), scenario.Known{Faults: fault.Names(), FaultOptions: fault.Check})
	if err != nil {
		t.Fatal(err)
	}
	o := runner.Options{Plan: runner.Plan{Scenario: sc}, Backend: local.Backend{Binary: os.Args[0]}}
	direct := calls(t, []string{os.Args[0], "ledger"})
	for j := range o.Jobs() {
		dir := t.TempDir()
		_, req := o.Spec(j, dir)
		got := calls(t, req.Server)
		for tool, answer := range got {
			if (tool == j.Cell.Tool.Name) == (answer == direct[tool]) {
				t.Errorf("cell of %s: %s answered %s, directly %s", j.Cell.Tool.Name, tool, answer, direct[tool])
			}
		}
		tee, err := transcript.Read(filepath.Join(dir, "tee.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		faulted := 0
		for _, e := range tee {
			if e.Dir == transcript.ServerToClient && e.Fault == "corrupt" {
				faulted++
				if strings.Contains(string(e.Wire), `"accounts"`) != (j.Cell.Tool.Name == "list_accounts") {
					t.Errorf("cell of %s: the fault was applied to %s", j.Cell.Tool.Name, e.Wire)
				}
			}
		}
		if faulted != 1 {
			t.Errorf("cell of %s: %d answers faulted; want 1", j.Cell.Tool.Name, faulted)
		}
	}
}

// calls starts command as an MCP server, calls both ledger tools with the go-sdk client and
// returns each tool's result as JSON.
func calls(t *testing.T, command []string) map[string]string {
	t.Helper()
	ctx := context.Background()
	cmd := exec.Command(command[0], command[1:]...)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	out := map[string]string{}
	for tool, args := range map[string]map[string]any{"get_account_balance": {"account_id": "ACC-4471"}, "list_accounts": {}} {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(r)
		out[tool] = string(b)
	}
	return out
}
