package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolscore/toolscore/tally"
)

// TestInterrupt: SIGINT in the middle of a sweep stops it cleanly: exit 130, every finished run
// kept in runs.jsonl and counted, and no process of the sweep left in the process table.
func TestInterrupt(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command(os.Args[0], "run", "--backend", "local", "--out", out, "--parallel", "2", "--faults", "latency,clean,corrupt", "--clients", "raw,go-sdk/call,go-sdk/list-then-call,mcp-go/call,mcp-go/list-then-call")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	runs := filepath.Join(out, "runs.jsonl")
	deadline := time.Now().Add(60 * time.Second)
	for countLines(runs) < 4 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no 4 runs finished in a minute:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if code := exitCode(err); code != 130 {
			t.Fatalf("exit %d after SIGINT, want 130\n%s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the sweep did not stop within 30 s of SIGINT")
	}
	finished := countLines(runs)
	var res tally.Results
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	counted := 0
	for _, c := range res.Cells {
		counted += c.Runs
	}
	if !res.Interrupted || counted != finished || finished < 4 || finished >= 3*3*2*3 {
		t.Errorf("interrupted=%v, %d runs counted, %d in runs.jsonl (want the same, at least 4, fewer than all 54)", res.Interrupted, counted, finished)
	}
	if left := sweepProcesses(out); len(left) > 0 {
		t.Errorf("processes of the sweep outlived it: %v", left)
	}
}

// countLines counts complete, valid JSON lines.
func countLines(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if json.Valid(sc.Bytes()) {
			n++
		}
	}
	return n
}

// sweepProcesses lists the live processes whose environment names the sweep's output
// directory: every adapter, proxy and server of a run inherits it.
func sweepProcesses(out string) []string {
	var left []string
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		env, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(env, []byte(out)) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "cmdline"))
		left = append(left, filepath.Base(filepath.Dir(p))+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return left
}
