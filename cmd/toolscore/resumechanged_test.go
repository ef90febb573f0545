package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// resumeArgs is a one-run sweep of clean with the schema hidden, on the local backend.
var resumeArgs = []string{"--backend", "local", "--faults", "clean", "--schema", "hidden", "--protocols", "2025-11-25",
	"--transports", "stdio", "--runs", "1"}

// TestResumeRefusesAnotherBuild: --resume by another toolscore build, both versioned "dev" (a
// copy of this binary with a byte more), is refused with exit 2 saying so and what to do, and
// nothing runs; the same build resumes; a sweep.json written before builds were recorded still
// resumes by the other build, with a warning that says what cannot be told.
func TestResumeRefusesAnotherBuild(t *testing.T) {
	tmp := t.TempDir()
	out := filepath.Join(tmp, "out")
	if _, stderr, code := toolscore(t, tmp, append([]string{"run", "--clients", "raw", "--out", out}, resumeArgs...)...); code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	other := filepath.Join(tmp, "toolscore-other")
	copyFile(t, os.Args[0], other)
	f, _ := os.OpenFile(other, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("another build\n")
	f.Close()
	runs := readFile(t, filepath.Join(out, "runs.jsonl"))

	b, err := exec.Command(other, "run", "--resume", out).CombinedOutput()
	want := regexp.MustCompile(`cannot resume .*: it was started by toolscore (\S+) \(binary sha256:(\w+)\)(?: \(runs' binary sha256:\w+\))?, this is toolscore (\S+) \(binary sha256:(\w+)\)(?: \(runs' binary sha256:\w+\))?: the runs of two builds do not add up; resume it with the toolscore that started it, or start a new sweep`)
	m := want.FindStringSubmatch(string(b))
	if code := exitCode(err); code != 2 || m == nil || m[1] != m[3] || m[2] == m[4] {
		t.Errorf("--resume by another build of the same version: exit %d, want 2 saying the build changed:\n%s", code, b)
	}
	if got := readFile(t, filepath.Join(out, "runs.jsonl")); got != runs {
		t.Error("a refused resume ran something")
	}
	if b, err := exec.Command(os.Args[0], "run", "--resume", out).CombinedOutput(); exitCode(err) != 0 {
		t.Errorf("--resume by the build that started the sweep: exit %d:\n%s", exitCode(err), b)
	}

	// An older toolscore's sweep.json records neither: it resumes, with a warning.
	path := filepath.Join(out, "sweep.json")
	var s map[string]any
	if err := json.Unmarshal([]byte(readFile(t, path)), &s); err != nil {
		t.Fatal(err)
	}
	if s["toolscore_build"] == nil || s["adapters"] == nil {
		t.Fatalf("sweep.json records no build or adapters: %v", s)
	}
	delete(s, "toolscore_build")
	delete(s, "adapters")
	nb, _ := json.Marshal(s)
	os.WriteFile(path, nb, 0o644)
	b, err = exec.Command(other, "run", "--resume", out).CombinedOutput()
	if code := exitCode(err); code != 0 || !strings.Contains(string(b), "sweep.json predates the record of toolscore's build and of the clients' adapters") {
		t.Errorf("--resume of an older sweep.json: exit %d, want 0 with a warning:\n%s", code, b)
	}
}

// TestResumeRefusesAChangedAdapter: a client of the manifest's own whose adapter file changed
// since the sweep started (the manifest did not) is refused on --resume, exit 2 naming the
// client and what to do, and nothing runs.
func TestResumeRefusesAChangedAdapter(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH: the test's adapter needs it")
	}
	tmp := t.TempDir()
	t.Setenv("TOOLSCORE_CACHE", filepath.Join(tmp, "cache"))
	os.Mkdir(filepath.Join(tmp, "harness"), 0o755)
	adapter := filepath.Join(tmp, "harness", "sdk.py")
	copyFile(t, filepath.Join("testdata", "defined", "harness", "sdk.py"), adapter)
	manifest := filepath.Join(tmp, "m.yaml")
	os.WriteFile(manifest, []byte(`name: changed adapter
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [clean]
schema_modes: [hidden]
protocols: ["2025-11-25"]
clients:
  - raw
  - name: acme-harness
    runtime: binary
    command: [python3, harness/sdk.py]
    install: [echo ok > installed.txt]
`), 0o644)
	out := filepath.Join(tmp, "out")
	if _, stderr, code := toolscore(t, tmp, append([]string{"run", manifest, "--out", out, "--fail-on", "never"}, resumeArgs...)...); code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	runs := readFile(t, filepath.Join(out, "runs.jsonl"))
	f, _ := os.OpenFile(adapter, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("# edited after the sweep started\n")
	f.Close()
	_, stderr, code := toolscore(t, tmp, "run", "--resume", out)
	want := regexp.MustCompile(`cannot resume .*: the adapter of the client acme-harness changed since the sweep started \(install (\w+)(?:; [^)]*)? then, install (\w+)(?:; [^)]*)? now\): the runs of two adapters do not add up; start a new sweep, or put the client back as it was`)
	if m := want.FindStringSubmatch(stderr); code != 2 || m == nil || m[1] == m[2] {
		t.Errorf("--resume with the adapter changed: exit %d, want 2 naming acme-harness:\n%s", code, stderr)
	}
	if got := readFile(t, filepath.Join(out, "runs.jsonl")); got != runs {
		t.Error("a refused resume ran something")
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
