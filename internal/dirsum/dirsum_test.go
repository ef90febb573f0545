package dirsum

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestChanged: a folder checked against its own list is unchanged; a same-size edit, a cut-short
// file, a removed one, a file added, a link pointed elsewhere and a link where a file was are
// each named, with what made the files; a list naming a path outside the folder is refused.
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
	if len(s) != 3 || s["sub/b"].Size != 5 || s["link"].Link != "a" {
		t.Fatalf("the list holds %v, want a, sub/b and the link to a (not itself)", s)
	}
	if why := s.Changed(dir, "list.json", "stored"); why != "" {
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
		if why := s.Changed(dir, "list.json", "stored"); why != c.want {
			t.Errorf("after %q: %q, want %q", c.text, why, c.want)
		}
	}

	fresh := func() {
		t.Helper()
		os.RemoveAll(dir)
		write("a", "alpha")
		write("sub/b", "bravo")
		if err := os.Symlink("a", filepath.Join(dir, "link")); err != nil {
			t.Fatal(err)
		}
		if why := s.Changed(dir, "list.json", "stored"); why != "" {
			t.Fatalf("made again: %s", why)
		}
	}
	fresh()
	write("sub/planted.py", "")
	if why, want := s.Changed(dir, "list.json", "stored"), `it has a file "sub/planted.py" that was not stored`; why != want {
		t.Errorf("a file added: %q, want %q", why, want)
	}
	fresh()
	os.Remove(filepath.Join(dir, "link"))
	if err := os.Symlink("/bin/sh", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if why, want := s.Changed(dir, "list.json", "stored"), `its link "link" is not what was stored: it points elsewhere`; why != want {
		t.Errorf("a link pointed elsewhere: %q, want %q", why, want)
	}
	fresh()
	os.Remove(filepath.Join(dir, "a"))
	if err := os.Symlink("sub/b", filepath.Join(dir, "a")); err != nil {
		t.Fatal(err)
	}
	if why, want := s.Changed(dir, "list.json", "stored"), `its file "a" is not what was stored: it is no longer a plain file`; why != want {
		t.Errorf("a link where a file was: %q, want %q", why, want)
	}
	fresh()
	for _, rel := range []string{"../victim", "/etc/passwd", "sub/../a", ""} {
		if why, want := (Sums{rel: {}}).Changed(dir, "list.json", "stored"), `its list names "`+rel+`", which is not inside it`; why != want {
			t.Errorf("a list naming %q: %q, want %q", rel, why, want)
		}
	}
}
