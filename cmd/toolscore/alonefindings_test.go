package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolscore/toolscore/tally"
)

// flakySweep sweeps, on the local backend, one client (toolscore's raw client behind a script)
// that dies at its first start and is raw from then on, as a client tripped by a loaded machine
// would be, over the schema modes given: with --parallel 1 the first cell's first run crashes,
// and is run again alone once the sweep is over, where it passes. It returns the output and
// what the sweep printed.
func flakySweep(t *testing.T, modes string, runs int) (out, stdout string) {
	t.Helper()
	t.Setenv("TOOLSCORE_CACHE", t.TempDir()) // the defined client's install
	dir := t.TempDir()
	started := filepath.Join(t.TempDir(), "started")
	script := filepath.Join(dir, "flaky.sh")
	writeFile(t, script, "#!/bin/sh\nif [ ! -e "+started+" ]; then : > "+started+"; echo 'flaky: not ready at its first start' >&2; exit 1; fi\nexec "+staticToolscore(t)+" client raw\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "flaky.yaml"), "name: flaky\nserver: {builtin: ledger}\ntool: get_account_balance\narguments: {account_id: ACC-4471}\n"+
		"faults: [clean]\nschema_modes: ["+modes+"]\nclients:\n  - name: flaky\n    runtime: binary\n    command: [./flaky.sh]\n"+
		"runs: "+string(rune('0'+runs))+"\n")
	out = filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := toolscore(t, dir, "run", "flaky.yaml", "--backend", "local", "--parallel", "1", "--out", out, "--fail-on", "never")
	if code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	return out, stdout
}

// TestResumeKeepsAloneInRunsExecuted (issue 48, item 13): a finished sweep one of whose runs was
// re-run alone counts that run in runs_executed, and a resume of it (which runs nothing) keeps
// the count the sweep said. Before, the resume counted runs.jsonl alone and lost the run alone.
func TestResumeKeepsAloneInRunsExecuted(t *testing.T) {
	out, _ := flakySweep(t, "hidden", 2)
	res := readResultsDir(t, out)
	if len(res.Cells) != 1 || res.Cells[0].Shown() != "crashed 1/2, passed 1/2, alone: passed" || res.RunsExecuted != 3 {
		t.Fatalf("cells %v, %d runs executed; want crashed 1/2, passed 1/2, alone: passed in 3 runs", shownCells(res.Cells), res.RunsExecuted)
	}
	if _, stderr, code := toolscore(t, out, "run", "--resume", out); code != 0 {
		t.Fatalf("resuming the finished sweep exited %d:\n%s", code, stderr)
	}
	again := readResultsDir(t, out)
	if again.RunsExecuted != res.RunsExecuted || again.RunsReused != res.RunsReused || again.Cells[0].Shown() != res.Cells[0].Shown() {
		t.Errorf("after the resume: %d runs executed, %d reused, %q; the sweep said %d, %d, %q",
			again.RunsExecuted, again.RunsReused, again.Cells[0].Shown(), res.RunsExecuted, res.RunsReused, res.Cells[0].Shown())
	}
}

// shownCells is each cell's coordinates and counts as the reports show them.
func shownCells(cells []*tally.Cell) []string {
	var s []string
	for _, c := range cells {
		s = append(s, c.Coordinates()+": "+c.Shown())
	}
	return s
}
