package main

import (
	"path/filepath"
	"reflect"
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
