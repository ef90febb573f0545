package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAloneRerun: a run graded crashed is run again alone once the sweep is over, and both are
// shown, the counts keeping the first. The adapter (harness/flaky.py) dies at its first start
// and is harness/sdk.py from then on, as a client tripped by a loaded machine would be; so the
// cell counts passed 2/3, crashed 1/3, and alone it passed. A resume of the finished sweep reads
// the run run alone beside the counts, not as a fourth run.
func TestAloneRerun(t *testing.T) {
	needRuntimes(t)
	t.Setenv("TOOLSCORE_CACHE", t.TempDir())
	dir := copyHarness(t)
	started := filepath.Join(t.TempDir(), "started")
	writeFile(t, filepath.Join(dir, "harness", "flaky.py"), `import os, sys
started = `+pyQuote(started)+`
if not os.path.exists(started):
    open(started, "w").close()
    sys.exit("flaky: not ready at its first start")
os.execvp("python3", ["python3", os.path.join(os.path.dirname(__file__), "sdk.py")])
`)
	writeFile(t, filepath.Join(dir, "flaky.yaml"), `name: flaky
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [clean]
schema_modes: [hidden]
clients:
  - name: flaky
    runtime: python
    command: [python3, harness/flaky.py]
runs: 3
`)
	out := filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := toolscore(t, dir, "run", "flaky.yaml", "--backend", "local", "--parallel", "1", "--out", out)
	if code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	const want = "passed 2/3, crashed 1/3, alone: passed"
	cells := readResultsDir(t, out).Cells
	if len(cells) != 1 || cells[0].Shown() != want || cells[0].Alone["passed"] != 1 || cells[0].Runs != 3 {
		t.Fatalf("%d cells, the first %q (alone %v); want one counting %q", len(cells), cells[0].Shown(), cells[0].Alone, want)
	}
	if !strings.Contains(stdout, "alone:") {
		t.Errorf("the terminal table does not show the run alone:\n%s", stdout)
	}
	if _, err := os.Stat(filepath.Join(out, "alone", "flaky__clean__hidden__stdio", "run-1", "tee.jsonl")); err != nil {
		t.Errorf("the run alone left no transcript of its own: %v", err)
	}
	// The run alone is recorded beside the runs, so what reads runs.jsonl (replay, repro, bisect,
	// the evidence) reads the sweep's runs alone.
	runs, _ := os.ReadFile(filepath.Join(out, "runs.jsonl"))
	alone, _ := os.ReadFile(filepath.Join(out, "alone.jsonl"))
	if n := strings.Count(string(runs), "\n"); n != 3 || strings.Count(string(alone), "\n") != 1 || !strings.Contains(string(alone), `"alone":true`) {
		t.Errorf("runs.jsonl holds %d records, alone.jsonl:\n%s\nwant the 3 runs, and the one run alone beside them", n, alone)
	}
	if _, stderr, code := toolscore(t, dir, "run", "--resume", out); code != 0 {
		t.Fatalf("resuming the finished sweep exited %d:\n%s", code, stderr)
	}
	if got := readResultsDir(t, out).Cells[0].Shown(); got != want {
		t.Errorf("after the resume the cell counts %q; want %q", got, want)
	}
}

// pyQuote writes s as a Python string literal.
func pyQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
