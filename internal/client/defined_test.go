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
