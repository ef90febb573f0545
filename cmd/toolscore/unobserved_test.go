package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// cutScript is a defined client's command, run as ./cut.sh MARK CMD...: the first time (while
// the folder MARK does not exist yet) it runs CMD with a file size limit of 0, which every
// process CMD starts inherits, the proxy among them: the proxy relays the whole session, but
// cannot write a byte of its transcript, as a proxy killed before its buffer reached the disk
// leaves a transcript without the call (issue 48, item 14). CMD's own output goes through a
// pipe, out of the limit. Every later time it runs CMD as it is.
const cutScript = `#!/bin/sh
mark=$1
shift
if mkdir "$mark" 2>/dev/null; then
  { ulimit -f 0; exec "$@"; } | cat
  exit 0
fi
exec "$@"
`

// cutWorkspace writes a manifest folder whose clients are cut at their first run: raw
// (toolscore's own) and the defined node agent of testdata/defined, each behind cut.sh, against
// the ledger with the corrupt fault, the cell of issue 48's item 14. It returns the folder and
// the folder of the marks, outside the manifest's (which a defined client's install copies).
func cutWorkspace(t *testing.T, extra string) (ws, marks string) {
	t.Helper()
	needRuntimes(t)
	ws, marks = t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(ws, "cut.sh"), cutScript)
	if err := os.Chmod(filepath.Join(ws, "cut.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	agent, err := os.ReadFile(filepath.Join(definedDir, "harness", "agent.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws, "harness", "agent.mjs"), string(agent))
	mark := func(name string) string { return filepath.Join(marks, name) }
	writeFile(t, filepath.Join(ws, "m.yaml"), `name: cut transcripts
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
prompt: What is the balance of account ACC-4471?
truth: ["40718.77", "4071877"]
faults: [corrupt]
schema_modes: [hidden]
clients:
  - {name: raw-cut, runtime: binary, command: [./cut.sh, "`+mark("raw")+`", "`+staticToolscore(t)+`", client, raw]}
  - {name: agent-cut, runtime: binary, command: [./cut.sh, "`+mark("agent")+`", node, harness/agent.mjs], agent: true}
`+extra+`runs: 1
timeout: 60s
`)
	return ws, marks
}

// TestCutTranscriptUnobserved (issue 48, item 14): a run whose transcript was cut short before
// the call (here: its proxy could not write it at all) is toolscore's failure, never the
// client's. The client got the answer (the raw client returned it, the agent's model got the
// corrupt fault's values), so "never called on the wire" is not what happened: the run is
// graded unobserved, not altered, with the grade it would have had in its evidence; it is run
// again alone, where its transcript is whole and it passes; and its cell is not stored in the
// cell cache, so the next sweep runs it again (and then, whole, stores it for the one after).
func TestCutTranscriptUnobserved(t *testing.T) {
	t.Setenv("TOOLSCORE_CACHE", t.TempDir()) // the defined clients' installs
	ws, _ := cutWorkspace(t, "")
	cache := filepath.Join(t.TempDir(), "cells")
	sweep := func(out string) *tally.Results {
		t.Helper()
		_, stderr, code := toolscore(t, ws, "run", "m.yaml", "--backend", "local", "--out", out, "--cache", cache)
		if code != 0 {
			t.Fatalf("toolscore run into %s: exit %d\n%s", out, code, stderr)
		}
		return readResultsDir(t, filepath.Join(ws, out))
	}

	first := sweep("one")
	for _, c := range first.Cells {
		if c.Outcome[string(record.Unobserved)] != 1 || c.Alone[string(record.Passed)] != 1 {
			t.Errorf("%s: %s, alone %v; want unobserved 1/1, passed alone (the alone run's transcript is whole)", c.Coordinates(), c.Counts(), c.Alone)
		}
	}
	for _, rec := range injectRuns(t, filepath.Join(ws, "one")) {
		// The evidence names the cut and keeps what the transcript alone would have said.
		if !strings.Contains(rec.Evidence, "cut short (the proxy was gone before it saw the server exit") || !strings.Contains(rec.Evidence, "would be altered") {
			t.Errorf("%s run %d: evidence %q; want the cut named, and the altered it would have been", rec.Client, rec.Run, rec.Evidence)
		}
		if rec.Client == "agent-cut" && (rec.ModelView == "" || rec.ModelView == record.ViewNone) {
			t.Errorf("agent-cut: model view %q; want the corrupt answer the model got in spite of the empty transcript", rec.ModelView)
		}
	}

	// Nothing of the first sweep was stored: both cells run again, whole this time.
	second := sweep("two")
	for _, c := range second.Cells {
		if c.ReusedFrom != nil || c.Outcome[string(record.Passed)] != 1 {
			t.Errorf("second sweep: %s: %s, reused from %v; want it run again, and passed", c.Coordinates(), c.Counts(), c.ReusedFrom)
		}
	}
	if second.RunsExecuted != 2 {
		t.Errorf("second sweep executed %d runs, want 2", second.RunsExecuted)
	}
	// Whole, the cells were stored: the cache works for them, so the cut is what kept them out.
	if third := sweep("three"); third.RunsExecuted != 0 {
		t.Errorf("third sweep executed %d runs, want 0 (the second sweep's whole cells reused)", third.RunsExecuted)
	}
}

// loadOutcomes are the outcomes a starved machine can make of a run (runner.loadMayMake): the
// runner runs the first such run of a cell again alone after the sweep.
var loadOutcomes = []record.Outcome{record.Hung, record.Crashed, record.ServerExited, record.NoCall, record.NotReady, record.Unobserved}

// hogCPUs keeps every core of the machine busy until the test ends: perCPU busy loops per CPU,
// each a process of the test's own, stopped by its pid.
func hogCPUs(t *testing.T, perCPU int) {
	t.Helper()
	for range perCPU * runtime.NumCPU() {
		hog := exec.Command("sh", "-c", "while :; do :; done")
		if err := hog.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = hog.Process.Kill()
			_ = hog.Wait()
		})
	}
}

// TestLoadRerunsAlone (issue 48, item 16): on a machine whose every core is busy (a hog of the
// test's own), no run whose failure the load can explain is counted as what the client did.
// Every client here passes on a quiet machine (toolscore's own Go clients, the defined node
// agent, and the two clients of TestCutTranscriptUnobserved whose first run's transcript is cut,
// as a starved proxy's is): so every run is passed, or has an outcome the load can make (hung,
// crashed, no model view at all, a transcript cut short...), which its cell runs again alone.
// A run whose transcript is cut short before the call's answer is never graded as the client's.
// Runs 1 with one busy loop a core here; under TOOLSCORE_FULL, runs 2 with more faults and 8 busy
// loops a core (a load average near 25 on 2 cores, where the issue saw runs without a model view).
// The hog runs only for the sweep.
func TestLoadRerunsAlone(t *testing.T) {
	t.Setenv("TOOLSCORE_CACHE", t.TempDir()) // the defined clients' installs
	faults, runs, hogs := "[clean, corrupt]", 1, 1
	if fullProduct() {
		faults, runs, hogs = "[clean, corrupt, corrupt-plausible, latency]", 2, 8
	}
	ws, _ := cutWorkspace(t, "  - raw\n  - go-sdk/list-then-call\n  - mcp-go/call\n  - {name: acme-agent, runtime: binary, command: [node, harness/agent.mjs], agent: true}\n")
	m := strings.Replace(readFile(t, filepath.Join(ws, "m.yaml")), "faults: [corrupt]", "faults: "+faults, 1)
	m = strings.Replace(m, "runs: 1\n", fmt.Sprintf("runs: %d\n", runs), 1)
	writeFile(t, filepath.Join(ws, "m.yaml"), m)

	hogCPUs(t, hogs)
	_, stderr, code := toolscore(t, ws, "run", "m.yaml", "--backend", "local", "--out", "out")
	if code != 0 {
		t.Fatalf("toolscore run: exit %d\n%s", code, stderr)
	}
	out := filepath.Join(ws, "out")
	res := readResultsDir(t, out)
	alone := map[string]bool{}
	for _, c := range res.Cells {
		alone[c.Key()] = len(c.Alone) > 0
	}
	cut := 0
	for _, rec := range injectRuns(t, out) {
		at := fmt.Sprintf("%s run %d (%s: %s)", rec.Cell.Key(), rec.Run, rec.Outcome, rec.Evidence)
		tee := filepath.Join(out, rec.Tee)
		if b, err := os.ReadFile(tee); err == nil && strings.Contains(string(b), `"event":"no-server-exit"`) {
			entries, _ := transcript.ReadForGrading(tee)
			if _, answer := transcript.TargetAnswer(entries); answer == nil {
				cut++
				if !slices.Contains(loadOutcomes, rec.Outcome) {
					t.Errorf("%s: its transcript was cut short before the call's answer, yet it is graded as the client's", at)
				}
			}
		}
		switch {
		case rec.Outcome == record.Passed:
		case !slices.Contains(loadOutcomes, rec.Outcome):
			t.Errorf("%s: counted as the client's, though every client here passes on a quiet machine", at)
		case !alone[rec.Cell.Key()]:
			t.Errorf("%s: an outcome the load can make, but its cell was not run again alone", at)
		}
		// An agent's run with no model view at all (the 8 of 132 cells) is the load's.
		if strings.Contains(rec.Client, "agent") && rec.ModelView == "" && !slices.Contains(loadOutcomes, rec.Outcome) {
			t.Errorf("%s: no model view at all, yet counted as the client's", at)
		}
	}
	// The cut clients' first runs are cut whatever the load: the check above did check something.
	if cut < 2 {
		t.Errorf("%d runs had a transcript cut short before the call's answer, want at least the 2 of the cut clients", cut)
	}
	t.Logf("under %d busy loops: %d cells, %d runs, %d run again alone", hogs*runtime.NumCPU(), len(res.Cells), res.RunsExecuted, countAlone(res))
}

// countAlone is how many runs of res ran again alone.
func countAlone(res *tally.Results) int {
	n := 0
	for _, c := range res.Cells {
		for _, k := range c.Alone {
			n += k
		}
	}
	return n
}
