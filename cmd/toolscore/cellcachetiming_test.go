package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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

// sweep serves cfg and sweeps once: whether the cell was reused, its outcome, and the log.
func (c *oneCellCache) sweep(cfg twoToolsConfig) (reused bool, outcome, stderr string) {
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
	res := readResultsDir(c.t, out)
	if len(res.Cells) != 1 {
		c.t.Fatalf("sweep %d: %d cells, want 1", c.n, len(res.Cells))
	}
	cell := res.Cells[0]
	var outcomes []string
	for o, n := range cell.Outcome {
		outcomes = append(outcomes, fmt.Sprintf("%s %d", o, n))
	}
	return cell.ReusedFrom != nil, strings.Join(outcomes, ", "), stderr
}

// TestCellCacheChecksTiming (issue 48): the check of the server before reuse compares when its
// answers come, on the cell's own timeout. A server that became slower than the timeout runs
// its cell again (where it hangs), and once fast again, the cached hung cell is not reused
// either: it runs, and passes. A server as fast as before is reused.
func TestCellCacheChecksTiming(t *testing.T) {
	t.Parallel()
	c := newOneCellCache(t, "tool: a\nfaults: [clean]\nschema_modes: [as-is]\nclients: [raw]\nruns: 1\ntimeout: 2s\n")
	if reused, outcome, log := c.sweep(twoToolsConfig{A: "alpha"}); reused || outcome != "passed 1" {
		t.Fatalf("first sweep: reused %v, %s:\n%s", reused, outcome, log)
	}
	// Slower than the cell's timeout: the cached "passed" is not what a client sees now.
	if reused, outcome, log := c.sweep(twoToolsConfig{A: "alpha", DelayMS: 3000}); reused || outcome != "hung 1" {
		t.Fatalf("a server slower than the timeout: reused %v, %s; want the cell run, hung:\n%s", reused, outcome, log)
	}
	// Fast again: the cached "hung" was the server's time, and is not kept.
	if reused, outcome, log := c.sweep(twoToolsConfig{A: "alpha"}); reused || outcome != "passed 1" {
		t.Fatalf("a server fast again: reused %v, %s; want the cell run, passed:\n%s", reused, outcome, log)
	}
	if reused, outcome, log := c.sweep(twoToolsConfig{A: "alpha"}); !reused || outcome != "passed 1" {
		t.Fatalf("a server as fast as the cached run: reused %v, %s; want it reused, passed:\n%s", reused, outcome, log)
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
