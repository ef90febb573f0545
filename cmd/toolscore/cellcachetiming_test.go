package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// oneCellCache is a one-cell scenario of the two-tools server (tool a, the raw client, one run)
// swept again and again with one cell cache, the server's behaviour set by its config file
// before each sweep.
type oneCellCache struct {
	t                  *testing.T
	dir, cache, config string
	mu                 sync.Mutex
	n                  int
}

func newOneCellCache(t *testing.T, manifest string) *oneCellCache {
	t.Helper()
	c := &oneCellCache{t: t, dir: t.TempDir(), cache: filepath.Join(t.TempDir(), "cells"), config: filepath.Join(t.TempDir(), "twotools.json")}
	writeFile(t, filepath.Join(c.dir, "m.yaml"), "name: one cell\nserver:\n  command: [\""+os.Args[0]+"\", badserver, twotools, \""+c.config+"\"]\n"+manifest)
	return c
}

// sweep serves cfg and sweeps once: whether the first cell was reused, its outcome, and the log.
func (c *oneCellCache) sweep(cfg twoToolsConfig) (reused bool, outcome, stderr string) {
	c.t.Helper()
	cells, stderr := c.sweepAll(cfg)
	if len(cells) != 1 {
		c.t.Fatalf("sweep %d: %d cells, want 1", c.n, len(cells))
	}
	for _, cell := range cells {
		reused, outcome = cell.reused, cell.outcome
	}
	return reused, outcome, stderr
}

// cellSeen is what a sweep did with one cell: reused or not, and its outcome ("passed 1").
type cellSeen struct {
	reused  bool
	outcome string
}

// sweepAll serves cfg and sweeps once: each cell, by client, and the log.
func (c *oneCellCache) sweepAll(cfg twoToolsConfig) (map[string]cellSeen, string) {
	c.t.Helper()
	b, _ := json.Marshal(cfg)
	writeFile(c.t, c.config, string(b))
	c.mu.Lock()
	c.n++
	out := filepath.Join(c.dir, fmt.Sprintf("out%d", c.n))
	c.mu.Unlock()
	_, stderr, code := toolscore(c.t, c.dir, "run", "m.yaml", "--backend", "local", "--out", out, "--cache", c.cache)
	if code != 0 && code != 1 {
		c.t.Fatalf("sweep %d exited %d:\n%s", c.n, code, stderr)
	}
	c.t.Logf("sweep %d:\n%s", c.n, stderr)
	cells := map[string]cellSeen{}
	for _, cell := range readResultsDir(c.t, out).Cells {
		var outcomes []string
		for o, n := range cell.Outcome {
			outcomes = append(outcomes, fmt.Sprintf("%s %d", o, n))
		}
		slices.Sort(outcomes)
		cells[cell.Client] = cellSeen{cell.ReusedFrom != nil, strings.Join(outcomes, ", ")}
	}
	return cells, stderr
}

// TestCellCacheChecksTiming (issue 48): the check of the server before reuse compares when its
// answers come, on the cell's own timeout. A server that became slower than the timeout runs
// its cells again (where the raw client hangs and go-sdk throws), and once fast again, those
// cached cells are not reused either: they run, and pass. A server as fast as before is reused.
func TestCellCacheChecksTiming(t *testing.T) {
	t.Parallel()
	c := newOneCellCache(t, "tool: a\nfaults: [clean]\nschema_modes: [as-is]\nclients: [raw, go-sdk/call]\nruns: 1\ntimeout: 4s\n")
	fast, slow := twoToolsConfig{A: "alpha"}, twoToolsConfig{A: "alpha", DelayMS: 5000}
	for _, step := range []struct {
		what   string
		serve  twoToolsConfig
		reused bool
	}{
		{"first sweep", fast, false},
		// Slower than the cell's timeout: the cached "passed" is not what a client sees now. A
		// timeout of 4s: a fast answer must come within a quarter of it, 1s, on a loaded machine too.
		{"a server slower than the timeout", slow, false},
		// Fast again: the cached outcomes were the server's time, and are not kept.
		{"a server fast again", fast, false},
		{"a server as fast as the cached run", fast, true},
	} {
		cells, log := c.sweepAll(step.serve)
		for client, cell := range cells {
			passed := cell.outcome == "passed 1"
			if cell.reused != step.reused || passed != (step.serve.DelayMS == 0) {
				t.Fatalf("%s: %s reused %v, %s; want reused %v, passed %v:\n%s", step.what, client, cell.reused, cell.outcome, step.reused, step.serve.DelayMS == 0, log)
			}
		}
	}
}

// TestCellCacheChecksProxySession (issue 48): the schema faults pick their field from the
// outputSchema the proxy asks a fresh server for, in a session of its own that no client sees.
// A server that publishes another outputSchema, its tools/call answers byte for byte the same,
// runs the cell again; one that publishes the same is reused.
func TestCellCacheChecksProxySession(t *testing.T) {
	t.Parallel()
	c := newOneCellCache(t, "tool: a\nfaults: [type-swap]\nschema_modes: [as-is]\nclients: [raw]\nruns: 1\n")
	schema := func(field string) map[string]any {
		return map[string]any{"type": "object", "properties": map[string]any{field: map[string]any{"type": "string"}}, "required": []string{field}}
	}
	if reused, _, log := c.sweep(twoToolsConfig{A: "alpha", Schema: schema("value")}); reused {
		t.Fatalf("first sweep reused its cell:\n%s", log)
	}
	if reused, _, log := c.sweep(twoToolsConfig{A: "alpha", Schema: schema("value")}); !reused {
		t.Fatalf("the same schema: the cell ran again, want it reused:\n%s", log)
	}
	if reused, _, log := c.sweep(twoToolsConfig{A: "alpha", Schema: schema("other")}); reused {
		t.Fatalf("another published outputSchema: the cell was reused, want it run:\n%s", log)
	}
}

// TestCellCacheChecksNotifications (issue 48): what the server sends before an answer
// (notifications, its own requests) is compared too: a server that now logs a message before
// its answer, the answer byte for byte the same, runs the cell again.
func TestCellCacheChecksNotifications(t *testing.T) {
	t.Parallel()
	c := newOneCellCache(t, "tool: a\nfaults: [clean]\nschema_modes: [as-is]\nclients: [raw]\nruns: 1\n")
	if reused, _, log := c.sweep(twoToolsConfig{A: "alpha"}); reused {
		t.Fatalf("first sweep reused its cell:\n%s", log)
	}
	if reused, _, log := c.sweep(twoToolsConfig{A: "alpha", Notify: "hello"}); reused {
		t.Fatalf("a notification before the answer: the cell was reused, want it run:\n%s", log)
	}
	if reused, _, log := c.sweep(twoToolsConfig{A: "alpha", Notify: "hello"}); !reused {
		t.Fatalf("the same notification: the cell ran again, want it reused:\n%s", log)
	}
}
