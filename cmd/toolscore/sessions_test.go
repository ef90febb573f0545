package main

import (
	"bufio"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"testing"
)

// TestClientStartsTheServerTwice: a client that starts the server twice in a run (a probe
// session held open through the call, or one after it) leaves both sessions' transcripts, and
// its run is graded on, and its record names, the session that made the call: each of its cells
// counts what raw's does. Before, both proxies wrote one tee.jsonl: the later truncated the
// earlier, so a probe after the call left a run with no call on the wire, and two at once
// interleaved.
func TestClientStartsTheServerTwice(t *testing.T) {
	needRuntimes(t)
	t.Setenv("TOOLSCORE_CACHE", t.TempDir())
	out := t.TempDir()
	_, stderr, code := toolscore(t, ".", "run", filepath.Join("testdata", "sessions", "sessions.yaml"), "--backend", "local", "--out", out)
	if code != 0 && code != 1 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	res := readResultsDir(t, out)
	if len(res.Unavailable) > 0 || len(res.Cells) != 3*4 {
		t.Fatalf("%d cells, unavailable %v; want 12 and none", len(res.Cells), res.Unavailable)
	}
	raw := map[string]map[string]int{}
	for _, c := range res.Cells {
		if c.Client == "raw" {
			raw[c.Fault] = c.Outcome
		}
	}
	for _, c := range res.Cells {
		if c.Client != "raw" && !maps.Equal(c.Outcome, raw[c.Fault]) {
			t.Errorf("%s: %s, want raw's %v (evidence: %v)", c.Coordinates(), c.Counts(), raw[c.Fault], c.Examples)
		}
	}
	f, err := os.Open(filepath.Join(out, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{"raw": "tee.jsonl", "probe-first": "tee.2.jsonl", "probe-after": "tee.jsonl"}
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var rec struct{ Client, Fault, Tee string }
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if filepath.Base(rec.Tee) != want[rec.Client] {
			t.Errorf("%s × %s: the record names %s, want %s", rec.Client, rec.Fault, rec.Tee, want[rec.Client])
		}
		sessions, _ := filepath.Glob(filepath.Join(out, filepath.Dir(rec.Tee), "tee*.jsonl"))
		if n := map[bool]int{true: 1, false: 2}[rec.Client == "raw"]; len(sessions) != n {
			t.Errorf("%s × %s: %d transcripts %v, want %d", rec.Client, rec.Fault, len(sessions), sessions, n)
		}
	}
}
