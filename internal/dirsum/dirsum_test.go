package dirsum

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestChanged: a folder checked against its own list is unchanged; a same-size edit, a cut-short
// file and a removed one are each named, with what made the files.
func TestChanged(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a", "alpha")
	write("sub/b", "bravo")
	if err := os.Symlink("a", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, "list.json"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "list.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s Sums
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if len(s) != 2 || s["sub/b"].Size != 5 {
		t.Fatalf("the list holds %v, want a and sub/b (regular files only, not itself)", s)
	}
	if why := s.Changed(dir, "stored"); why != "" {
		t.Fatalf("an untouched folder: %s", why)
	}
	for _, c := range []struct{ rel, text, want string }{
		{"sub/b", "BRAVO", `its file "sub/b" is not what was stored: its content changed`},
		{"sub/b", "brav", `its file "sub/b" is not what was stored: its size changed`},
		{"a", "", `its file "a" is missing`},
	} {
		if c.want == `its file "a" is missing` {
			os.Remove(filepath.Join(dir, "a"))
		} else {
			write(c.rel, c.text)
		}
		if why := s.Changed(dir, "stored"); why != c.want {
			t.Errorf("after %q: %q, want %q", c.text, why, c.want)
		}
	}
}
