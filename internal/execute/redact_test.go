package execute

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/backend"
)

// TestRedactStreams: redact masks every secret in a run's files read a chunk at a time, also
// one cut by a chunk's end and one that holds a shorter secret, for every chunk size from one
// byte up; a file without a secret is left as it was (not rewritten), and modes are kept.
func TestRedactStreams(t *testing.T) {
	secrets := []string{"tok", "sk-live-tok-42", "", "ab"}
	text := strings.Repeat("x", 5) + "sk-live-tok-42" + "..tok.." + "aab" + strings.Repeat("y", 30) + "sk-live-tok-42" + "ab"
	want := strings.Repeat("x", 5) + "[masked]" + "..[masked].." + "a[masked]" + strings.Repeat("y", 30) + "[masked]" + "[masked]"
	defer func(n int) { redactChunk = n }(redactChunk)
	for chunk := 1; chunk <= len(text)+1; chunk++ {
		redactChunk = chunk
		dir := t.TempDir()
		tee, clean := filepath.Join(dir, "tee.jsonl"), filepath.Join(dir, "clean")
		if err := os.WriteFile(tee, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(clean, []byte("nothing secret"), 0o640)
		before, _ := os.Stat(clean)
		res := backend.Result{Stderr: []byte("stderr sk-live-tok-42")}
		redact(dir, &res, secrets)
		got, _ := os.ReadFile(tee)
		if string(got) != want || string(res.Stderr) != "stderr [masked]" {
			t.Fatalf("chunk %d: %q, stderr %q; want %q", chunk, got, res.Stderr, want)
		}
		if info, _ := os.Stat(tee); info.Mode().Perm() != 0o644 {
			t.Errorf("chunk %d: the redacted file's mode is %v, want 0644", chunk, info.Mode().Perm())
		}
		after, _ := os.Stat(clean)
		if b, _ := os.ReadFile(clean); !bytes.Equal(b, []byte("nothing secret")) || !os.SameFile(before, after) || after.Mode().Perm() != 0o640 {
			t.Errorf("chunk %d: a file without a secret was rewritten", chunk)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".redact-*")); len(left) > 0 {
			t.Errorf("chunk %d: left %v", chunk, left)
		}
	}
}
