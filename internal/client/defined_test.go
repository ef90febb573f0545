package client

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/toolscore/toolscore/internal/install"
)

// TestDefined: a manifest's own client is installed from the manifest's folder with its steps,
// its files of the folder resolve in the install, and the registry never hears of it.
func TestDefined(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "harness"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "harness", "acme.py"), []byte("print()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := Defined("acme", install.Python, []string{"python3", "harness/acme.py", "./run", "--url=x", "/usr/bin/env"}, []string{"pip install nothing"}, nil, true, filepath.Join(dir, "m.yaml"))
	if d.Name != "acme" || !d.Agent || !d.Manifest || d.Local == nil || d.Contained() {
		t.Fatalf("descriptor %+v", d)
	}
	if d.Local.Runtime != install.Python || !slices.Equal(d.Local.Steps, []string{"pip install nothing"}) {
		t.Errorf("recipe %+v", d.Local.Recipe)
	}
	if b, err := fs.ReadFile(d.Local.Files, "harness/acme.py"); err != nil || string(b) != "print()\n" {
		t.Errorf("the recipe's files do not hold the manifest's folder: %q, %v", b, err)
	}
	got := d.Local.Argv("/bin/toolscore", "/cache/k", "acme", "")
	want := []string{"python3", "/cache/k/harness/acme.py", "/cache/k/run", "--url=x", "/usr/bin/env"}
	if !slices.Equal(got, want) {
		t.Errorf("Argv = %q, want %q", got, want)
	}
	if _, _, ok := Lookup("acme"); ok {
		t.Errorf("a defined client is in the registry")
	}
}

// TestDefinedSkipsOutput: a sweep's output in the manifest's folder (the default toolscore-out,
// or a folder holding sweep.json) is not part of the client's install, so a sweep started there
// does not change what is installed.
func TestDefinedSkipsOutput(t *testing.T) {
	dir := t.TempDir()
	write := func(rel string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(rel), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("acme.py")
	write("data/x.json")
	d := Defined("acme", install.Python, []string{"python3", "./acme.py"}, nil, nil, false, filepath.Join(dir, "m.yaml"))
	key, err := d.Local.Key()
	if err != nil {
		t.Fatal(err)
	}
	write("toolscore-out/20260101-000000/results.json")
	write("my-out/sweep.json")
	write("my-out/runs.jsonl")
	files, err := install.Files(d.Local.Recipe)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rel := range files {
		got = append(got, rel)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"acme.py", "data/x.json"}) {
		t.Errorf("the install copies %v", got)
	}
	if again, _ := d.Local.Key(); again != key {
		t.Errorf("a sweep's output changed the install's key")
	}
}

// TestDefinedInstallsWhatItUses: the manifest is not one of the client's files, so editing the
// scenario keeps the install, while editing the adapter makes a new one; a link to a file
// inside the folder is copied as that file (and hashed as it), a link out of the folder, a
// named pipe and the install cache are neither.
func TestDefinedInstallsWhatItUses(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write := func(p, data string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "scenario.yaml"), "name: a\n")
	write(filepath.Join(dir, "harness", "acme.py"), "print(1)\n")
	write(filepath.Join(dir, "harness", "real.py"), "print(2)\n")
	write(filepath.Join(outside, "secret.txt"), "not the client's\n")
	for link, to := range map[string]string{"harness/lib.py": "real.py", "escape.txt": filepath.Join(outside, "secret.txt")} {
		if err := os.Symlink(to, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The install cache in the folder is not the client's: the install would copy it into itself.
	t.Setenv("TOOLSCORE_CACHE", filepath.Join(dir, "cache"))
	write(filepath.Join(dir, "cache", "clients", "0123", "x"), "an install\n")
	d := Defined("acme", install.Python, []string{"python3", "harness/acme.py"}, nil, nil, false, filepath.Join(dir, "scenario.yaml"))
	key := func() string {
		t.Helper()
		k, err := d.Local.Key()
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	first := key()
	files, err := install.Files(d.Local.Recipe)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rel := range files {
		got = append(got, rel)
	}
	slices.Sort(got)
	if want := []string{"harness/acme.py", "harness/lib.py", "harness/real.py"}; !slices.Equal(got, want) {
		t.Errorf("the install copies %v, want %v", got, want)
	}
	if string(files["harness/lib.py"].Data) != "print(2)\n" {
		t.Errorf("the link inside the folder is copied as %q, want the file it names", files["harness/lib.py"].Data)
	}
	write(filepath.Join(dir, "scenario.yaml"), "name: b\nruns: 5\n")
	if key() != first {
		t.Errorf("editing the manifest changed the install's key: the client would be installed again")
	}
	write(filepath.Join(dir, "harness", "real.py"), "print(3)\n")
	second := key()
	if second == first {
		t.Errorf("editing the file a link names kept the install's key")
	}
	write(filepath.Join(dir, "harness", "acme.py"), "print(4)\n")
	if key() == second {
		t.Errorf("editing the adapter kept the install's key")
	}
}
