package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/toolscore/toolscore/tally"
)

// cacheFixture is the two-tools scenario of TestCellCache with clients of its own, each a
// defined client that counts its starts in a log of its own, outside the manifest's folder
// (which the client's install copies).
type cacheFixture struct {
	t           *testing.T
	dir, config string
	logs        string // the folder of the clients' start logs
	mu          sync.Mutex
	n           int // sweeps so far, each with an out folder of its own
}

func newCacheFixture(t *testing.T, clients ...string) *cacheFixture {
	t.Helper()
	t.Setenv("TOOLSCORE_CACHE", t.TempDir()) // the defined clients' installs
	f := &cacheFixture{t: t, dir: t.TempDir(), config: filepath.Join(t.TempDir(), "twotools.json"), logs: t.TempDir()}
	for _, c := range clients {
		script := filepath.Join(f.dir, "count-"+c+".sh")
		writeFile(t, script, "#!/bin/sh\necho started >> "+filepath.Join(f.logs, c)+"\nexec "+staticToolscore(t)+" client raw\n")
		if err := os.Chmod(script, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := json.Marshal(twoToolsConfig{A: "alpha", B: "beta"})
	writeFile(t, f.config, string(b))
	return f
}

// manifest writes m.yaml: tools a and b, faults clean and error, runs runs, and the clients
// block given (each client's command is ./count-NAME.sh).
func (f *cacheFixture) manifest(runs int, clients string) {
	writeFile(f.t, filepath.Join(f.dir, "m.yaml"), "name: two tools\nserver:\n  command: [\""+os.Args[0]+"\", badserver, twotools, \""+f.config+"\"]\n"+
		"tools:\n  - {name: a}\n  - {name: b}\nfaults: [clean, error]\nschema_modes: [as-is]\nclients:\n"+clients+fmt.Sprintf("runs: %d\n", runs))
}

// starts counts each client's starts so far, by name.
func (f *cacheFixture) starts() map[string]int {
	m := map[string]int{}
	entries, _ := os.ReadDir(f.logs)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(f.logs, e.Name()))
		m[e.Name()] = strings.Count(string(b), "started")
	}
	return m
}

// sweep runs the manifest once with the cell cache cache and env added to the environment,
// and returns its results and its log; it fails the test if the sweep does not exit 0.
func (f *cacheFixture) sweep(cache string, env ...string) (*tally.Results, string) {
	f.t.Helper()
	res, stderr, err := f.try(cache, env...)
	if err != nil {
		f.t.Fatal(err)
	}
	return res, stderr
}

// try is sweep, its failure returned: a goroutine's sweep cannot fail the test itself.
func (f *cacheFixture) try(cache string, env ...string) (*tally.Results, string, error) {
	return f.tryArgs(cache, nil, env...)
}

// tryArgs is try with more arguments to toolscore run (such as --shard).
func (f *cacheFixture) tryArgs(cache string, args []string, env ...string) (*tally.Results, string, error) {
	return f.tryBy(os.Args[0], cache, args, env...)
}

// tryBy is tryArgs swept by the toolscore binary bin.
func (f *cacheFixture) tryBy(bin, cache string, args []string, env ...string) (*tally.Results, string, error) {
	f.mu.Lock()
	f.n++
	out := filepath.Join(f.logs+"-out", fmt.Sprint(f.n))
	f.mu.Unlock()
	cmd := exec.Command(bin, append([]string{"run", "m.yaml", "--backend", "local", "--out", out, "--cache", cache}, args...)...)
	cmd.Dir, cmd.Env = f.dir, append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, stderr.String(), fmt.Errorf("sweep into %s: %v:\n%s", out, err, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		return nil, stderr.String(), err
	}
	var res tally.Results
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, stderr.String(), err
	}
	return &res, stderr.String(), nil
}

// ranByClient counts the cells of res that ran (were not reused), by client.
func ranByClient(res *tally.Results) map[string]int {
	m := map[string]int{}
	for _, c := range res.Cells {
		if c.ReusedFrom == nil {
			m[c.Client]++
		}
	}
	return m
}

// diffStarts is after less before, client by client, leaving out the clients that did not start.
func diffStarts(before, after map[string]int) map[string]int {
	m := map[string]int{}
	for c, n := range after {
		if d := n - before[c]; d != 0 {
			m[c] = d
		}
	}
	return m
}

// TestCellCacheClientPin (issue 41): what a client runs as is in its cells' key, so pinning
// another version of one client runs that client's column of the matrix and reuses every
// other cell. The pin here is a defined client's install steps: another install, another
// install key (Choice.Fingerprints), as a built-in client's version pin makes another install
// or image.
func TestCellCacheClientPin(t *testing.T) {
	f := newCacheFixture(t, "one", "two")
	cache := filepath.Join(t.TempDir(), "cells")
	clients := func(pin string) string {
		return "  - name: one\n    runtime: binary\n    command: [./count-one.sh]\n" +
			"  - name: two\n    runtime: binary\n    command: [./count-two.sh]\n    install: ['echo " + pin + "']\n"
	}
	f.manifest(1, clients("v1"))
	first, stderr := f.sweep(cache)
	if s := f.starts(); first.RunsExecuted != 8 || !reflect.DeepEqual(s, map[string]int{"one": 4, "two": 4}) {
		t.Fatalf("first sweep: %d runs executed, client starts %v; want 8, 4 each\n%s", first.RunsExecuted, s, stderr)
	}
	before := f.starts()
	f.manifest(1, clients("v2"))
	second, stderr := f.sweep(cache)
	if got, s := ranByClient(second), diffStarts(before, f.starts()); !reflect.DeepEqual(got, map[string]int{"two": 4}) || !reflect.DeepEqual(s, map[string]int{"two": 4}) ||
		second.RunsExecuted != 4 || second.RunsReused != 4 {
		t.Errorf("two pinned anew: cells run by client %v, client starts %v, %d runs executed, %d reused; want two's 4 cells alone\n%s", got, s, second.RunsExecuted, second.RunsReused, stderr)
	}
	for i, c := range second.Cells {
		if f := first.Cells[i]; !reflect.DeepEqual(f.Outcome, c.Outcome) {
			t.Errorf("cell %s: %v, first sweep %v", c.Key(), c.Outcome, f.Outcome)
		}
	}
}

// TestCellCacheGraderVersion (issue 41): a sweep by a later grader runs every cell again, and
// keeps them under keys of its own: its next sweep reuses them all, and so does one by the
// earlier grader, whose entries are still there.
func TestCellCacheGraderVersion(t *testing.T) {
	f := newCacheFixture(t, "one")
	cache := filepath.Join(t.TempDir(), "cells")
	f.manifest(1, "  - name: one\n    runtime: binary\n    command: [./count-one.sh]\n")
	later := graderVersionEnv + "=1000"
	f.sweep(cache)
	steps := []struct {
		what     string
		env      []string
		executed int
	}{
		{"a later grader", []string{later}, 4},
		{"the later grader again", []string{later}, 0},
		{"the earlier grader again", nil, 0},
	}
	for _, s := range steps {
		before := f.starts()["one"]
		res, stderr := f.sweep(cache, s.env...)
		if started := f.starts()["one"] - before; res.RunsExecuted != s.executed || res.RunsReused != 4-s.executed || started != s.executed {
			t.Errorf("%s: %d runs executed, %d reused, %d client starts; want %d executed\n%s", s.what, res.RunsExecuted, res.RunsReused, started, s.executed, stderr)
		}
	}
}

// TestCellCacheConcurrentSweeps (issue 41): two sweeps at once on one cache count as two
// sweeps in turn on another do; neither fails nor finds an entry damaged, and a sweep after
// them reuses every cell from the cache they shared.
func TestCellCacheConcurrentSweeps(t *testing.T) {
	f := newCacheFixture(t, "one")
	f.manifest(2, "  - name: one\n    runtime: binary\n    command: [./count-one.sh]\n")
	shared, inTurn := filepath.Join(t.TempDir(), "shared"), filepath.Join(t.TempDir(), "in-turn")
	var turn [2]*tally.Results
	for i := range turn {
		turn[i], _ = f.sweep(inTurn)
	}
	if turn[1].RunsExecuted != 0 || turn[1].RunsReused != 8 {
		t.Errorf("sweeps in turn: the second executed %d runs and reused %d, want 0 and 8", turn[1].RunsExecuted, turn[1].RunsReused)
	}

	var at [2]*tally.Results
	var logs [2]string
	var errs [2]error
	var wg sync.WaitGroup
	for i := range at {
		wg.Add(1)
		go func() {
			defer wg.Done()
			at[i], logs[i], errs[i] = f.try(shared)
		}()
	}
	wg.Wait()
	for i := range at {
		if errs[i] != nil {
			t.Fatalf("concurrent sweep %d: %v", i, errs[i])
		}
		if strings.Contains(logs[i], "damaged") || strings.Contains(logs[i], "cannot") {
			t.Errorf("concurrent sweep %d says:\n%s", i, logs[i])
		}
	}
	after, stderr := f.sweep(shared)
	if after.RunsExecuted != 0 || after.RunsReused != 8 || strings.Contains(stderr, "damaged") {
		t.Errorf("after the concurrent sweeps: %d runs executed, %d reused; want 0 and 8\n%s", after.RunsExecuted, after.RunsReused, stderr)
	}
	for _, res := range []*tally.Results{at[0], at[1], after} {
		if len(res.Cells) != len(turn[0].Cells) {
			t.Fatalf("%d cells, in turn %d", len(res.Cells), len(turn[0].Cells))
		}
		for i, c := range res.Cells {
			if want := turn[0].Cells[i]; c.Key() != want.Key() || !reflect.DeepEqual(c.Outcome, want.Outcome) || c.Runs != want.Runs {
				t.Errorf("cell %s: %v in %d runs; in turn %s: %v in %d", c.Key(), c.Outcome, c.Runs, want.Key(), want.Outcome, want.Runs)
			}
		}
	}
	t.Logf("concurrent sweeps: %d+%d runs executed, %d+%d reused", at[0].RunsExecuted, at[1].RunsExecuted, at[0].RunsReused, at[1].RunsReused)
}

// TestDockerCellCache (issue 41): on the docker backend too, a sweep run again with the same
// cell cache reuses every cell: no run executes and no run's container is created (the
// engine's own events say), the server's answers checked in one container where the runs
// execute.
func TestDockerCellCache(t *testing.T) {
	api := engine(t)
	cache := filepath.Join(t.TempDir(), "cells")
	args := []string{"--backend", "docker", "--clients", "raw,go-sdk/call", "--faults", "clean,corrupt", "--schema", "hidden",
		"--protocols", "2026-07-28", "--runs", "2", "--cache", cache}
	var res [2]*tally.Results
	var logs [2]string
	var created [2]map[string]int
	for i := range res {
		out := t.TempDir()
		created[i] = containerCreates(t, api, func() {
			code, _, stderr := runStatic(t, append(args, "--out", out)...)
			if code != 0 {
				t.Fatalf("sweep %d exited %d:\n%s", i+1, code, stderr)
			}
			logs[i] = stderr
		})
		res[i] = readResultsDir(t, out)
	}
	t.Logf("containers created: %v then %v", created[0], created[1])
	if res[0].RunsExecuted != 8 || created[0]["cells"] != 4 || created[0]["cache check"] != 0 {
		t.Fatalf("first sweep: %d runs executed, containers created %v; want 8 runs in 4 cells' containers and no check of an empty cache\n%s", res[0].RunsExecuted, created[0], logs[0])
	}
	if res[1].RunsExecuted != 0 || res[1].RunsReused != 8 || created[1]["cells"] != 0 || created[1]["cache check"] != 1 ||
		!strings.Contains(logs[1], "4 cells: 0 ran, 4 reused, server answers verified") {
		t.Errorf("second sweep: %d runs executed, %d reused, containers created %v; want 0, 8, and the one cache check's alone\n%s", res[1].RunsExecuted, res[1].RunsReused, created[1], logs[1])
	}
	for i, c := range res[1].Cells {
		if f := res[0].Cells[i]; c.ReusedFrom == nil || !reflect.DeepEqual(f.Outcome, c.Outcome) || f.Runs != c.Runs {
			t.Errorf("cell %s: %v in %d runs (reused from %v), first sweep %v in %d", c.Key(), c.Outcome, c.Runs, c.ReusedFrom, f.Outcome, f.Runs)
		}
	}
	noLeftovers(t, api, "the cached sweeps")
}

// TestCacheReplayManySessions: toolscore cache-replay answers every session of a long file
// through the run's proxy, whose one --tee would otherwise refuse the 33rd server start: on
// the embedded study, 572 of 616 cached cells ran again for it.
func TestCacheReplayManySessions(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "twotools.json")
	writeFile(t, config, `{"A":"alpha","B":"beta"}`)
	session := `{"sent":["{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}","{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}","{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"a\",\"arguments\":{}}}"],"waits":[0,1,1],"total":2}` + "\n"
	writeFile(t, filepath.Join(dir, "sessions.jsonl"), strings.Repeat(session, 40))
	stdout, stderr, code := toolscore(t, dir, "cache-replay", "--in", "sessions.jsonl", "--",
		os.Args[0], "proxy", "--tee", filepath.Join(dir, "check", "tee.jsonl"), "--", os.Args[0], "badserver", "twotools", config)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	for i, l := range lines {
		var live struct{ Answers map[string]string }
		if err := json.Unmarshal([]byte(l), &live); err != nil || !strings.Contains(live.Answers["2"], "alpha") {
			t.Errorf("session %d: %s", i+1, l)
		}
	}
	if len(lines) != 40 {
		t.Errorf("%d live sessions, want 40", len(lines))
	}
}
