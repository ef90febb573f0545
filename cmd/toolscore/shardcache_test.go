package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/tally"
)

// TestCellCacheShards: a sweep sharded with --shard alone deals each cell's runs over the
// shards, so no shard runs a cell whole; the cache keeps each shard's slice of a cell, and the
// same shards run again reuse every run and start no client. Before, only whole cells were
// kept, and examples/workflows/sharded.yml without shard-by re-ran everything every time.
func TestCellCacheShards(t *testing.T) {
	f := newCacheFixture(t, "one")
	f.manifest(3, "  - name: one\n    runtime: binary\n    command: [./count-one.sh]\n")
	cache := filepath.Join(t.TempDir(), "cells")
	shard := func(s string) *tally.Results {
		t.Helper()
		res, stderr, err := f.tryArgs(cache, []string{"--shard", s})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("shard %s: %d runs executed, %d reused", s, res.RunsExecuted, res.RunsReused)
		if t.Failed() {
			t.Log(stderr)
		}
		return res
	}
	// 4 cells × 3 runs over 2 shards: run k of the matrix falls in shard k%2+1, so every cell
	// has runs in both.
	shards := []string{"1/2", "2/2"}
	var first, second [2]*tally.Results
	for i, s := range shards {
		first[i] = shard(s)
	}
	before := f.starts()["one"]
	for i, s := range shards {
		second[i] = shard(s)
	}
	if started := f.starts()["one"] - before; started != 0 {
		t.Errorf("the shards run again started the client %d times, want none", started)
	}
	for i, s := range shards {
		a, b := first[i], second[i]
		if a.RunsExecuted != 6 || a.RunsReused != 0 {
			t.Errorf("shard %s first: %d runs executed, %d reused; want 6 and 0", s, a.RunsExecuted, a.RunsReused)
		}
		if b.RunsExecuted != 0 || b.RunsReused != 6 {
			t.Errorf("shard %s again: %d runs executed, %d reused; want 0 and 6", s, b.RunsExecuted, b.RunsReused)
		}
		for k, c := range b.Cells {
			if c.Runs == 0 {
				continue
			}
			if c.ReusedFrom == nil || !c.ReusedFrom.Equal(a.Started) || c.CacheKey == "" {
				t.Errorf("shard %s cell %s: reused_from %v, cache_key %q; want the first sweep's start %v", s, c.Key(), c.ReusedFrom, c.CacheKey, a.Started)
			}
			if w := a.Cells[k]; !reflect.DeepEqual(w.Outcome, c.Outcome) || w.Runs != c.Runs {
				t.Errorf("shard %s cell %s: %v in %d runs, first %v in %d", s, c.Key(), c.Outcome, c.Runs, w.Outcome, w.Runs)
			}
		}
	}
	if k0, k1 := second[0].Cells[0].CacheKey, second[1].Cells[0].CacheKey; k0 == k1 {
		t.Errorf("both shards' slices of cell %s have the key %s: a slice's entry would serve the other's runs", second[0].Cells[0].Key(), k0)
	}
}

// TestMergeReusedShardWithRanShard (issue 48, item 12): a shard that reused its slice of every
// cell merged with a shard that ran its own keeps, cell by cell, where the reused runs came
// from (reused_from, cache_key, runs_reused) and says the cells are partly reused, in either
// order of the inputs; the headline counts the runs that ran and those reused. Before, the
// first input decided: every cell reused whole ("4 cells: 0 ran, 4 reused"), or none ("4 ran,
// none reused") beside runs_reused 4.
func TestMergeReusedShardWithRanShard(t *testing.T) {
	f := newCacheFixture(t, "one")
	f.manifest(2, "  - name: one\n    runtime: binary\n    command: [./count-one.sh]\n")
	cache := filepath.Join(t.TempDir(), "cells")
	shard := func(s, cache string) (string, *tally.Results) {
		t.Helper()
		res, stderr, err := f.tryArgs(cache, []string{"--shard", s})
		if err != nil {
			t.Fatal(err)
		}
		if t.Failed() {
			t.Log(stderr)
		}
		return filepath.Join(f.logs+"-out", fmt.Sprint(f.n)), res
	}
	_, first := shard("1/2", cache)
	reusedDir, reused := shard("1/2", cache)
	ranDir, ran := shard("2/2", filepath.Join(t.TempDir(), "other-cells"))
	if reused.RunsReused != 4 || reused.RunsExecuted != 0 || ran.RunsExecuted != 4 || ran.RunsReused != 0 {
		t.Fatalf("shard 1/2 again: %d ran, %d reused; shard 2/2: %d ran, %d reused; want 0, 4 and 4, 0",
			reused.RunsExecuted, reused.RunsReused, ran.RunsExecuted, ran.RunsReused)
	}
	for name, inputs := range map[string][]string{"reused first": {reusedDir, ranDir}, "ran first": {ranDir, reusedDir}} {
		out := filepath.Join(t.TempDir(), "merged")
		stdout, stderr, code := toolscore(t, f.dir, append([]string{"merge", "--out", out}, inputs...)...)
		if code != 0 {
			t.Fatalf("%s: merge exited %d:\n%s", name, code, stderr)
		}
		const head = "4 cells: 0 ran, 0 reused, 4 partly reused (4 of 8 runs from the cell cache), server answers verified"
		if !strings.Contains(stdout, head) {
			t.Errorf("%s: the merge's headline does not say %q:\n%s", name, head, stdout)
		}
		m := readResultsDir(t, out)
		if m.RunsExecuted != 4 || m.RunsReused != 4 {
			t.Errorf("%s: %d runs executed, %d reused; want 4 and 4", name, m.RunsExecuted, m.RunsReused)
		}
		for i, c := range m.Cells {
			want := reused.Cells[i]
			if c.Runs != 2 || c.RunsReused != 1 || c.ReusedFrom == nil || !c.ReusedFrom.Equal(first.Started) || c.CacheKey != want.CacheKey {
				t.Errorf("%s: cell %s: %d runs, %d reused, reused_from %v, cache_key %q; want 2 runs, 1 reused from %v, entry %q",
					name, c.Key(), c.Runs, c.RunsReused, c.ReusedFrom, c.CacheKey, first.Started, want.CacheKey)
			}
		}
		html, _ := os.ReadFile(filepath.Join(out, "report.html"))
		if !strings.Contains(string(html), "1 of 2 runs reused from the cell cache") {
			t.Errorf("%s: report.html does not mark the cells partly reused", name)
		}
		junit, _ := os.ReadFile(filepath.Join(out, "junit.xml"))
		ctrf, _ := os.ReadFile(filepath.Join(out, "ctrf.json"))
		if !strings.Contains(string(junit), `name="runs_reused" value="1"`) || !strings.Contains(string(ctrf), `"runs_reused": 1`) {
			t.Errorf("%s: junit.xml or ctrf.json does not say the cells are partly reused", name)
		}
	}
}

// TestMergeRefusesReusedRunsTwice (issue 48, item 12): a sweep that reused every cell of an
// earlier sweep from the cell cache holds that sweep's very runs; merging the two would count
// each run twice, so merge refuses, exit 2 naming both and one run. Before, it added them up
// as more runs of the same cells.
func TestMergeRefusesReusedRunsTwice(t *testing.T) {
	f := newCacheFixture(t, "one")
	f.manifest(1, "  - name: one\n    runtime: binary\n    command: [./count-one.sh]\n")
	cache := filepath.Join(t.TempDir(), "cells")
	var dirs []string
	for range 2 {
		if _, stderr, err := f.tryArgs(cache, nil); err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		dirs = append(dirs, filepath.Join(f.logs+"-out", fmt.Sprint(f.n)))
	}
	if r := readResultsDir(t, dirs[1]); r.RunsReused != 4 {
		t.Fatalf("the second sweep reused %d runs, want all 4", r.RunsReused)
	}
	out := filepath.Join(t.TempDir(), "merged")
	_, stderr, code := toolscore(t, f.dir, "merge", "--out", out, dirs[0], dirs[1])
	want := dirs[0] + " and " + dirs[1] + " overlap: " + dirs[1] + " reused from the cell cache the runs of the sweep in " + dirs[0]
	if code != 2 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "run 1 of the cell one|") {
		t.Errorf("merge of a sweep and the one that reused its runs: exit %d, want 2 saying %q and naming a run:\n%s", code, want, stderr)
	}
}
