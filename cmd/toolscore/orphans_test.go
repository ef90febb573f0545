package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// No process of a run outlives the run when toolscore run is killed outright.

// hangManifest is a scenario whose server never answers the call and ignores SIGTERM.
func hangManifest(t *testing.T, clients, timeout string) string {
	p := filepath.Join(t.TempDir(), "hang.yaml")
	os.WriteFile(p, []byte(`name: hang
server: {builtin: hostile}
tool: hang
faults: [clean]
schema_modes: [hidden]
clients: [`+clients+`]
runs: 1
parallel: 3
timeout: `+timeout+`
`), 0o644)
	return p
}

// runTees lists the transcripts of a sweep's runs.
func runTees(out string) []string {
	tees, _ := filepath.Glob(filepath.Join(out, "runs", "*", "run-*", "tee.jsonl"))
	return tees
}

// serverPids lists the servers' pids the runs' transcripts have in their start events.
func serverPids(out string) []int {
	var pids []int
	for _, tee := range runTees(out) {
		b, _ := os.ReadFile(tee)
		for _, line := range bytes.Split(b, []byte("\n")) {
			var r struct {
				Event  string `json:"event"`
				Detail struct {
					PID int `json:"pid"`
				} `json:"detail"`
			}
			if json.Unmarshal(line, &r) == nil && r.Event == "start" && r.Detail.PID > 0 {
				pids = append(pids, r.Detail.PID)
			}
		}
	}
	return pids
}

// targetCalled says whether every transcript has the target call on its way to the server.
func targetCalled(out string) bool {
	tees := runTees(out)
	for _, tee := range tees {
		b, _ := os.ReadFile(tee)
		if !bytes.Contains(b, []byte(`"match":{"tool":"hang"`)) {
			return false
		}
	}
	return len(tees) > 0
}

// runProcesses finds, from the servers' pids, every process of the runs: each server, its parent
// (the proxy), and the process group they are in (the adapter's).
func runProcesses(t *testing.T, servers []int) (pids []int, groups map[int]bool) {
	groups = map[int]bool{}
	for _, s := range servers {
		st, ok := readProcStat(s)
		if !ok {
			t.Fatalf("server %d is gone already", s)
		}
		pids = append(pids, s, st.ppid, st.pgrp)
		groups[st.pgrp] = true
	}
	return pids, groups
}

// TestKilledRunLeavesNoProcess: SIGKILL of toolscore run, while each client's server hangs and
// ignores SIGTERM, takes every process of its runs with it: adapter, proxy and server.
func TestKilledRunLeavesNoProcess(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command(os.Args[0], "run", hangManifest(t, "raw, go-sdk/call, mcp-go/call", "120s"), "--backend", "local", "--out", out)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	waitFor(t, "three servers started and called", func() bool { return len(serverPids(out)) == 3 && targetCalled(out) })
	pids, groups := runProcesses(t, serverPids(out))
	defer killGroups(groups)
	cmd.Process.Kill()
	cmd.Wait()
	if !eventually(func() bool { return len(survivors(pids, groups)) == 0 }) {
		t.Errorf("a minute after toolscore run was killed, processes of its runs live: %v", survivors(pids, groups))
	}
}

// TestNextRunKillsLeftGroups: a process of a run that the death signal does not reach (the
// server's own child, in the run's process group) outlives a killed toolscore run; the next
// toolscore run kills it as it starts.
func TestNextRunKillsLeftGroups(t *testing.T) {
	state := t.TempDir()
	env := append(os.Environ(), "XDG_RUNTIME_DIR="+state)
	dir := t.TempDir()
	manifest := filepath.Join(dir, "forks.yaml")
	os.WriteFile(manifest, []byte(`name: forks
server:
  command: [sh, -c, 'sleep 600 & exec "$0" hostile', `+strconv.Quote(os.Args[0])+`]
tool: hang
faults: [clean]
schema_modes: [hidden]
clients: [raw]
runs: 1
timeout: 120s
`), 0o644)
	out := filepath.Join(dir, "out")
	cmd := exec.Command(os.Args[0], "run", manifest, "--backend", "local", "--out", out)
	cmd.Env = env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	waitFor(t, "the server started and called", func() bool { return len(serverPids(out)) == 1 && targetCalled(out) })
	pids, groups := runProcesses(t, serverPids(out))
	defer killGroups(groups)
	cmd.Process.Kill()
	cmd.Wait()
	// What the death signal reaches goes now; the server's sleep stays.
	if !eventually(func() bool { return len(survivors(pids, nil)) == 0 }) {
		t.Fatalf("a minute after toolscore run was killed, its adapter, proxy or server live: %v", survivors(pids, nil))
	}
	if len(survivors(nil, groups)) == 0 {
		t.Fatal("nothing of the run's group outlived it: this test would prove nothing")
	}
	next := exec.Command(os.Args[0], "run", "--backend", "local", "--clients", "raw", "--faults", "clean", "--schema", "hidden", "--runs", "1", "--out", filepath.Join(dir, "next"))
	next.Env = env
	b, err := next.CombinedOutput()
	if err != nil {
		t.Fatalf("the next run: %v\n%s", err, b)
	}
	if left := survivors(nil, groups); len(left) > 0 {
		t.Errorf("the next run left the killed run's processes: %v\n%s", left, b)
	}
	if !bytes.Contains(b, []byte("killed 1 process group(s)")) {
		t.Errorf("the next run does not say it killed the group:\n%s", b)
	}
}

type procStat struct {
	state      byte
	ppid, pgrp int
}

// readProcStat reads a process's state, parent and group; ok is false when it is gone (a zombie
// is gone: it is dead, only not yet reaped).
func readProcStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	st := procStat{state: f[0][0]}
	st.ppid, _ = strconv.Atoi(f[1])
	st.pgrp, _ = strconv.Atoi(f[2])
	return st, st.state != 'Z' && st.state != 'X'
}

// survivors lists the live processes among pids or in groups.
func survivors(pids []int, groups map[int]bool) []string {
	var left []string
	for _, p := range pids {
		if _, ok := readProcStat(p); ok {
			left = append(left, strconv.Itoa(p)+": "+cmdline(p))
		}
	}
	if len(groups) > 0 {
		all, _ := filepath.Glob("/proc/[0-9]*")
		for _, d := range all {
			pid, _ := strconv.Atoi(filepath.Base(d))
			if st, ok := readProcStat(pid); ok && groups[st.pgrp] {
				left = append(left, fmt.Sprintf("%d (group %d): %s", pid, st.pgrp, cmdline(pid)))
			}
		}
	}
	return left
}

func cmdline(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}

// killGroups kills what a failed test left of the run's groups.
func killGroups(groups map[int]bool) {
	for g := range groups {
		syscall.Kill(-g, syscall.SIGKILL)
	}
}

// waitFor polls cond until it holds, failing the test after a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !eventually(cond) {
		t.Fatalf("no %s within a minute", what)
	}
}

// eventually polls cond for up to a minute and says whether it came to hold.
func eventually(cond func() bool) bool {
	for deadline := time.Now().Add(60 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}
