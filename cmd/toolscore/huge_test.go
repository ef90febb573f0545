package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/backend"
)

// TestHugeAnswer: a 24 MiB answer (over what the local backend used to keep of an adapter's
// output) reaches raw and mcp-go whole and is graded passed, not crashed; each run's record in
// runs.jsonl stays small, standing for the answer and the returned result by a prefix, their
// size and a SHA-256 that matches the bytes the transcript and the adapter's stdout hold.
func TestHugeAnswer(t *testing.T) {
	tmp := t.TempDir()
	manifest := filepath.Join(tmp, "huge.yaml")
	os.WriteFile(manifest, []byte("name: huge\nserver: {builtin: hostile}\ntool: huge\narguments: {mib: 24}\nfaults: [clean]\nschema_modes: [as-is]\nclients: [raw, mcp-go/call]\nruns: 1\ntimeout: 2m\n"), 0o644)
	out := filepath.Join(tmp, "out")
	if _, stderr, code := toolscore(t, tmp, "run", manifest, "--backend", "local", "--parallel", "2", "--out", out); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	f, err := os.Open(filepath.Join(out, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<30) // a record as large as before the fix is read, to be reported
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		var rec hugeRecord
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Outcome != "passed" {
			t.Errorf("%s: %s: %.300s", rec.Client, rec.Outcome, rec.Evidence)
		}
		if len(line) > 8<<10 {
			t.Errorf("%s: the record is %d bytes, want at most 8 KiB", rec.Client, len(line))
		}
		dir := filepath.Join(out, filepath.Dir(rec.Tee))
		wire := answerOnWire(t, filepath.Join(out, rec.Tee))
		if w := rec.WireLarge; rec.Wire != "" || w == nil || w.Bytes != int64(len(wire)) || w.SHA256 != hexSum(wire) || !strings.HasPrefix(string(wire), w.Prefix) || len(w.Prefix) != 1<<10 {
			t.Errorf("%s: wire %d bytes, wire_large %+.80v; want only wire_large, of the transcript's %d bytes", rec.Client, len(rec.Wire), w, len(wire))
		}
		returned := returnedInStdout(t, filepath.Join(dir, backend.StdoutFile))
		if o := rec.Observation; o == nil || o.Returned != nil || o.ReturnedLarge == nil || o.ReturnedLarge.SHA256 != hexSum(returned) || o.ReturnedLarge.Bytes != int64(len(returned)) {
			t.Errorf("%s: the record's observation does not stand for the %d bytes of returned in stdout", rec.Client, len(returned))
		}
	}
	if n != 2 {
		t.Errorf("%d records, want 2", n)
	}
}

// hugeRecord is what the test reads of a runs.jsonl line, by the names the file uses.
type hugeRecord struct {
	Client, Outcome, Evidence, Tee, Wire string
	WireLarge                            *excerpt `json:"wire_large"`
	Observation                          *struct {
		Returned      json.RawMessage `json:"returned"`
		ReturnedLarge *excerpt        `json:"returned_large"`
	} `json:"observation"`
}

type excerpt struct {
	Prefix string `json:"prefix"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// answerOnWire is the largest message the transcript holds (the answer), exactly as sent.
func answerOnWire(t *testing.T, tee string) []byte {
	t.Helper()
	f, err := os.Open(tee)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<30)
	var wire []byte
	for sc.Scan() {
		var r struct {
			Wire string `json:"wire"`
		}
		if json.Unmarshal(sc.Bytes(), &r) == nil && len(r.Wire) > len(wire) {
			wire = []byte(r.Wire)
		}
	}
	return wire
}

// returnedInStdout is the returned value of the adapter's observation, as it printed it.
func returnedInStdout(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var o struct {
		Returned json.RawMessage `json:"returned"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	return o.Returned
}

func hexSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
