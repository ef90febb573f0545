package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/record"
)

// TestSchemaWorkBounded: a server whose outputSchema holds an allOf of 200,000 entries, and
// answers at once. The proxy reads that schema for the schema faults (type-swap, drop-required);
// it used to spin on it for the whole run, which was graded hung and charged to the server. The proxy's schema work is bounded: over the bound
// the fault is not applied, the transcript says why, and the answer goes as the server sent it.
func TestSchemaWorkBounded(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH")
	}
	server, err := filepath.Abs("testdata/allof/server.mjs")
	if err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(t.TempDir(), "allof.yaml")
	writeFile(t, manifest, "name: allof bomb\nserver: {command: [node, "+server+"]}\ntool: get_balance\n"+
		"arguments: {account_id: ACC-4471}\nfaults: [type-swap, drop-required]\nschema_modes: [published]\n"+
		"protocols: [2025-11-25]\nclients: [raw]\nruns: 1\ntimeout: 30s\n")
	out := t.TempDir()
	code, _, stderr := runStatic(t, manifest, "--backend", "local", "--out", out)
	if code != 0 {
		t.Fatalf("the sweep exited %d, want 0:\n%s", code, stderr)
	}
	res := readResultsDir(t, out)
	if len(res.Cells) != 2 {
		t.Fatalf("%d cells, want 2", len(res.Cells))
	}
	for _, c := range res.Cells {
		if c.Outcome["passed"] != 1 {
			t.Errorf("%s: %s, want passed 1/1: the answer goes as the server sent it (evidence: %v)", c.Coordinates(), c.Counts(), c.Examples)
		}
	}
	tees, _ := filepath.Glob(filepath.Join(out, record.RunsDir, "*", "run-1", record.TeeFile))
	if len(tees) != 2 {
		t.Fatalf("%d transcripts, want 2", len(tees))
	}
	for _, tee := range tees {
		b, err := os.ReadFile(tee)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "too large for the proxy to work on") {
			t.Errorf("%s does not say the schema work was skipped", tee)
		}
	}
}
