package outdir

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// results is a small sweep of one cell, its example's transcript relative to its output.
func results(scenario string, outcome string, n int) *tally.Results {
	start := time.Date(2026, 3, 31, 12, 0, 0, 0, time.UTC)
	return &tally.Results{Scenario: scenario, Toolscore: "test", Backend: "local", Started: start, Finished: start.Add(time.Minute),
		Cells: []*tally.Cell{{Cell: record.Cell{Client: "raw", Fault: "clean", Schema: "hidden", Protocol: "as-is", Transport: "stdio"}, Runs: n, Planned: n,
			Outcome:  map[string]int{outcome: n},
			Examples: map[string]tally.Example{outcome: {Run: 1, Evidence: outcome, Tee: "runs/raw/run-1/tee.jsonl"}}}}}
}

// output makes an output directory as a sweep leaves it: results.json, summary.md, runs.jsonl.
func output(t *testing.T, dir string, res *tally.Results, runs string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, res); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, record.RunsFile), []byte(runs), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestWriteRead: what Write leaves is what ReadResults and ReadCounts read back, from the
// directory or from its results.json.
func TestWriteRead(t *testing.T) {
	dir := output(t, t.TempDir(), results("ledger", "passed", 2), "")
	want := results("ledger", "passed", 2)
	for _, path := range []string{dir, Results(dir)} {
		for name, read := range map[string]func(string) (*tally.Results, error){"ReadResults": ReadResults, "ReadCounts": ReadCounts} {
			got, err := read(path)
			if err != nil || !reflect.DeepEqual(got.Cells, want.Cells) || got.Scenario != "ledger" || !got.Started.Equal(want.Started) {
				t.Errorf("%s(%s) = %+v, %v", name, path, got, err)
			}
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, record.SummaryFile))
	if err != nil || !strings.Contains(string(md), "# toolscore: ledger") {
		t.Errorf("%s (%v):\n%s", record.SummaryFile, err, md)
	}
	if err := Write(filepath.Join(dir, "missing"), want); err == nil {
		t.Error("Write into a directory that is not there succeeded")
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	broken := write("broken.json", "{\n  \"scenario\": \"x\",\n  \"cells\": [}\n")
	nameless := write("nameless.json", `{"cells": []}`)
	wrong := write("wrong.json", `{"scenario": 7}`)
	badBase := write("base.json", `{"format": "toolscore-baseline/9", "scenario": "x", "cells": []}`)
	for _, tc := range []struct {
		path, want string
		read       func(string) (*tally.Results, error)
	}{
		{broken, broken + ":3:13: not valid JSON: invalid character '}'", ReadResults},
		{broken, broken + ":3:13: not valid JSON", ReadCounts},
		{nameless, nameless + " is not a toolscore results.json: it names no scenario", ReadResults},
		{wrong, wrong + " is not a toolscore results.json: json: cannot unmarshal", ReadCounts},
		{badBase, badBase + ` is not a usable toolscore baseline: format "toolscore-baseline/9" is not "toolscore-baseline/1"`, ReadCounts},
	} {
		if _, err := tc.read(tc.path); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("reading %s: %v, want %q", filepath.Base(tc.path), err, tc.want)
		}
	}
	for _, read := range []func(string) (*tally.Results, error){ReadResults, ReadCounts} {
		if _, err := read(filepath.Join(dir, "none")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
		}
	}
}

// TestReadCountsBaseline: a baseline file reads as the counts it holds.
func TestReadCountsBaseline(t *testing.T) {
	b, _ := json.Marshal(tally.NewBaseline(results("ledger", "threw", 3)))
	path := filepath.Join(t.TempDir(), "toolscore-baseline.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCounts(path)
	if err != nil || got.Scenario != "ledger" || len(got.Cells) != 1 || got.Cells[0].Outcome["threw"] != 3 {
		t.Errorf("ReadCounts = %+v, %v", got, err)
	}
}

// TestMerge: two outputs add up, their runs one after the other (a missing final newline
// supplied), the transcripts still found from the merged directory.
func TestMerge(t *testing.T) {
	tmp := t.TempDir()
	a := output(t, filepath.Join(tmp, "a"), results("ledger", "passed", 2), "{\"run\":1}\n{\"run\":2}\n")
	b := output(t, filepath.Join(tmp, "b"), results("ledger", "threw", 1), "{\"run\":3}")
	out := filepath.Join(tmp, "merged")
	merged, err := Merge(out, []string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("Merge wrote the output directory before WriteMerged")
	}
	c := merged.Cells[0]
	if c.Runs != 3 || c.Outcome["passed"] != 2 || c.Outcome["threw"] != 1 || c.Examples["passed"].Tee != "../a/runs/raw/run-1/tee.jsonl" {
		t.Errorf("merged cell %+v", c)
	}
	if err := WriteMerged(out, []string{a, b}, merged); err != nil {
		t.Fatal(err)
	}
	runs, err := os.ReadFile(filepath.Join(out, record.RunsFile))
	if want := "{\"run\":1}\n{\"run\":2}\n{\"run\":3}\n"; err != nil || string(runs) != want {
		t.Errorf("%s = %q (%v), want %q", record.RunsFile, runs, err, want)
	}
	back, err := ReadResults(out)
	if err != nil || !reflect.DeepEqual(back.Cells[0].Outcome, c.Outcome) {
		t.Errorf("read back %+v, %v", back, err)
	}
}

func TestMergeRefuses(t *testing.T) {
	tmp := t.TempDir()
	a := output(t, filepath.Join(tmp, "a"), results("ledger", "passed", 1), "")
	other := output(t, filepath.Join(tmp, "other"), results("weather", "passed", 1), "")
	noRuns := output(t, filepath.Join(tmp, "noruns"), results("ledger", "passed", 1), "")
	if err := os.Remove(filepath.Join(noRuns, record.RunsFile)); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "m")
	for _, tc := range []struct {
		name, out string
		dirs      []string
		want      string
	}{
		{"different scenarios", out, []string{a, other}, `hold different scenarios ("ledger" and "weather")`},
		{"no results", out, []string{a, tmp}, "results.json: no such file"},
		{"no runs", out, []string{a, noRuns}, "noruns has results.json but no runs.jsonl"},
		{"twice", out, []string{a, a + "/"}, "is given twice"},
		{"into an input", a, []string{a}, "--out " + a + " is one of the inputs"},
		{"nothing", out, nil, "nothing to merge"},
	} {
		if _, err := Merge(tc.out, tc.dirs); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestNewest: the newest results.json under toolscore-out, by time written.
func TestNewest(t *testing.T) {
	t.Chdir(t.TempDir())
	if _, err := Newest(); err == nil || !strings.HasPrefix(err.Error(), "no results under ./toolscore-out") {
		t.Errorf("no outputs: %v", err)
	}
	old := output(t, filepath.Join(Root, "old"), results("ledger", "passed", 1), "")
	output(t, filepath.Join(Root, "new"), results("ledger", "passed", 1), "")
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(Results(old), past, past); err != nil {
		t.Fatal(err)
	}
	if got, err := Newest(); err != nil || got != Results(filepath.Join(Root, "new")) {
		t.Errorf("Newest = %q, %v", got, err)
	}
	if s := Stamped("merged-"); !strings.HasPrefix(s, filepath.Join(Root, "merged-20")) {
		t.Errorf("Stamped = %q", s)
	}
}

// TestWriteIsAtomic: a results.json (or sweep.json) being written that never finishes, as a
// kill or a full disk leaves it, never replaces the good one, and what it leaves behind (a
// stray temp file, half written) is ignored by every reader.
func TestWriteIsAtomic(t *testing.T) {
	dir := output(t, t.TempDir(), results("ledger", "passed", 2), `{"client":"raw"}`+"\n")
	good, err := os.ReadFile(Results(dir))
	if err != nil {
		t.Fatal(err)
	}
	// A render stopped half-way: what a kill in the middle of report.JSON leaves.
	half := func(w io.Writer, _ *tally.Results) error {
		w.Write(good[:len(good)/2])
		return errors.New("killed")
	}
	if err := write(dir, record.ResultsFile, results("ledger", "threw", 5), half); err == nil || !strings.Contains(err.Error(), "writing results.json: killed") {
		t.Errorf("a render that failed half-way: %v, want an error naming results.json", err)
	}
	if got, err := os.ReadFile(Results(dir)); err != nil || string(got) != string(good) {
		t.Errorf("results.json after a write that failed half-way (%v):\n%s\nwant the good one:\n%s", err, got, good)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("a failed write left %s behind", e.Name())
		}
	}
	if fi, err := os.Stat(Results(dir)); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("results.json's mode: %v, %v; want 0644", fi.Mode(), err)
	}

	// A kill leaves the temp file itself: readers open files by name and never see it.
	stray := filepath.Join(dir, ".tmp-"+record.ResultsFile+"-123456")
	if err := os.WriteFile(stray, good[:len(good)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".tmp-"+record.SweepFile+"-99"), []byte(`{"plan":`), 0o644); err != nil {
		t.Fatal(err)
	}
	want := results("ledger", "passed", 2)
	for name, read := range map[string]func(string) (*tally.Results, error){"ReadResults": ReadResults, "ReadCounts": ReadCounts} {
		if got, err := read(dir); err != nil || !reflect.DeepEqual(got.Cells, want.Cells) {
			t.Errorf("%s beside a stray temp file = %+v, %v", name, got, err)
		}
	}
	if m, err := Merge(filepath.Join(t.TempDir(), "merged"), []string{dir}); err != nil || m.Cells[0].Runs != 2 {
		t.Errorf("Merge beside a stray temp file: %+v, %v", m, err)
	}
}

// TestWriteMergedIsAtomic: a merge that cannot read an input's runs leaves the runs.jsonl of
// the merge before it whole, not truncated.
func TestWriteMergedIsAtomic(t *testing.T) {
	tmp := t.TempDir()
	a := output(t, filepath.Join(tmp, "a"), results("ledger", "passed", 2), `{"client":"raw"}`+"\n")
	out := filepath.Join(tmp, "merged")
	merged, err := Merge(out, []string{a})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteMerged(out, []string{a}, merged); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(out, record.RunsFile))
	if err != nil || len(before) == 0 {
		t.Fatalf("the merged runs.jsonl: %q, %v", before, err)
	}
	// An input whose runs cannot be read (here a folder in the file's place) fails the merge.
	bad := output(t, filepath.Join(tmp, "bad"), results("ledger", "passed", 1), "")
	os.Remove(filepath.Join(bad, record.RunsFile))
	os.Mkdir(filepath.Join(bad, record.RunsFile), 0o755)
	if err := WriteMerged(out, []string{bad, a}, merged); err == nil {
		t.Fatal("WriteMerged of an input whose runs.jsonl is a folder succeeded")
	}
	if after, err := os.ReadFile(filepath.Join(out, record.RunsFile)); err != nil || string(after) != string(before) {
		t.Errorf("the merged runs.jsonl after a failed merge (%v): %q, want it as before: %q", err, after, before)
	}
}
