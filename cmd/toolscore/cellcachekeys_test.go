package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// buildToolscore builds toolscore from this tree into dir/name as buildStatic does (not race
// instrumented, CGO_ENABLED=0), with the files of overlay (go build -overlay: a source path of
// the tree, relative to the module's root, and the text to build in its place).
func buildToolscore(t *testing.T, dir, name string, overlay map[string]string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	args := []string{"build", "-o", out}
	if len(overlay) > 0 {
		replace := map[string]string{}
		for rel, text := range overlay {
			src, err := filepath.Abs(filepath.Join("..", "..", filepath.FromSlash(rel)))
			if err != nil {
				t.Fatal(err)
			}
			to := filepath.Join(dir, name+"-"+filepath.Base(rel))
			writeFile(t, to, text)
			replace[src] = to
		}
		b, _ := json.Marshal(map[string]any{"Replace": replace})
		ov := filepath.Join(dir, name+"-overlay.json")
		writeFile(t, ov, string(b))
		args = append(args, "-overlay", ov)
	}
	cmd := exec.Command("go", append(args, ".")...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	return out
}

// TestCellCacheToolscoreBuild (issue 48): toolscore's own build keys every cell, a defined
// client's too (whose adapter is not toolscore's): a build that reads adapters' observations
// differently (here, one whose internal/client reads every returned result as raised, the
// code no GraderVersion guard hashes) runs every cell again, and grades them its own way
// instead of taking the first build's outcomes; a rebuild of the same source is the same
// build, byte for byte, and reuses every cell.
func TestCellCacheToolscoreBuild(t *testing.T) {
	f := newCacheFixture(t, "one")
	cache := filepath.Join(t.TempDir(), "cells")
	f.manifest(1, "  - name: one\n    runtime: binary\n    command: [./count-one.sh]\n")
	// The defined client's adapter is the same binary throughout (count-one.sh execs the static
	// build's raw client): only the sweeping toolscore changes.
	first := staticToolscore(t)
	bins := t.TempDir()
	again := buildToolscore(t, bins, "rebuilt", nil)
	src := readFile(t, filepath.Join("..", "..", "internal", "client", "observation.go"))
	const at = "\tif o.Returned == nil && o.ReturnedLarge == nil && o.Raised == nil && o.Agent == nil && o.Handed == nil {\n"
	if !strings.Contains(src, at) {
		t.Fatalf("internal/client/observation.go no longer has the line this test patches:\n%s", at)
	}
	patched := strings.Replace(src, at, "\tif o.Returned != nil {\n\t\to.Returned, o.Raised = nil, &record.Raised{Message: \"another build's reading\"}\n\t}\n"+at, 1)
	other := buildToolscore(t, bins, "other", map[string]string{"internal/client/observation.go": patched})

	if a, b := readFile(t, first), readFile(t, again); a != b {
		t.Fatalf("two builds of the same source differ: %s and %s (is the build reproducible?)", first, again)
	}

	byFirst, stderr, err := f.tryBy(first, cache, nil)
	if err != nil {
		t.Fatal(err)
	}
	if byFirst.RunsExecuted != 4 {
		t.Fatalf("first sweep: %d runs executed, want 4\n%s", byFirst.RunsExecuted, stderr)
	}
	byAgain, stderr, err := f.tryBy(again, cache, nil)
	if err != nil {
		t.Fatal(err)
	}
	if byAgain.RunsExecuted != 0 || byAgain.RunsReused != 4 {
		t.Errorf("the same source rebuilt: %d runs executed, %d reused; want every cell reused\n%s", byAgain.RunsExecuted, byAgain.RunsReused, stderr)
	}
	before := f.starts()["one"]
	byOther, stderr, err := f.tryBy(other, cache, nil)
	if err != nil {
		t.Fatal(err)
	}
	if started := f.starts()["one"] - before; byOther.RunsExecuted != 4 || byOther.RunsReused != 0 || started != 4 {
		t.Errorf("a build that reads observations differently: %d runs executed, %d reused, %d client starts; want every cell run again\n%s", byOther.RunsExecuted, byOther.RunsReused, started, stderr)
	}
	differ := 0
	for i, c := range byOther.Cells {
		if !reflect.DeepEqual(c.Outcome, byFirst.Cells[i].Outcome) {
			differ++
		}
	}
	if differ == 0 {
		t.Errorf("the other build graded every cell as the first did: its reading did not change them, and this test proves nothing")
	}
}

// TestCellCacheAdapterOutsideManifest (issue 48): a defined client's adapter that is not a file
// of the manifest's folder, named by its absolute path or found on PATH, is in its cells' key:
// edited, its cells run again and show what the edited adapter does, instead of keeping the
// outcomes of the adapter before; left alone, they are reused.
func TestCellCacheAdapterOutsideManifest(t *testing.T) {
	f := newCacheFixture(t)
	cache := filepath.Join(t.TempDir(), "cells")
	outside, bin := t.TempDir(), t.TempDir()
	abs, onPath := filepath.Join(outside, "abs-adapter.sh"), filepath.Join(bin, "toolscore-test-path-adapter")
	adapter := func(path, name, then string) {
		writeFile(t, path, "#!/bin/sh\necho started >> "+filepath.Join(f.logs, name)+"\n"+then+"\n")
		if err := os.Chmod(path, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	raw := "exec " + staticToolscore(t) + " client raw"
	// The edited adapter makes the call, then reports it refused the answer.
	edited := staticToolscore(t) + " client raw >/dev/null\n" + `echo '{"client": "edited", "library": "edited 1", "raised": {"message": "the edited adapter refuses"}}'`
	adapter(abs, "abs", raw)
	adapter(onPath, "path", raw)
	f.manifest(1, "  - name: abs\n    runtime: binary\n    command: [\""+abs+"\"]\n"+
		"  - name: path\n    runtime: binary\n    command: [toolscore-test-path-adapter]\n")
	path := "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")

	first, stderr := f.sweep(cache, path)
	if first.RunsExecuted != 8 {
		t.Fatalf("first sweep: %d runs executed, want 8\n%s", first.RunsExecuted, stderr)
	}
	again, stderr := f.sweep(cache, path)
	if again.RunsExecuted != 0 || again.RunsReused != 8 {
		t.Errorf("the adapters unchanged: %d runs executed, %d reused; want every cell reused\n%s", again.RunsExecuted, again.RunsReused, stderr)
	}
	adapter(abs, "abs", edited)
	adapter(onPath, "path", edited)
	before := f.starts()
	third, stderr := f.sweep(cache, path)
	if got, s := ranByClient(third), diffStarts(before, f.starts()); third.RunsExecuted != 8 || !reflect.DeepEqual(got, map[string]int{"abs": 4, "path": 4}) || !reflect.DeepEqual(s, got) {
		t.Errorf("both adapters edited: %d runs executed, cells run by client %v, client starts %v; want every cell of both run again\n%s", third.RunsExecuted, got, s, stderr)
	}
	for i, c := range third.Cells {
		if reflect.DeepEqual(c.Outcome, first.Cells[i].Outcome) && c.Fault == "clean" {
			t.Errorf("cell %s: %v, as before the adapter was edited to refuse every answer", c.Key(), c.Outcome)
		}
	}
}

// TestCachesInsideManifestFolder (issue 48): a cell cache, or toolscore's caches folder, kept
// in the manifest's folder is not part of a defined client's install: the second sweep finds
// every cell of the client in the cell cache (and so installs nothing), where copying the cache
// in made another install, and so other keys, at every sweep.
func TestCachesInsideManifestFolder(t *testing.T) {
	for _, c := range []struct {
		name string
		// env and cache are the sweep's, given the manifest's folder.
		env   func(dir string) []string
		cache func(dir string) string
	}{
		{"--cache in the folder", func(string) []string { return nil }, func(dir string) string { return filepath.Join(dir, "cells") }},
		{"the user cache folder in it", func(dir string) []string {
			return []string{"TOOLSCORE_CACHE=", "XDG_CACHE_HOME=" + filepath.Join(dir, "cache")}
		}, func(dir string) string { return filepath.Join(dir, "cache", "toolscore", "cells") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newCacheFixture(t, "one")
			f.manifest(1, "  - name: one\n    runtime: binary\n    command: [./count-one.sh]\n")
			env, cache := c.env(f.dir), c.cache(f.dir)
			first, stderr := f.sweep(cache, env...)
			if first.RunsExecuted != 4 {
				t.Fatalf("first sweep: %d runs executed, want 4\n%s", first.RunsExecuted, stderr)
			}
			second, stderr := f.sweep(cache, env...)
			if second.RunsExecuted != 0 || second.RunsReused != 4 || !strings.Contains(stderr, "not installed, every cell of it is in the cell cache: one") {
				t.Errorf("second sweep: %d runs executed, %d reused; want every cell reused from the install of the first\n%s", second.RunsExecuted, second.RunsReused, stderr)
			}
		})
	}
}
