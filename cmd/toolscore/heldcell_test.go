package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/record"
)

// TestHeldCellEndsWhatARunLeft: a cell's runs share its container on docker, so a process a run
// leaves behind must not reach the next run. Each run of lefty leaves one that would write into
// the next run's transcript two seconds later; toolscore kills it as the run ends, records it on
// the run, and gives the next run a fresh container: every run passes, and its transcript is
// whole. Each run of hog makes the kernel kill a process for want of memory in the container
// that lives on: every run is oom-killed, as in a container of its own.
func TestHeldCellEndsWhatARunLeft(t *testing.T) {
	api := engine(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "left.sh"), `#!/bin/sh
(sleep 2; echo '{"not": "a record"}' >> /run/toolscore/tee.jsonl; sleep 600) </dev/null >/dev/null 2>&1 &
exec /opt/toolscore/toolscore client raw
`)
	writeFile(t, filepath.Join(dir, "hog.sh"), `#!/bin/sh
python3 -c 'x = bytearray(512 << 20)'
exec /opt/toolscore/toolscore client raw
`)
	writeFile(t, filepath.Join(dir, "left.yaml"), `name: a client that leaves a process
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [clean]
schema_modes: [hidden]
protocols: [2026-07-28]
clients:
  - name: lefty
    runtime: python
    command: [sh, ./left.sh]
  - name: hog
    runtime: python
    command: [sh, ./hog.sh]
runs: 3
sandbox: {memory_mb: 128}
`)
	out := t.TempDir()
	code, _, stderr := runStatic(t, filepath.Join(dir, "left.yaml"), "--backend", "docker", "--parallel", "1", "--out", out)
	if code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d runs recorded, want 6", len(lines))
	}
	for _, line := range lines {
		var r record.Run
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		k := fmt.Sprintf("%s run %d", r.Client, r.Run)
		if r.Client == "hog" {
			if r.Outcome != "oom-killed" {
				t.Errorf("%s: %s (%s)", k, r.Outcome, r.Evidence)
			}
			continue
		}
		if r.Outcome != "passed" || !strings.Contains(r.Stderr, "process(es) running in its cell; they were killed, and the cell's next run gets a fresh container") {
			t.Errorf("%s: %s (%s), stderr %q", k, r.Outcome, r.Evidence, r.Stderr)
		}
		tee, err := os.ReadFile(filepath.Join(out, r.Tee))
		if err != nil || strings.Contains(string(tee), `"not": "a record"`) {
			t.Errorf("%s: the transcript holds what an earlier run left (%v)", k, err)
		}
	}
	noLeftovers(t, api, "a client that leaves a process")
}
