package incell

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/backend"
)

// TestStreamRoundTrip: the work directory's files (nested ones too), the adapter's stdout and
// the exit status come through the cell's stream whole.
func TestStreamRoundTrip(t *testing.T) {
	src := t.TempDir()
	if err := os.MkdirAll(filepath.Join(src, "claude-code", "home"), 0o755); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("x"), 3<<20)
	os.WriteFile(filepath.Join(src, "tee.jsonl"), big, 0o644)
	os.WriteFile(filepath.Join(src, "claude-code", "home", "settings.json"), []byte("{}"), 0o644)
	// The adapter's stdout, in a file whose offset is at its end as the adapter left it, and
	// a work file that claims to be it.
	out, _ := os.CreateTemp(t.TempDir(), "stdout")
	out.WriteString(`{"client":"raw"}` + "\n")
	os.WriteFile(filepath.Join(src, backend.StdoutFile), []byte("forged"), 0o644)
	var stream bytes.Buffer
	if err := writeStream(&stream, src, out, func() string { return StreamEnd{Code: 3, Left: 2, OOM: true}.String() }); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	end := ReadStreamEnd(&stream, dst)
	whole := end.Whole
	if stdout, _ := os.ReadFile(filepath.Join(dst, backend.StdoutFile)); !whole || string(stdout) != `{"client":"raw"}`+"\n" {
		t.Fatalf("whole %v, stdout %q", whole, stdout)
	}
	if end.Code != 3 || end.Left != 2 || !end.OOM || end.Clean {
		t.Errorf("a held run that exited 3, left 2 processes, lost one to the OOM killer and could not be cleared read as %+v", end)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "tee.jsonl")); !bytes.Equal(b, big) {
		t.Errorf("tee.jsonl: %d bytes, want %d", len(b), len(big))
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "claude-code", "home", "settings.json")); string(b) != "{}" {
		t.Errorf("nested file: %q", b)
	}
}

// TestStreamCutOrHostile: a stream cut short (the cell was killed) is not whole, so the backend
// copies the files out instead; names that leave the directory are not written; garbage is
// read to its end and is not whole.
func TestStreamCutOrHostile(t *testing.T) {
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "tee.jsonl"), []byte("abc"), 0o644)
	var stream bytes.Buffer
	writeStream(&stream, src, nil, func() string { return StreamEnd{Clean: true}.String() })
	cut := stream.Bytes()[:stream.Len()-2100] // into the stdout entry, before the exit entry
	if whole := ReadStream(bytes.NewReader(cut), t.TempDir()); whole {
		t.Error("a cut stream was taken as whole")
	}

	var hostile bytes.Buffer
	tw := tar.NewWriter(&hostile)
	for _, name := range []string{"work/../escaped", "work//abs", "work/ok", "work/" + backend.StdoutFile} {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: 1, Typeflag: tar.TypeReg})
		tw.Write([]byte("x"))
	}
	tw.WriteHeader(&tar.Header{Name: "exit", Size: 1, Typeflag: tar.TypeReg})
	tw.Write([]byte("0"))
	tw.Close()
	parent := t.TempDir()
	dst := filepath.Join(parent, "run")
	os.Mkdir(dst, 0o755)
	if whole := ReadStream(&hostile, dst); !whole {
		t.Error("the hostile stream is well-formed and ends with exit")
	}
	if _, err := os.Stat(filepath.Join(parent, "escaped")); err == nil {
		t.Error("a name with .. was written outside the run directory")
	}
	if _, err := os.Stat(filepath.Join(dst, "ok")); err != nil {
		t.Error("a plain name was not written")
	}
	if _, err := os.Stat(filepath.Join(dst, backend.StdoutFile)); err == nil {
		t.Error("a work file of the cell was taken as the adapter's stdout")
	}

	garbage := strings.NewReader(strings.Repeat("not a tar stream ", 10000))
	if whole := ReadStream(garbage, t.TempDir()); whole || garbage.Len() != 0 {
		t.Errorf("garbage: whole %v, %d bytes left unread", whole, garbage.Len())
	}
}
