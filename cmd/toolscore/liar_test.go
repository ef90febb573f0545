package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLiarAdapters: a defined client not declared agent: true that prints an agent's observation,
// and one declared agent: true that prints an SDK client's, are each crashed with evidence naming
// the breach (the first made the grader dereference nil: the sweep panicked and lost raw's counts),
// and a resume that runs their cells again does the same.
func TestLiarAdapters(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH")
	}
	dir := t.TempDir()
	for _, f := range []string{"liar.yaml", "liar.mjs"} {
		b, err := os.ReadFile(filepath.Join("testdata", "liar", f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, f), string(b))
	}
	out := filepath.Join(t.TempDir(), "out")
	sweep := func(args ...string) {
		t.Helper()
		b, err := exec.Command(os.Args[0], append([]string{"run"}, args...)...).CombinedOutput()
		if code := exitCode(err); code != 0 || strings.Contains(string(b), "panic") {
			t.Fatalf("%v: exit %d, want 0:\n%s", args, code, b)
		}
	}
	check := func(when string) {
		t.Helper()
		want := map[string]string{
			"raw":        "",
			"says-agent": `the adapter printed an agent's observation ("agent") but its client is not declared agent: true`,
			"says-sdk":   `printed no "agent" (with its "answer"): its client is declared agent: true, but it printed an SDK client's observation`,
		}
		f, err := os.Open(filepath.Join(out, "runs.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		n := 0
		for sc := bufio.NewScanner(f); sc.Scan(); n++ {
			var r struct{ Client, Fault, Outcome, Evidence string }
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatal(err)
			}
			raw := "passed"
			if r.Fault == "rpc-error" {
				raw = "rpc-error"
			}
			switch evidence := want[r.Client]; {
			case r.Client == "raw" && r.Outcome != raw:
				t.Errorf("%s: raw × %s: %s (%s)", when, r.Fault, r.Outcome, r.Evidence)
			case r.Client != "raw" && (r.Outcome != "crashed" || !strings.Contains(r.Evidence, evidence)):
				t.Errorf("%s: %s × %s: %s %q, want crashed saying %q", when, r.Client, r.Fault, r.Outcome, r.Evidence, evidence)
			}
		}
		if n != 9 {
			t.Errorf("%s: %d runs recorded, want 9", when, n)
		}
	}
	sweep(filepath.Join(dir, "liar.yaml"), "--backend", "local", "--out", out)
	check("the sweep")

	// As a sweep that died before the liars' runs left it: raw's records alone, then --resume.
	b, err := os.ReadFile(filepath.Join(out, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if strings.HasPrefix(l, `{"client":"raw"`) {
			kept = append(kept, l)
		}
	}
	writeFile(t, filepath.Join(out, "runs.jsonl"), strings.Join(kept, ""))
	sweep("--resume", out)
	check("the resume")
}
