package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// toolscore runs the test binary as toolscore in dir and returns what it printed and its exit
// code.
func toolscore(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// madeSweep is a hand-made results.json of one shard: raw and go-sdk/call on clean and type-swap,
// with the schema hidden and published.
func madeSweep(scenario string, started time.Time, typeSwap string, held bool) *tally.Results {
	r := &tally.Results{Scenario: scenario, Toolscore: "test", Backend: "local", Started: started, Finished: started.Add(time.Minute)}
	for _, schema := range []string{"hidden", "published"} {
		for _, fault := range []string{"clean", "type-swap"} {
			for _, client := range []string{"raw", "go-sdk/call"} {
				outcome := "passed"
				if schema == "published" && fault == "type-swap" && client == "go-sdk/call" {
					outcome = typeSwap
				}
				c := &tally.Cell{Cell: record.Cell{Client: client, Fault: fault, Schema: schema, Protocol: "as-is", Transport: "stdio"}, Runs: 2, Planned: 2,
					Outcome:  map[string]int{outcome: 2},
					Examples: map[string]tally.Example{outcome: {Run: 1, Evidence: outcome + " in " + scenario, Tee: "cells/" + client + "/1/tee.jsonl"}}}
				r.Cells = append(r.Cells, c)
			}
		}
	}
	e := tally.Expectation{Line: 9, Fault: "type-swap", Outcome: "passed", Status: tally.Held, Held: held}
	if !held {
		e.Status = tally.Unmet
		e.Misses = []string{"go-sdk/call|type-swap|published|stdio: " + typeSwap + " 2/2"}
	}
	r.Expectations = []tally.Expectation{e}
	return r
}

// writeSweep writes r as results.json into a new directory under parent, with a runs.jsonl of
// the given lines, as toolscore run --out leaves it.
func writeSweep(t *testing.T, parent, name string, r *tally.Results, runs string) string {
	t.Helper()
	dir := filepath.Join(parent, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "runs.jsonl"), []byte(runs), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

var sweepStart = time.Date(2026, 3, 31, 12, 0, 0, 0, time.UTC)

func TestReport(t *testing.T) {
	tmp := t.TempDir()
	dir := writeSweep(t, tmp, "a", madeSweep("ledger", sweepStart, "threw", false), "")
	file := filepath.Join(dir, "results.json")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"text by default", []string{"report", file}, []string{"ledger: 16 of 16 runs in 8 cells", "else per schema mode (hidden, published)\nfault", "type-swap  passed 2/2  hidden: passed 2/2\n", "published: threw 2/2\n", "expect at line 9: client * fault type-swap schema * → want passed"}},
		{"flag first", []string{"report", "--format", "text", file}, []string{"Publishing the schema changed:\n  go-sdk/call  passed 2/2 (hidden) → threw 2/2 (published)  type-swap\n"}},
		{"a directory", []string{"report", dir}, []string{"ledger: 16 of 16 runs"}},
		{"markdown", []string{"report", file, "--format", "md"}, []string{"# toolscore: ledger\n", "| type-swap | passed 2/2 | threw 2/2 |", "## Unmet expectations"}},
		{"json", []string{"report", file, "-format=json"}, []string{`"scenario": "ledger"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := toolscore(t, tmp, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("output lacks %q:\n%s", w, stdout)
				}
			}
		})
	}

	// The json format gives back what it read.
	stdout, _, _ := toolscore(t, tmp, "report", "--format", "json", file)
	var got tally.Results
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	if want := madeSweep("ledger", sweepStart, "threw", false); !reflect.DeepEqual(&got, want) {
		t.Errorf("report --format json changed the results:\n%+v\nwant:\n%+v", &got, want)
	}
}

func TestReportErrors(t *testing.T) {
	tmp := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bad := write("bad.json", "{\n  \"scenario\": \"x\",\n  oops\n}")
	notResults := write("other.json", `{"name": "a manifest, not results"}`)
	wrongType := write("array.json", `[1, 2]`)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no file", []string{"report"}, "want one results.json, got 0"},
		{"two files", []string{"report", bad, bad}, "want one results.json, got 2"},
		{"missing", []string{"report", filepath.Join(tmp, "nope.json")}, "nope.json: no such file"},
		{"bad json", []string{"report", bad}, "bad.json:3:3: not valid JSON"},
		{"not results", []string{"report", notResults}, "other.json is not a toolscore results.json: it names no scenario"},
		{"wrong type", []string{"report", wrongType}, "array.json is not a toolscore results.json"},
		{"unknown format", []string{"report", "--format", "pdf", bad}, `unknown --format "pdf"`},
		{"unknown flag", []string{"report", "--colour", bad}, "flag provided but not defined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := toolscore(t, tmp, tc.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr)
			}
			if stdout != "" {
				t.Errorf("printed on stdout:\n%s", stdout)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	tmp := t.TempDir()
	writeSweep(t, tmp, "a", madeSweep("ledger", sweepStart, "threw", false), "{\"run\":1}\n{\"run\":2}\n")
	b := writeSweep(t, tmp, "b", madeSweep("ledger", sweepStart.Add(-time.Hour), "passed", true), "{\"run\":3}") // no final newline
	writeSweep(t, tmp, "c", madeSweep("ledger", sweepStart.Add(time.Hour), "threw", false), "")
	out := filepath.Join(tmp, "merged")
	stdout, stderr, code := toolscore(t, tmp, "merge", "a", "--out", out, "b", "c")
	if code != 1 {
		t.Errorf("exit %d, want 1 (an expectation did not hold); stderr:\n%s", code, stderr)
	}
	for _, w := range []string{"ledger: 48 of 48 runs in 8 cells", "type-swap  passed 6/6  hidden: passed 6/6\n", "published:\n", "  threw 4/6, passed 2/6\n", "expect at line 9"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, stdout)
		}
	}

	runs, err := os.ReadFile(filepath.Join(out, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\"run\":1}\n{\"run\":2}\n{\"run\":3}\n"; string(runs) != want {
		t.Errorf("runs.jsonl = %q, want %q", runs, want)
	}
	if md, err := os.ReadFile(filepath.Join(out, "summary.md")); err != nil || !strings.Contains(string(md), "| type-swap | passed 6/6 | threw 4/6, passed 2/6 (mixed) |") {
		t.Errorf("summary.md (%v):\n%s", err, md)
	}
	got, err := outdir.ReadResults(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !got.Started.Equal(sweepStart.Add(-time.Hour)) || !got.Finished.Equal(sweepStart.Add(time.Hour+time.Minute)) {
		t.Errorf("started %v, finished %v; want the earliest start and the latest finish", got.Started, got.Finished)
	}
	// The shards' cells each agree, the merged one does not: it is mixed.
	if len(got.Cells) != 8 || got.Cells[7].Runs != 6 || got.Cells[7].Planned != 6 || !got.Cells[7].Mixed {
		t.Errorf("cells: %d, last %+v", len(got.Cells), got.Cells[len(got.Cells)-1])
	}
	if len(got.Expectations) != 1 || got.Expectations[0].Held || len(got.Expectations[0].Misses) != 2 {
		t.Errorf("expectations = %+v, want line 9 not held, with the misses of a and c", got.Expectations)
	}
	// Example transcripts still lead to their files from the merged directory.
	if tee := got.Cells[0].Examples["passed"].Tee; tee != "../a/cells/raw/1/tee.jsonl" {
		t.Errorf("example transcript = %q, want it relative to the merged output", tee)
	}

	// Shards whose expectations all held merge to exit 0, into ./toolscore-out/merged-* by default.
	d := writeSweep(t, tmp, "d", madeSweep("ledger", sweepStart, "passed", true), "")
	if _, stderr, code := toolscore(t, tmp, "merge", b, d); code != 0 {
		t.Errorf("exit %d, want 0; stderr:\n%s", code, stderr)
	}
	if m, _ := filepath.Glob(filepath.Join(tmp, "toolscore-out", "merged-*", "results.json")); len(m) != 1 {
		t.Errorf("default output: found %q, want one toolscore-out/merged-*/results.json", m)
	}
}

func TestMergeErrors(t *testing.T) {
	tmp := t.TempDir()
	a := writeSweep(t, tmp, "a", madeSweep("ledger", sweepStart, "threw", false), "")
	other := writeSweep(t, tmp, "other", madeSweep("weather", sweepStart, "threw", false), "")
	noRuns := writeSweep(t, tmp, "noruns", madeSweep("ledger", sweepStart, "threw", false), "")
	if err := os.Remove(filepath.Join(noRuns, "runs.jsonl")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"nothing", []string{"merge"}, "name the output directories"},
		{"different scenarios", []string{"merge", "--out", filepath.Join(tmp, "m1"), a, other}, `different scenarios ("ledger" and "weather")`},
		{"no results", []string{"merge", "--out", filepath.Join(tmp, "m2"), a, tmp}, "results.json: no such file"},
		{"no runs", []string{"merge", "--out", filepath.Join(tmp, "m3"), a, noRuns}, "noruns has results.json but no runs.jsonl"},
		{"twice", []string{"merge", "--out", filepath.Join(tmp, "m4"), a, "a/"}, "is given twice"},
		{"into an input", []string{"merge", "--out", "a", a}, "--out a is one of the inputs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := toolscore(t, tmp, tc.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(tmp, "m1")); err == nil {
		t.Error("a refused merge wrote its output directory")
	}
}
