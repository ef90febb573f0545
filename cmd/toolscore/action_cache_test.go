package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/tally"
)

// TestActionCellCache: the action's cache-dir is the sweep's cell cache. A second run of the
// same pull request with the folder the first one left (as actions/cache restores it) runs no
// cell and gives the same counts, saying so in the job summary; cache-dir off runs them all.
func TestActionCellCache(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "scenarios", "mine.yaml"), actionManifest)
	sweepOnce := func(cacheDir, out string) (*tally.Results, string, map[string]string) {
		t.Helper()
		a := newActionRun(t, ws, nil, "pull_request.json")
		a.inputs = map[string]string{"scenario": "scenarios/mine.yaml", "backend": "local", "out": out, "fail-on": "never", "comment": "false", "cache-dir": cacheDir}
		_, summary, outputs, code := a.run()
		if code != 0 {
			t.Fatalf("cache-dir %q: exit %d\n%s", cacheDir, code, a.stderr)
		}
		data, err := os.ReadFile(filepath.Join(ws, outputs["results"]))
		if err != nil {
			t.Fatal(err)
		}
		res := &tally.Results{}
		if err := json.Unmarshal(data, res); err != nil {
			t.Fatal(err)
		}
		return res, summary, outputs
	}

	first, _, out1 := sweepOnce(".toolscore-cache", "toolscore-out/first")
	if first.RunsExecuted != 12 || first.RunsReused != 0 {
		t.Fatalf("first run: %d runs executed, %d reused; want 12 and 0", first.RunsExecuted, first.RunsReused)
	}
	if entries, err := os.ReadDir(filepath.Join(ws, ".toolscore-cache")); err != nil || len(entries) == 0 {
		t.Fatalf("the first run left no cell cache in the workspace: %v", err)
	}

	second, summary, out2 := sweepOnce(".toolscore-cache", "toolscore-out/second")
	if second.RunsExecuted != 0 || second.RunsReused != 12 {
		t.Errorf("second run: %d runs executed, %d reused; want 0 and 12", second.RunsExecuted, second.RunsReused)
	}
	for _, c := range second.Cells {
		if c.ReusedFrom == nil || !c.ReusedFrom.Equal(first.Started) {
			t.Errorf("cell %s: reused_from %v, want the first run's start %v", c.Key(), c.ReusedFrom, first.Started)
		}
	}
	for _, k := range []string{"runs", "unmet", "outcome-passed", "outcome-rpc-error", "outcome-threw"} {
		if out1[k] != out2[k] {
			t.Errorf("output %s: %q the first time, %q from the cache", k, out1[k], out2[k])
		}
	}
	if !strings.Contains(summary, "12 cells: 0 ran, 12 reused, server answers verified") {
		t.Errorf("the job summary does not say the cells were reused:\n%.2000s", summary)
	}

	off, _, _ := sweepOnce("off", "toolscore-out/off")
	if off.RunsExecuted != 12 || off.RunsReused != 0 {
		t.Errorf("cache-dir off: %d runs executed, %d reused; want 12 and 0", off.RunsExecuted, off.RunsReused)
	}
}
