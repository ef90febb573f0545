package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/tally"
)

// TestCellCacheSaysWhyCellsRan (issue 52, item 5): why the cells of a sweep with a cell cache
// ran rather than came from it is in results.json, summary.md and report.html, not only on
// stderr: the server answering differently (with a pointer to volatile:, for answers that
// change by design), and an input of the cells' keys changed since their last entries.
func TestCellCacheSaysWhyCellsRan(t *testing.T) {
	f := newCacheFixture(t)
	f.manifest(1, "  - raw\n")
	cache := filepath.Join(t.TempDir(), "cells")
	out := func() string { return filepath.Join(f.logs+"-out", fmt.Sprint(f.n)) }
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(out(), name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	first, _ := f.sweep(cache)
	if len(first.CacheMisses) != 1 || first.CacheMisses[0].Kind != tally.MissNew || first.CacheMisses[0].Cells != 4 {
		t.Errorf("a first sweep's cache misses: %+v; want its 4 cells new", first.CacheMisses)
	}
	if strings.Contains(read("summary.md"), "taken from the cell cache") {
		t.Errorf("a first sweep with an empty cache says why its cells ran:\n%s", read("summary.md"))
	}

	b, _ := json.Marshal(twoToolsConfig{A: "alpha", B: "beta, changed"})
	writeFile(t, f.config, string(b))
	res, stderr := f.sweep(cache)
	want := tally.CacheMiss{Kind: tally.MissServer, Why: "the server answers differently", Cells: 2}
	if len(res.CacheMisses) != 1 || res.CacheMisses[0].Kind != want.Kind || res.CacheMisses[0].Why != want.Why || res.CacheMisses[0].Cells != want.Cells ||
		!strings.HasPrefix(res.CacheMisses[0].First, "b: raw × clean × as-is") {
		t.Fatalf("b answers differently: cache misses %+v; want %+v, first raw × clean of b\n%s", res.CacheMisses, want, stderr)
	}
	md, page := read("summary.md"), read("report.html")
	if !strings.Contains(md, "Run rather than taken from the cell cache:\n\n- 2 cells: the server answers differently (first: b: raw × clean × as-is") ||
		!strings.Contains(md, "names those fields in its `volatile:` list (docs/manifest.md)") {
		t.Errorf("summary.md does not say why 2 cells ran, with the pointer to volatile:\n%s", md)
	}
	if !strings.Contains(page, `<ul id="cache-misses"><li>2 cells: the server answers differently (first: b: raw × clean × as-is`) ||
		!strings.Contains(page, "names those fields in its <code>volatile:</code> list") {
		t.Errorf("report.html does not say why 2 cells ran, with the pointer to volatile:\n%s", page)
	}

	// The timeout is an input of every cell's key: each is another key, and the sweep says
	// what changed since the cells' last entries.
	m, _ := os.ReadFile(filepath.Join(f.dir, "m.yaml"))
	writeFile(t, filepath.Join(f.dir, "m.yaml"), string(m)+"timeout: 20s\n")
	res, stderr = f.sweep(cache)
	if len(res.CacheMisses) != 1 || res.CacheMisses[0].Kind != tally.MissInputs || res.CacheMisses[0].Why != "the timeout changed" || res.CacheMisses[0].Cells != 4 {
		t.Fatalf("a new timeout: cache misses %+v; want the 4 cells' timeout changed\n%s", res.CacheMisses, stderr)
	}
	if md := read("summary.md"); !strings.Contains(md, "- 4 cells: the timeout changed (first: a: raw × clean × as-is") || strings.Contains(md, "volatile") {
		t.Errorf("summary.md after a new timeout:\n%s", md)
	}
	if !strings.Contains(stderr, "cell cache: 4 cells are run again: the timeout changed since their last entry") {
		t.Errorf("the log does not say why the cells ran:\n%s", stderr)
	}
}

// TestCellCacheSaysWhichClientFileChanged (issue 52, item 2): a file added to or edited in the
// folder of a client the manifest defines (its install's inputs) runs its cells again, and the
// sweep says which file, on the log and in summary.md.
func TestCellCacheSaysWhichClientFileChanged(t *testing.T) {
	f := newCacheFixture(t, "counter")
	f.manifest(1, "  - name: counter\n    runtime: binary\n    command: [./count-counter.sh]\n")
	cache := filepath.Join(t.TempDir(), "cells")
	f.sweep(cache)
	writeFile(t, filepath.Join(f.dir, "notes.log"), "a log beside the manifest\n")
	res, stderr := f.sweep(cache)
	want := "the client's files changed (notes.log added)"
	if len(res.CacheMisses) != 1 || res.CacheMisses[0].Kind != tally.MissInputs || res.CacheMisses[0].Why != want || res.CacheMisses[0].Cells != 4 {
		t.Fatalf("notes.log added: cache misses %+v; want the 4 cells' %q\n%s", res.CacheMisses, want, stderr)
	}
	if !strings.Contains(stderr, "cell cache: 4 cells are run again: "+want) {
		t.Errorf("the log does not name the file:\n%s", stderr)
	}
	script := filepath.Join(f.dir, "count-counter.sh")
	b, _ := os.ReadFile(script)
	writeFile(t, script, string(b)+"# edited\n")
	if err := os.Remove(filepath.Join(f.dir, "notes.log")); err != nil {
		t.Fatal(err)
	}
	res, stderr = f.sweep(cache)
	md, _ := os.ReadFile(filepath.Join(f.logs+"-out", fmt.Sprint(f.n), "summary.md"))
	want = "the client's files changed (count-counter.sh changed, notes.log removed)"
	if len(res.CacheMisses) != 1 || res.CacheMisses[0].Why != want || !strings.Contains(string(md), "- 4 cells: "+want) {
		t.Errorf("the adapter edited, the log removed: cache misses %+v; want %q, in summary.md too:\n%s\n%s", res.CacheMisses, want, md, stderr)
	}
}

// TestDefinedClientFiles (issue 52, item 2): a defined client's files: are its inputs, with
// the file its command names: a log written beside the manifest neither installs it afresh nor
// runs its cells again, and an edit to a file it lists does, named.
func TestDefinedClientFiles(t *testing.T) {
	f := newCacheFixture(t, "counter")
	writeFile(t, filepath.Join(f.dir, "lib", "helper.txt"), "v1\n")
	f.manifest(1, "  - name: counter\n    runtime: binary\n    command: [./count-counter.sh]\n    files: [lib/]\n")
	cache := filepath.Join(t.TempDir(), "cells")
	f.sweep(cache)
	writeFile(t, filepath.Join(f.dir, "notes.log"), "a log beside the manifest\n")
	res, stderr := f.sweep(cache)
	if res.RunsReused != 4 || len(res.CacheMisses) != 0 {
		t.Errorf("notes.log, not among the client's files, added: %d runs reused, cache misses %+v; want all 4 reused\n%s", res.RunsReused, res.CacheMisses, stderr)
	}
	writeFile(t, filepath.Join(f.dir, "lib", "helper.txt"), "v2\n")
	res, stderr = f.sweep(cache)
	want := "the client's files changed (lib/helper.txt changed)"
	if res.RunsReused != 0 || len(res.CacheMisses) != 1 || res.CacheMisses[0].Why != want {
		t.Errorf("lib/helper.txt edited: %d runs reused, cache misses %+v; want none reused, %q\n%s", res.RunsReused, res.CacheMisses, want, stderr)
	}
	script := filepath.Join(f.dir, "count-counter.sh")
	b, _ := os.ReadFile(script)
	writeFile(t, script, string(b)+"# edited\n")
	res, stderr = f.sweep(cache)
	want = "the client's files changed (count-counter.sh changed)"
	if res.RunsReused != 0 || len(res.CacheMisses) != 1 || res.CacheMisses[0].Why != want {
		t.Errorf("the command's own file edited: %d runs reused, cache misses %+v; want none reused, %q\n%s", res.RunsReused, res.CacheMisses, want, stderr)
	}
}
