package install

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/toolscore/toolscore/internal/dirsum"
)

// counted is a recipe of no runtime whose step notes each install in count and writes a file of
// 1000 bytes, so a test can tell an install from a reuse and damage the entry.
func counted(count string) Recipe {
	return Recipe{Runtime: Binary,
		Files: fstest.MapFS{"adapter.sh": {Data: []byte("echo hi\n"), Mode: 0o755}, ".git/config": {Data: []byte("x")}},
		Steps: []string{"sleep 0.3; echo x >> " + count + "; head -c 1000 /dev/zero > big"}}
}

func installs(t *testing.T, count string) int {
	b, _ := os.ReadFile(count)
	return strings.Count(string(b), "x")
}

// TestEnsureInstallsOnce: the first call installs (the files copied, .git left out, the step
// run in the folder), the second finds it and installs nothing.
func TestEnsureInstallsOnce(t *testing.T) {
	root, count := t.TempDir(), filepath.Join(t.TempDir(), "count")
	var log bytes.Buffer
	dir, fresh, err := Ensure(context.Background(), root, "c", counted(count), &log)
	if err != nil || !fresh {
		t.Fatalf("first Ensure: %q fresh %v, %v", dir, fresh, err)
	}
	if !strings.Contains(log.String(), "installing c into "+dir) || !strings.Contains(log.String(), "installed c in") {
		t.Errorf("no progress lines: %q", log.String())
	}
	if info, err := os.Stat(filepath.Join(dir, "adapter.sh")); err != nil || info.Mode()&0o111 == 0 {
		t.Errorf("adapter.sh not copied executable: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		t.Error(".git was copied")
	}
	log.Reset()
	again, fresh, err := Ensure(context.Background(), root, "c", counted(count), &log)
	if err != nil || fresh || again != dir || installs(t, count) != 1 || log.Len() != 0 {
		t.Errorf("second Ensure: %q fresh %v, %v, %d installs, log %q; want %q installed once, silently", again, fresh, err, installs(t, count), log.String(), dir)
	}
	if _, ok := Installed(root, counted(count)); !ok {
		t.Error("Installed does not find it")
	}
}

// TestEnsureReinstallsDamaged: a truncated file, or an entry with no record of being complete
// (a killed install), is installed afresh.
func TestEnsureReinstallsDamaged(t *testing.T) {
	root, count := t.TempDir(), filepath.Join(t.TempDir(), "count")
	r := counted(count)
	dir, _, err := Ensure(context.Background(), root, "c", r, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(dir, "big"), 10); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	if _, fresh, err := Ensure(context.Background(), root, "c", r, &log); err != nil || !fresh || installs(t, count) != 2 {
		t.Fatalf("after truncation: fresh %v, %v, %d installs", fresh, err, installs(t, count))
	}
	if !strings.Contains(log.String(), "incomplete or damaged") {
		t.Errorf("the log does not say why it installs again: %q", log.String())
	}
	if info, _ := os.Stat(filepath.Join(dir, "big")); info == nil || info.Size() != 1000 {
		t.Errorf("big was not made afresh: %v", info)
	}
	os.Remove(filepath.Join(dir, doneFile))
	if _, fresh, err := Ensure(context.Background(), root, "c", r, &bytes.Buffer{}); err != nil || !fresh || installs(t, count) != 3 {
		t.Errorf("after losing its record: fresh %v, %v, %d installs", fresh, err, installs(t, count))
	}
}

// TestEnsureReinstallsSameSizeEdit: a file of the entry edited in place, its size and its
// modification time kept, is seen by its content: the entry is installed afresh, saying which
// file changed, and Installed no longer counts it.
func TestEnsureReinstallsSameSizeEdit(t *testing.T) {
	root, count := t.TempDir(), filepath.Join(t.TempDir(), "count")
	r := counted(count)
	dir, _, err := Ensure(context.Background(), root, "c", r, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	info, err := os.Stat(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, bytes.Repeat([]byte("A"), 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(big, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if _, ok := Installed(root, r); ok {
		t.Error("Installed counts an entry whose file was edited")
	}
	var log bytes.Buffer
	if _, fresh, err := Ensure(context.Background(), root, "c", r, &log); err != nil || !fresh || installs(t, count) != 2 {
		t.Fatalf("after a same-size edit: fresh %v, %v, %d installs; want installed afresh", fresh, err, installs(t, count))
	}
	if want := `c: the install in ` + dir + ` is incomplete or damaged (its file "big" is not what was installed: its content changed); installing it afresh`; !strings.Contains(log.String(), want) {
		t.Errorf("the log does not say why it installs again:\n%s\nwant %q", log.String(), want)
	}
	if b, _ := os.ReadFile(big); !bytes.Equal(b, make([]byte, 1000)) {
		t.Error("big was not made afresh")
	}
	if _, fresh, err := Ensure(context.Background(), root, "c", r, &bytes.Buffer{}); err != nil || fresh {
		t.Errorf("the fresh entry is not taken as intact: fresh %v, %v", fresh, err)
	}
}

// TestEnsureShared: callers at once share one install; the others wait and take it.
func TestEnsureShared(t *testing.T) {
	root, count := t.TempDir(), filepath.Join(t.TempDir(), "count")
	var wg sync.WaitGroup
	dirs := make([]string, 4)
	for i := range dirs {
		wg.Go(func() {
			d, _, err := Ensure(context.Background(), root, "c", counted(count), &bytes.Buffer{})
			if err != nil {
				t.Error(err)
			}
			dirs[i] = d
		})
	}
	wg.Wait()
	if installs(t, count) != 1 || dirs[0] != dirs[1] || dirs[0] != dirs[3] {
		t.Errorf("%d installs into %v; want one, shared", installs(t, count), dirs)
	}
}

// TestEnsureStepFails: a failing step is a StepError with the step and its last output lines,
// and leaves no entry behind.
func TestEnsureStepFails(t *testing.T) {
	root := t.TempDir()
	r := Recipe{Runtime: Binary, Steps: []string{"echo first; for i in $(seq 1 40); do echo line $i; done; exit 3"}}
	_, _, err := Ensure(context.Background(), root, "c", r, &bytes.Buffer{})
	var se *StepError
	if !errors.As(err, &se) || se.Step != r.Steps[0] || !strings.HasSuffix(se.Output, "line 39\nline 40") || strings.Contains(se.Output, "first") {
		t.Fatalf("%v; want a StepError with the last lines", err)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 1 || !strings.HasSuffix(entries[0].Name(), ".lock") {
		t.Errorf("left in the cache: %v", entries)
	}
}

// TestMissing: a runtime not on PATH is named; binary needs nothing.
func TestMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if m := Missing(Node); m != "node not found on PATH" {
		t.Errorf("Missing(node) = %q", m)
	}
	if m := Missing(Python); m != "python3 not found on PATH" {
		t.Errorf("Missing(python) = %q", m)
	}
	if m := Missing(Binary); m != "" {
		t.Errorf("Missing(binary) = %q", m)
	}
	// A JRE alone is not enough for the Java client: its install compiles the adapter.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "java"), []byte("#!/bin/sh\n"), 0o755)
	t.Setenv("PATH", dir)
	if m := Missing(Java); m != "javac not found on PATH (a JDK and Maven build the Java adapter)" {
		t.Errorf("Missing(java) with only java = %q", m)
	}
	// Without cargo, the Rust client says what it lacks and why it needs it.
	if m := Missing(Rust); m != "cargo not found on PATH (cargo builds the Rust adapter: install Rust, e.g. with rustup)" {
		t.Errorf("Missing(rust) without cargo = %q", m)
	}
	t.Setenv("PATH", t.TempDir())
	if _, _, err := Ensure(context.Background(), t.TempDir(), "c", Recipe{Runtime: Node}, &bytes.Buffer{}); err == nil || err.Error() != "node not found on PATH" {
		t.Errorf("Ensure without node: %v", err)
	}
}

// TestEnsureRefusesForgedRecord: a file planted in an entry, or a file edited with the entry's
// own record rewritten to list it (its signature kept), is seen: the entry is installed afresh,
// saying why.
func TestEnsureRefusesForgedRecord(t *testing.T) {
	for name, c := range map[string]struct {
		forge func(dir string) error
		want  string
	}{
		"planted": {func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "subprocess.py"), []byte("import os\n"), 0o644)
		}, `it has a file "subprocess.py" that was not installed`},
		"edited and listed": {func(dir string) error {
			if err := os.WriteFile(filepath.Join(dir, "adapter.sh"), []byte("echo pwned\n"), 0o755); err != nil {
				return err
			}
			var rec map[string]any
			b, _ := os.ReadFile(filepath.Join(dir, doneFile))
			if err := json.Unmarshal(b, &rec); err != nil {
				return err
			}
			files, err := dirsum.List(dir, doneFile)
			if err != nil {
				return err
			}
			rec["files"] = files
			b, _ = json.Marshal(rec)
			return os.WriteFile(filepath.Join(dir, doneFile), b, 0o644)
		}, "its record of the install is not signed with this machine's install key: something other than toolscore wrote it"},
	} {
		t.Run(name, func(t *testing.T) {
			root, count := t.TempDir(), filepath.Join(t.TempDir(), "count")
			dir, _, err := Ensure(context.Background(), root, "c", counted(count), &bytes.Buffer{})
			if err != nil {
				t.Fatal(err)
			}
			if err := c.forge(dir); err != nil {
				t.Fatal(err)
			}
			var log bytes.Buffer
			if _, fresh, err := Ensure(context.Background(), root, "c", counted(count), &log); err != nil || !fresh {
				t.Fatalf("after forging: fresh %v, %v; want installed afresh", fresh, err)
			}
			if want := "c: the install in " + dir + " is incomplete or damaged (" + c.want + "); installing it afresh"; !strings.Contains(log.String(), want) {
				t.Errorf("the log:\n%s\nwant %q", log.String(), want)
			}
		})
	}
}

// TestUnchanged: once Ensure checked an install, Unchanged finds a file planted in it, and a
// file edited in place to the same size with its modification time set back.
func TestUnchanged(t *testing.T) {
	root, count := t.TempDir(), filepath.Join(t.TempDir(), "count")
	dir, _, err := Ensure(context.Background(), root, "c", counted(count), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Unchanged(dir); err != nil {
		t.Fatalf("untouched: %v", err)
	}
	big := filepath.Join(dir, "big")
	info, _ := os.Stat(big)
	if err := os.WriteFile(big, bytes.Repeat([]byte("A"), 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(big, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err, want := Unchanged(dir), "the install in "+dir+` changed during the sweep: its file "big" was written or replaced`; err == nil || err.Error() != want {
		t.Errorf("after a same-size edit: %v, want %q", err, want)
	}
	if _, _, err := Ensure(context.Background(), root, "c", counted(count), &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "planted"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err, want := Unchanged(dir), "the install in "+dir+` changed during the sweep: it has a file "planted" that was not installed`; err == nil || err.Error() != want {
		t.Errorf("after a file planted: %v, want %q", err, want)
	}
}
