package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRunExitCodes: a bad manifest stops before anything runs (exit 2, file:line:col and the
// field named); an expect entry that does not hold is exit 1, and the summary names it.
func TestRunExitCodes(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("name: x\nserver: {builtin: ledger}\ntool: get_account_balance\nfaults: [clean, corupt]\nschema_modes: [hidden]\nclients: [raw]\n"), 0o644)
	unmet := filepath.Join(dir, "unmet.yaml")
	os.WriteFile(unmet, []byte(`name: unmet
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [corrupt]
schema_modes: [hidden]
clients: [raw]
runs: 2
expect:
  - {client: raw, fault: corrupt, outcome: threw}
`), 0o644)
	// The billion laughs in arguments (10^9 strings expanded), and a manifest over the size limit.
	bomb := filepath.Join(dir, "bomb.yaml")
	var b strings.Builder
	b.WriteString("name: bomb\nserver: {builtin: ledger}\ntool: get_account_balance\nfaults: [clean]\nschema_modes: [hidden]\nclients: [raw]\narguments:\n  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 9; i++ {
		fmt.Fprintf(&b, "  l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 10), ", "))
	}
	os.WriteFile(bomb, []byte(b.String()), 0o644)
	huge := filepath.Join(dir, "huge.yaml")
	os.WriteFile(huge, []byte("name: huge\n# "+strings.Repeat("x", 2<<20)+"\n"), 0o644)
	for _, tc := range []struct {
		name, manifest string
		code           int
		stderr, stdout string
	}{
		{"bad manifest", bad, 2, bad + ":4:17: faults[1]: unknown fault \"corupt\"", ""},
		{"unmet expectation", unmet, 1, "", "expect"},
		{"missing file", filepath.Join(dir, "nope.yaml"), 2, "nope.yaml", ""},
		{"alias bomb", bomb, 2, bomb + ":12:12: arguments.l4[0]: aliases expand the manifest by more than 64 KiB here", ""},
		{"huge manifest", huge, 2, huge + ":1:1: the manifest is 2 MiB, over the limit of 128 KiB", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			cmd := exec.Command(os.Args[0], "run", tc.manifest, "--backend", "local", "--out", out)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			code := exitCode(cmd.Run())
			if code != tc.code || !strings.Contains(stderr.String(), tc.stderr) || !strings.Contains(stdout.String(), tc.stdout) {
				t.Errorf("exit %d (want %d)\nstderr: %s\nstdout: %s\nwant stderr to hold %q, stdout %q", code, tc.code, stderr.String(), stdout.String(), tc.stderr, tc.stdout)
			}
			if tc.code == 2 {
				if _, err := os.Stat(filepath.Join(out, "runs.jsonl")); err == nil {
					t.Error("a bad manifest still ran something")
				}
			}
		})
	}
}

// TestRunExitCodePaths runs toolscore run through each exit path of its flags, manifest and
// output directory: help is exit 0 with the usage on stdout; a count flag below 1, a manifest
// with several unknown keys (each named at file:line:col in one message) or a timeout no run can
// start in, an output directory that is a file or cannot be written: exit 2, and nothing runs.
func TestRunExitCodePaths(t *testing.T) {
	dir := t.TempDir()
	manifest := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const head = "name: x\nserver: {builtin: ledger}\ntool: get_account_balance\nfaults: [clean]\nschema_modes: [hidden]\nclients: [raw]\nruns: 1\n"
	good := manifest("good.yaml", head)
	unknown := manifest("unknown.yaml", "name: x\nsever: {builtin: ledger}\nserver: {builtin: ledger}\ntool: get_account_balance\nfaults: [clean]\nschema_modes: [hidden]\nclients: [{name: raw, verison: 1}]\nrunz: 1\n")
	short := manifest("short.yaml", head+"timeout: 1ns\n")
	file := filepath.Join(dir, "a-file")
	os.WriteFile(file, []byte("x"), 0o644)
	readOnly := unwritableDir(t)

	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr []string
	}{
		{"help", []string{"-h"}, 0, "usage: toolscore run [SCENARIO] [flags]", nil},
		{"help after a manifest", []string{good, "--help"}, 0, "-max-runs", nil},
		{"unknown flag", []string{"--rnus", "1"}, 2, "", []string{"flag provided but not defined: -rnus", "usage: toolscore run"}},
		{"runs 0", []string{good, "--runs", "0"}, 2, "", []string{"toolscore run: --runs 0: must be 1 or more"}},
		{"counts below 1", []string{good, "--parallel", "-3", "--max-runs", "0"}, 2, "", []string{"--parallel -3: must be 1 or more", "--max-runs 0: must be 1 or more"}},
		{"every unknown key", []string{unknown}, 2, "", []string{
			unknown + ":2:1: sever: unknown field",
			unknown + ":7:23: clients[0].verison: unknown field",
			unknown + ":8:1: runz: unknown field",
		}},
		{"timeout 1ns", []string{short}, 2, "", []string{short + ":8:10: timeout: must be 1s or more"}},
		{"device", []string{"/dev/zero"}, 2, "", []string{"/dev/zero:1:1: the manifest is over the limit of 128 KiB"}},
		{"out is a file", []string{good, "--out", file}, 2, "", []string{"toolscore run: the output directory " + file + ":"}},
		{"out is read-only", []string{good, "--out", readOnly}, 2, "", []string{"toolscore run: the output directory " + readOnly}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run", "--backend", "local"}, tc.args...)
			if !slices.Contains(tc.args, "--out") {
				args = append(args, "--out", filepath.Join(t.TempDir(), "out"))
			}
			stdout, stderr, code := toolscore(t, "", args...)
			ok := code == tc.code && strings.Contains(stdout, tc.stdout)
			for _, s := range tc.stderr {
				ok = ok && strings.Contains(stderr, s)
			}
			if !ok {
				t.Errorf("exit %d (want %d)\nstderr: %s\nstdout: %s\nwant stderr to hold %q, stdout %q", code, tc.code, stderr, stdout, tc.stderr, tc.stdout)
			}
			if strings.Contains(stderr, "on the local backend") {
				t.Error("the sweep started")
			}
		})
	}
}

// unwritableDir is a directory no file can be made in: read-only by its mode, or, for root
// (whom modes do not stop), a directory of sysfs.
func unwritableDir(t *testing.T) string {
	d := filepath.Join(t.TempDir(), "read-only")
	os.Mkdir(d, 0o555)
	if f, err := os.CreateTemp(d, ""); err != nil {
		return d
	} else {
		f.Close()
	}
	if err := os.Mkdir("/sys/kernel/toolscore-test", 0o755); err != nil {
		return "/sys/kernel"
	}
	os.Remove("/sys/kernel/toolscore-test")
	t.Skip("no directory here refuses a file to root")
	return ""
}

// TestRunReportUnwritable: a sweep whose results.json cannot be written (a directory in its way)
// still prints its matrix and checks its expectations, then exits 2 naming the file, and does
// not point at results it did not write. A link put where results.json goes (to /dev/full, a
// full disk) is replaced by the whole file, never written through. The server puts the
// obstacle in place during the run, after the sweep has cleared the output directory of the
// files of a sweep before.
func TestRunReportUnwritable(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		block string // a shell command, given the path of results.json as $1
		says  string
	}{
		{"a directory in the way", `mkdir -p "$1"`, "is a directory"},
		{"a link to a full disk", `[ -e "$1" ] || ln -s /dev/full "$1"`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			unmet := filepath.Join(t.TempDir(), "unmet.yaml")
			script := tc.block + `; TOOLSCORE_AS_MAIN=1 exec "$0" ledger` // the test binary as toolscore
			writeFile(t, unmet, fmt.Sprintf(`name: unmet
server:
  command: [sh, -c, %q, %q, %q]
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [corrupt]
schema_modes: [hidden]
clients: [raw]
runs: 1
expect:
  - {client: raw, fault: corrupt, outcome: threw}
`, script, self, filepath.Join(out, "results.json")))
			stdout, stderr, code := toolscore(t, "", "run", unmet, "--backend", "local", "--out", out)
			if tc.says == "" {
				info, err := os.Lstat(filepath.Join(out, "results.json"))
				if code != 1 || err != nil || !info.Mode().IsRegular() || !strings.Contains(stderr, "results: ") {
					t.Errorf("exit %d (%v, %v), want 1 (the unmet expectation) and results.json a file of its own\nstderr: %s", code, err, info, stderr)
				}
				return
			}
			if code != 2 || !strings.Contains(stdout, "passed 1/1") || !strings.Contains(stdout, "expect") || !strings.Contains(stderr, "results.json") ||
				!strings.Contains(stderr, tc.says) || !strings.Contains(stderr, "the output in "+out+" is incomplete") || strings.Contains(stderr, "results: ") {
				t.Errorf("exit %d, want 2 with the matrix, the unmet expectation and results.json named (%s)\nstderr: %s\nstdout: %s", code, tc.says, stderr, stdout)
			}
			if _, err := os.Stat(filepath.Join(out, "runs.jsonl")); err != nil {
				t.Errorf("the runs are not kept: %v", err)
			}
		})
	}
}

// TestHelpExitsZero: every command's -h is help asked for, on stdout with exit 0; a flag it
// does not take is a usage error, exit 2, with the usage on stderr.
func TestHelpExitsZero(t *testing.T) {
	for _, cmd := range []string{"run", "merge", "diff", "report", "baseline", "repro", "bisect", "history", "init", "proxy", "replay", "ledger", "hostile", "demo"} {
		stdout, stderr, code := toolscore(t, "", cmd, "-h")
		if code != 0 || !strings.Contains(stdout, "-") || stderr != "" {
			t.Errorf("toolscore %s -h: exit %d, want 0 with the usage on stdout\nstdout: %s\nstderr: %s", cmd, code, stdout, stderr)
		}
		stdout, stderr, code = toolscore(t, "", cmd, "--no-such-flag")
		if code != 2 || stdout != "" || !strings.Contains(stderr, "flag provided but not defined: -no-such-flag") {
			t.Errorf("toolscore %s --no-such-flag: exit %d, want 2 with the error on stderr\nstdout: %s\nstderr: %s", cmd, code, stdout, stderr)
		}
	}
}

// TestRunStopsWhenTheOutputIsFull: a run whose transcript cannot be finished for want of room
// (here the disk under it is /dev/full from the run's middle on) is the machine's failing, not
// the client's: the sweep stops, saying where and how to go on, and records no crashed run.
func TestRunStopsWhenTheOutputIsFull(t *testing.T) {
	// The server swaps its run's transcript for /dev/full before it serves.
	manifest, out := teeSwappingSweep(t, `ln -s /dev/full "$f"`, "clean, corrupt")
	_, stderr, code := toolscore(t, "", "run", manifest, "--backend", "local", "--parallel", "1", "--out", out)
	if code != 2 || !strings.Contains(stderr, "no space left on device") || !strings.Contains(stderr, "the output has no room") ||
		!strings.Contains(stderr, "--resume") {
		t.Errorf("exit %d, want 2 saying the output has no room and how to resume\nstderr: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"crashed"`) {
		t.Errorf("a run the disk stopped is recorded as the client's crash:\n%s", b)
	}
}

// TestRunReadsNoFIFOAsATranscript: a server that puts a named pipe where its run's transcript
// was (on the local backend it runs as the runner's user) gets its run graded with the reason,
// and the sweep goes on: opening the pipe to read it would wait for a writer forever.
func TestRunReadsNoFIFOAsATranscript(t *testing.T) {
	manifest, out := teeSwappingSweep(t, `mkfifo "$f"`, "clean")
	cmd := exec.Command(os.Args[0], "run", manifest, "--backend", "local", "--parallel", "1", "--out", out)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("the sweep did not end: it waits on the pipe in the transcript's place\nstderr: %s", stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "runs.jsonl"))
	if err != nil {
		t.Fatalf("%v\nstderr: %s", err, stderr.String())
	}
	if !strings.Contains(string(b), "not a file the run wrote but a named pipe") {
		t.Errorf("the run's record does not say its transcript was a pipe:\n%s", b)
	}
}

// teeSwappingSweep writes a manifest of raw over the faults given on the local backend, whose
// server first puts what swap makes at "$f" in the place of each run's transcript in out, as
// the proxy has opened it, then serves the ledger; it returns the manifest and out.
func teeSwappingSweep(t *testing.T, swap, faults string) (manifest, out string) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(t.TempDir(), "out")
	manifest = filepath.Join(t.TempDir(), "swap.yaml")
	script := `for f in "$1"/runs/*/run-1/tee.jsonl; do rm -f "$f"; ` + swap + `; done; TOOLSCORE_AS_MAIN=1 exec "$0" ledger`
	writeFile(t, manifest, fmt.Sprintf(`name: swap
server:
  command: [sh, -c, %q, %q, %q]
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [%s]
schema_modes: [hidden]
clients: [raw]
runs: 1
`, script, self, out, faults))
	return manifest, out
}

// TestSweepNamesNextSteps: a finished sweep's last lines name what to open and what to share
// (issue 52, item 6): the results, report.html, and the toolscore report command for the
// compatibility page, which runs as printed. Why the backend was chosen is said once (item 7).
func TestSweepNamesNextSteps(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "my out")
	stdout, stderr, code := toolscore(t, dir, "run", "--backend", "local", "--clients", "raw", "--faults", "clean", "--schema", "hidden", "--protocols", "2025-11-25", "--runs", "1", "--fail-on", "never", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if n := strings.Count(stdout+stderr, "asked for with --backend local"); n != 1 {
		t.Errorf("the backend's reason is said %d times, want once:\n%s%s", n, stderr, stdout)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	want := []string{
		"results: " + filepath.Join(out, "results.json"),
		"report:  " + filepath.Join(out, "report.html") + " (every cell with its evidence; open it in a browser)",
		"share:   toolscore report '" + out + "' --format compat-html > compat.html (a page of what each client did)",
	}
	if got := lines[max(len(lines)-3, 0):]; !slices.Equal(got, want) {
		t.Fatalf("the sweep's last lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	cmd := exec.Command("sh", "-c", strings.Replace(strings.TrimSpace(strings.Split(strings.TrimPrefix(want[2], "share:"), "(")[0]), "toolscore", `"$0"`, 1), os.Args[0])
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the share command as printed: %v\n%s", err, b)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "compat.html")); err != nil || !strings.HasPrefix(string(b), "<!DOCTYPE html>") {
		t.Errorf("compat.html: %v, %.60q", err, b)
	}
}
