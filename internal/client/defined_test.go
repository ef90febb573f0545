package client

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
	d := Defined("acme", install.Python, []string{"python3", "harness/acme.py", "./run", "--url=x", "/usr/bin/env"}, []string{"pip install nothing"}, true, dir)
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
	d := Defined("acme", install.Python, []string{"python3", "./acme.py"}, nil, false, dir)
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
