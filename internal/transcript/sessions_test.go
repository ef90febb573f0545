package transcript

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSessionPath(t *testing.T) {
	for _, c := range []struct {
		path string
		n    int
		want string
	}{
		{"/r/tee.jsonl", 1, "/r/tee.jsonl"},
		{"/r/tee.jsonl", 2, "/r/tee.2.jsonl"},
		{"/r/tee.jsonl", 12, "/r/tee.12.jsonl"},
		{"/r.d/tee", 2, "/r.d/tee.2"},
	} {
		if got := SessionPath(c.path, c.n); got != c.want {
			t.Errorf("SessionPath(%q, %d) = %q, want %q", c.path, c.n, got, c.want)
		}
	}
}

// TestCreateSession: each session given one path gets a file of its own, the first the path
// itself; past maxSessions the proxy is refused, saying why.
func TestCreateSession(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tee.jsonl")
	for n := 1; n <= maxSessions; n++ {
		f, err := CreateSession(path)
		if err != nil {
			t.Fatalf("session %d: %v", n, err)
		}
		if f.Name() != SessionPath(path, n) {
			t.Errorf("session %d writes %s, want %s", n, f.Name(), SessionPath(path, n))
		}
		f.Close()
	}
	if _, err := CreateSession(path); err == nil {
		t.Errorf("session %d was created, want an error", maxSessions+1)
	}
}

// TestGradedSession: the last session that called the target tool is graded, wherever the
// sessions without a call (a probe, a cleanup) fall; with none that called it, the last.
func TestGradedSession(t *testing.T) {
	const (
		probe = `{"time":"2026-12-04T10:00:00Z","dir":"to-server","wire":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n"}` + "\n"
		call  = `{"time":"2026-12-04T10:00:01Z","dir":"to-server","wire":"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}}\n","match":{"tool":"t","n":1,"fires":true}}` + "\n"
	)
	for _, c := range []struct {
		name     string
		sessions []string
		want     int
	}{
		{"none", nil, 1},
		{"one", []string{probe}, 1},
		{"probe first", []string{probe, call}, 2},
		{"probe after", []string{call, probe}, 1},
		{"a retry", []string{call, call, probe}, 2},
		{"no call", []string{probe, probe}, 2},
	} {
		path := filepath.Join(t.TempDir(), "tee.jsonl")
		for i, s := range c.sessions {
			if err := os.WriteFile(SessionPath(path, i+1), []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := GradedSession(path); got != SessionPath(path, c.want) {
			t.Errorf("%s: graded %s, want session %d", c.name, filepath.Base(got), c.want)
		}
	}
}
