package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFloodGraded: a server that sends 50,000 notifications before its answer (the hostile
// flood tool; over the 8 MiB of messages a transcript reader once kept) is still graded right:
// raw on clean passed, its wire evidence the answer; and the transcript stays whole, every
// notification in it. What the flood costs the runner's memory is measured by bench/floodsweep.
func TestFloodGraded(t *testing.T) {
	const frames = 50000
	tmp := t.TempDir()
	writeFile(t, filepath.Join(tmp, "flood.yaml"), "name: flood\nserver: {builtin: hostile}\ntool: flood\narguments: {frames: 50000}\n"+
		"faults: [clean]\nschema_modes: [as-is]\nclients: [raw]\nruns: 1\ntimeout: 2m\n")
	if _, stderr, code := toolscore(t, tmp, "run", "flood.yaml", "--backend", "local", "--out", "out"); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var rec struct {
		Outcome, Evidence, Wire, Tee string
	}
	runs := strings.TrimSpace(readFile(t, filepath.Join(tmp, "out", "runs.jsonl")))
	if err := json.Unmarshal([]byte(runs), &rec); err != nil {
		t.Fatalf("runs.jsonl: %v\n%.500s", err, runs)
	}
	if rec.Outcome != "passed" || !strings.Contains(rec.Wire, "ok after the flood") {
		t.Errorf("outcome %s (%s), wire %.200q; want passed on the flood's answer", rec.Outcome, rec.Evidence, rec.Wire)
	}
	f, err := os.Open(filepath.Join(tmp, "out", rec.Tee))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if bytes.Contains(sc.Bytes(), []byte(`"dir":"to-client"`)) && bytes.Contains(sc.Bytes(), []byte("notifications/message")) {
			n++
		}
	}
	if err := sc.Err(); err != nil || n != frames {
		t.Errorf("the transcript holds %d notifications (%v), want all %d", n, err, frames)
	}
}
