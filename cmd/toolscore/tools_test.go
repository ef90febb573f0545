package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/transcript"
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
