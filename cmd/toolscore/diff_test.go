package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/tally"
)

// TestDiffCmd compares hand-made sweeps and a baseline: what each format prints, and the exit
// code (0 when no cell changed, 1 when one did).
func TestDiffCmd(t *testing.T) {
	tmp := t.TempDir()
	a := writeSweep(t, tmp, "a", madeSweep("ledger", sweepStart, "threw", false), "")
	// The same counts, another day: timings, examples and cell order differ, counts do not.
	again := madeSweep("ledger", sweepStart.Add(24*time.Hour), "threw", false)
	again.Cells[0], again.Cells[7] = again.Cells[7], again.Cells[0]
	for _, c := range again.Cells {
		c.MedianMillis, c.Examples = 99, nil
	}
	same := writeSweep(t, tmp, "same", again, "")
	changed := writeSweep(t, tmp, "changed", madeSweep("ledger", sweepStart, "passed", true), "")
	grown := madeSweep("ledger", sweepStart, "threw", false)
	grown.Cells = append(grown.Cells[1:], &tally.Cell{Cell: record.Cell{Client: "mcp-go/call", Fault: "clean", Schema: "hidden", Transport: "http"},
		Runs: 2, Planned: 2, Outcome: map[string]int{"passed": 2}})
	regrown := writeSweep(t, tmp, "grown", grown, "")
	if _, stderr, code := toolscore(t, tmp, "baseline", a, "--out", "base.json"); code != 0 {
		t.Fatalf("baseline: exit %d\n%s", code, stderr)
	}

	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"same counts", []string{"diff", a, same}, 0, []string{"no cell changed: the 8 cells of " + same + " have the counts of " + a + "\n"}},
		{"a results.json", []string{"diff", filepath.Join(a, "results.json"), same}, 0, []string{"no cell changed"}},
		{"changed, text", []string{"diff", a, changed}, 1, []string{
			"1 cell changed from " + a + " to " + changed + ":\n\n" +
				"client       fault      schema     before     now\n" +
				"go-sdk/call  type-swap  published  threw 2/2  passed 2/2\n"}},
		{"changed, md", []string{"diff", "--format", "md", a, changed}, 1, []string{
			"| client | fault | schema | before | now |\n|---|---|---|---|---|\n| go-sdk/call | type-swap | published | threw 2/2 | **passed 2/2** |\n"}},
		{"new and gone", []string{"diff", a, regrown}, 1, []string{
			"2 cells changed",
			"client       fault  schema  transport  before               now\n",
			"mcp-go/call  clean  hidden  http       not in the baseline  passed 2/2\n",
			"raw          clean  hidden  stdio      passed 2/2           not run\n"}},
		{"baseline as BASE", []string{"diff", "base.json", same}, 0, []string{"no cell changed: the 8 cells of " + same + " have the counts of base.json"}},
		{"baseline, changed", []string{"diff", "base.json", changed, "--format=text"}, 1, []string{"go-sdk/call  type-swap  published  threw 2/2  passed 2/2"}},
		{"json, none", []string{"diff", "--format", "json", a, same}, 0, []string{`"changes": []`, `"cells": 8`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := toolscore(t, tmp, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
		})
	}

	// The json format is the changes as tally.Diff gives them.
	stdout, _, code := toolscore(t, tmp, "diff", "--format", "json", "base.json", changed)
	var got report.Diff
	if err := json.Unmarshal([]byte(stdout), &got); err != nil || code != 1 {
		t.Fatalf("exit %d, %v:\n%s", code, err, stdout)
	}
	want := tally.Change{Key: "go-sdk/call|type-swap|published|stdio", Cell: record.Cell{Client: "go-sdk/call", Fault: "type-swap", Schema: "published", Protocol: "as-is", Transport: "stdio"},
		Kind: "changed", Before: "threw 2/2", After: "passed 2/2"}
	if got.Base != "base.json" || got.New != changed || got.Cells != 8 || len(got.Changes) != 1 || got.Changes[0] != want {
		t.Errorf("json = %+v, want base.json, %s, 8 cells and the change %+v", got, changed, want)
	}
}

func TestDiffCmdErrors(t *testing.T) {
	tmp := t.TempDir()
	a := writeSweep(t, tmp, "a", madeSweep("ledger", sweepStart, "threw", false), "")
	other := writeSweep(t, tmp, "other", madeSweep("weather", sweepStart, "threw", false), "")
	write := func(name, content string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bad := write("bad.json", "{\n  \"scenario\": \"x\",\n  oops\n}")
	future := write("future.json", `{"format": "toolscore-baseline/2", "scenario": "ledger", "cells": []}`)
	twice := write("twice.json", `{"format": "toolscore-baseline/1", "scenario": "ledger", "cells": [
  {"client": "raw", "fault": "clean", "schema": "hidden", "transport": "stdio", "outcomes": {"passed": 2}},
  {"client": "raw", "fault": "clean", "schema": "hidden", "transport": "stdio", "outcomes": {"passed": 2}}]}`)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no files", []string{"diff"}, "want BASE and NEW, got 0 arguments"},
		{"one file", []string{"diff", a}, "want BASE and NEW, got 1 arguments"},
		{"three files", []string{"diff", a, a, a}, "want BASE and NEW, got 3 arguments"},
		{"missing BASE", []string{"diff", filepath.Join(tmp, "nope.json"), a}, "nope.json: no such file"},
		{"missing NEW", []string{"diff", a, filepath.Join(tmp, "gone")}, "gone: no such file"},
		{"a directory without results", []string{"diff", a, tmp}, filepath.Join(tmp, "results.json") + ": no such file"},
		{"bad json", []string{"diff", bad, a}, "bad.json:3:3: not valid JSON"},
		{"other format", []string{"diff", future, a}, `future.json is not a usable toolscore baseline: format "toolscore-baseline/2"`},
		{"bad baseline", []string{"diff", twice, a}, "twice.json is not a usable toolscore baseline: cells[1]: raw × clean × hidden × stdio is listed twice"},
		{"different scenarios", []string{"diff", a, other}, `hold different scenarios ("ledger" and "weather")`},
		{"unknown format", []string{"diff", "--format", "html", a, a}, `unknown --format "html"`},
		{"unknown flag", []string{"diff", "--colour", a, a}, "flag provided but not defined"},
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

// TestBaselineCmd: the baseline holds only counts, sorted, so a sweep with equal counts gives
// the same bytes; results that are part of a matrix are refused.
func TestBaselineCmd(t *testing.T) {
	tmp := t.TempDir()
	a := writeSweep(t, tmp, "a", madeSweep("ledger", sweepStart, "threw", false), "")
	if _, stderr, code := toolscore(t, tmp, "baseline", a, "--out", "first.json"); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	first, err := os.ReadFile(filepath.Join(tmp, "first.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "format": "toolscore-baseline/1",
  "scenario": "ledger",
  "cells": [
    {
      "client": "go-sdk/call",
      "fault": "clean",
      "schema": "hidden",
      "transport": "stdio",
      "outcomes": {
        "passed": 2
      }
    },
`
	if !strings.HasPrefix(string(first), want) || !strings.HasSuffix(string(first), "}\n") {
		t.Errorf("baseline starts:\n%.400s\nwant:\n%s", first, want)
	}
	for _, leak := range []string{"started", "median", "tee", "evidence", "toolscore\"", "backend", "expect", tmp} {
		if strings.Contains(string(first), leak) {
			t.Errorf("baseline holds %q:\n%s", leak, first)
		}
	}

	// Re-run with the same counts: another start, other timings and examples, cells in another
	// order, a merged sweep's bookkeeping. The baseline must not move by a byte.
	again := madeSweep("ledger", sweepStart.Add(48*time.Hour), "threw", false)
	again.Toolscore, again.Backend, again.BackendWhy = "v9", "docker", "a Docker daemon answered"
	for i, j := 0, len(again.Cells)-1; i < j; i, j = i+1, j-1 {
		again.Cells[i], again.Cells[j] = again.Cells[j], again.Cells[i]
	}
	for _, c := range again.Cells {
		c.MedianMillis, c.Library = 1234, "go-sdk v1.9.0"
		c.Examples = map[string]tally.Example{"passed": {Run: 2, Evidence: "other", Tee: "x/tee.jsonl"}}
	}
	again.Expectations = nil
	writeSweep(t, tmp, "toolscore-out/20260402-120000", again, "")
	// With no RESULTS named, the newest sweep under ./toolscore-out is taken, into the default file.
	if _, stderr, code := toolscore(t, tmp, "baseline"); code != 0 || !strings.Contains(stderr, "wrote toolscore-baseline.json: the counts of 8 cells of ledger") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	second, err := os.ReadFile(filepath.Join(tmp, defaultBaseline))
	if err != nil {
		t.Fatal(err)
	}
	if string(second) != string(first) {
		t.Errorf("equal counts gave another baseline:\n%s\nfirst:\n%s", second, first)
	}
	// Re-baselining the baseline itself changes nothing either.
	if _, stderr, code := toolscore(t, tmp, "baseline", defaultBaseline, "--out", "third.json"); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if third, _ := os.ReadFile(filepath.Join(tmp, "third.json")); string(third) != string(first) {
		t.Errorf("a baseline of the baseline differs:\n%s", third)
	}

	interrupted := madeSweep("ledger", sweepStart, "threw", false)
	interrupted.Interrupted = true
	shard := madeSweep("ledger", sweepStart, "threw", false)
	shard.Shard = "2/3"
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"interrupted", []string{"baseline", writeSweep(t, tmp, "interrupted", interrupted, "")}, "is of an interrupted sweep"},
		{"a shard", []string{"baseline", writeSweep(t, tmp, "shard", shard, "")}, "is shard 2/3 only; merge the shards"},
		{"two results", []string{"baseline", a, a}, "want at most one results.json, got 2"},
		{"missing", []string{"baseline", "nope"}, "nope: no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := toolscore(t, tmp, append(tc.args, "--out", "refused.json")...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d (want 2), stderr lacks %q:\n%s", code, tc.want, stderr)
			}
			if _, err := os.Stat(filepath.Join(tmp, "refused.json")); err == nil {
				t.Error("a refused baseline was written")
			}
		})
	}
	// Nothing under ./toolscore-out: say what to name.
	if _, stderr, code := toolscore(t, t.TempDir(), "baseline"); code != 2 || !strings.Contains(stderr, "no results under ./toolscore-out") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
}
