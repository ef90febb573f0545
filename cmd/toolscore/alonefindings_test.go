package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/tally"
)

// flakySweep sweeps, on the local backend, one client (toolscore's raw client behind a script)
// that dies at its first start and is raw from then on, as a client tripped by a loaded machine
// would be, over the schema modes given: with --parallel 1 the first cell's first run crashes,
// and is run again alone once the sweep is over, where it passes. It returns the output and
// what the sweep printed.
func flakySweep(t *testing.T, modes string, runs int) (out, stdout string) {
	return flakySweepN(t, modes, runs, 1)
}

// flakySweepN is flakySweep with a client that dies at its first fails starts.
func flakySweepN(t *testing.T, modes string, runs, fails int) (out, stdout string) {
	t.Helper()
	t.Setenv("TOOLSCORE_CACHE", t.TempDir()) // the defined client's install
	dir := t.TempDir()
	started := filepath.Join(t.TempDir(), "started")
	script := filepath.Join(dir, "flaky.sh")
	writeFile(t, script, "#!/bin/sh\necho >> "+started+"\nif [ $(wc -l < "+started+") -le "+fmt.Sprint(fails)+" ]; then echo 'flaky: not ready' >&2; exit 1; fi\nexec "+staticToolscore(t)+" client raw\n")
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

// TestAloneSettlesSchemaFindings (issue 48, item 15): the findings are built from the outcomes
// after the runs re-run alone. A cell whose one run crashed under the sweep and passed alone,
// beside a published cell that passed, is no finding of the schema: not on the first screen,
// not in summary.md, not marked in report.html. Before, SchemaChanges read the first runs only
// and listed "crashed 1/1 (hidden) → passed 1/1 (published)".
func TestAloneSettlesSchemaFindings(t *testing.T) {
	out, stdout := flakySweep(t, "hidden, published", 1)
	res := readResultsDir(t, out)
	if len(res.Cells) != 2 || res.Cells[0].Shown() != "crashed 1/1, alone: passed" || res.Cells[1].Shown() != "passed 1/1" {
		t.Fatalf("cells %v; want hidden crashed 1/1, alone: passed, and published passed 1/1", shownCells(res.Cells))
	}
	if !strings.Contains(stdout, "Publishing the schema changed nothing.") {
		t.Errorf("the first screen lists the run the load crashed as a finding of the schema:\n%s", stdout)
	}
	md, _ := os.ReadFile(filepath.Join(out, "summary.md"))
	if strings.Contains(string(md), "crashed 1/1 (hidden)") || strings.Contains(string(md), "→") {
		t.Errorf("summary.md lists the run the load crashed as a finding of the schema:\n%s", md)
	}
	html, stderr, code := toolscore(t, out, "report", "--format", "html", filepath.Join(out, "results.json"))
	if code != 0 {
		t.Fatalf("toolscore report exited %d:\n%s", code, stderr)
	}
	if strings.Contains(html, `title="differs between schema modes`) || !strings.Contains(html, "Publishing the schema changed no outcome.") {
		t.Errorf("report.html marks the run the load crashed as a finding of the schema")
	}
}

// TestLoadDecidedLeftOut (issue 48, item 15): a cell both of whose runs crashed under the
// sweep, whose first run passed alone, was decided by the load: one run alone cannot say what
// the other would have done. It is left out of the schema's findings and said so on the first
// screen, in summary.md and in report.html (marked l). Before, it was listed as what publishing
// the schema changed.
func TestLoadDecidedLeftOut(t *testing.T) {
	out, stdout := flakySweepN(t, "hidden, published", 2, 2)
	res := readResultsDir(t, out)
	if len(res.Cells) != 2 || res.Cells[0].Shown() != "crashed 2/2, alone: passed" || res.Cells[1].Shown() != "passed 2/2" {
		t.Fatalf("cells %v; want hidden crashed 2/2, alone: passed, and published passed 2/2", shownCells(res.Cells))
	}
	const left = "Left out of these comparisons: 1 cell whose runs the machine's load decided"
	if !strings.Contains(stdout, "Publishing the schema changed nothing.") || !strings.Contains(stdout, left) {
		t.Errorf("the first screen does not leave the cell the load decided out, saying so:\n%s", stdout)
	}
	md, _ := os.ReadFile(filepath.Join(out, "summary.md"))
	if !strings.Contains(string(md), "Publishing the schema changed no outcome.") || !strings.Contains(string(md), left) {
		t.Errorf("summary.md does not leave the cell the load decided out, saying so:\n%s", md)
	}
	html, stderr, code := toolscore(t, out, "report", "--format", "html", filepath.Join(out, "results.json"))
	if code != 0 {
		t.Fatalf("toolscore report exited %d:\n%s", code, stderr)
	}
	if strings.Contains(html, `title="differs between schema modes`) || !strings.Contains(html, `title="the machine&#39;s load decided its runs`) || !strings.Contains(html, strings.ReplaceAll(left, "'", "&#39;")) {
		t.Errorf("report.html does not mark the cell the load decided, nor leave it out of the schema's findings")
	}
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

// TestAloneOverLimitMarked (issue 48, item 16): past the sweep's limit of runs re-run alone
// (32), a cell whose run had an outcome the load may make is marked "alone: not run", left out
// of the findings, and never silently the client's. A client that dies at every start, over 36
// cells: 32 are re-run alone (and die again), 4 are marked. Before, those 4 read "crashed 1/1"
// like any other cell.
func TestAloneOverLimitMarked(t *testing.T) {
	t.Setenv("TOOLSCORE_CACHE", t.TempDir()) // the defined client's install
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "dies.sh"), "#!/bin/sh\necho 'dies: not ready' >&2\nexit 1\n")
	if err := os.Chmod(filepath.Join(dir, "dies.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "m.yaml"), "name: dies\nserver: {builtin: ledger}\ntool: get_account_balance\narguments: {account_id: ACC-4471}\n"+
		"faults: [clean, error, rpc-error, empty, truncate, corrupt, corrupt-plausible, type-swap, drop-required, wrong-container, scalar-structured, no-content]\n"+
		"schema_modes: [hidden, published, as-is]\nclients:\n  - name: dies\n    runtime: binary\n    command: [./dies.sh]\nruns: 1\n")
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := toolscore(t, dir, "run", "m.yaml", "--backend", "local", "--out", out, "--fail-on", "never", "--no-cache")
	if code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	res := readResultsDir(t, out)
	alone, marked := 0, 0
	for _, c := range res.Cells {
		switch {
		case c.Shown() == "crashed 1/1, alone: crashed":
			alone++
		case c.Shown() == "crashed 1/1, alone: not run (over the sweep's limit)" && c.LoadDecided():
			marked++
		default:
			t.Errorf("%s: %s; want crashed 1/1 re-run alone, or marked not run", c.Key(), c.Shown())
		}
	}
	if len(res.Cells) != 36 || alone != 32 || marked != 4 {
		t.Errorf("%d cells: %d re-run alone, %d marked; want 36: 32 and 4", len(res.Cells), alone, marked)
	}
}
