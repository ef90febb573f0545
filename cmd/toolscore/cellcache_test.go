package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/toolscore/toolscore/tally"
)

// twoToolsConfig is what `badserver twotools CONFIG` answers, read from CONFIG at each start: the
// text of tools a and b, and whether each answer carries the time it was made.
type twoToolsConfig struct {
	A, B  string
	Stamp bool
	// DelayMS holds each tools/call answer this long; Schema is the outputSchema tools/list
	// publishes for both tools (none when nil); Notify sends a notifications/message with this
	// text before each tools/call answer.
	DelayMS int
	Schema  map[string]any
	Notify  string
}

// twoTools is an MCP server on stdio with two tools, a and b, whose answers its config file says.
func twoTools(config string) int {
	var cfg twoToolsConfig
	b, err := os.ReadFile(config)
	if err != nil || json.Unmarshal(b, &cfg) != nil {
		fmt.Fprintln(os.Stderr, "twotools: no config:", err)
		return 1
	}
	out := bufio.NewWriter(os.Stdout)
	send := func(v any) {
		b, _ := json.Marshal(v)
		out.Write(append(b, '\n'))
		out.Flush()
	}
	in := bufio.NewReader(os.Stdin)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return 0
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &msg) != nil || msg.ID == nil {
			continue // a notification
		}
		var result any
		switch msg.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "twotools", "version": "1"}}
		case "tools/list":
			tool := func(name string) map[string]any {
				t := map[string]any{"name": name, "description": "answers " + name, "inputSchema": map[string]any{"type": "object"}}
				if cfg.Schema != nil {
					t["outputSchema"] = cfg.Schema
				}
				return t
			}
			result = map[string]any{"tools": []any{tool("a"), tool("b")}}
		case "tools/call":
			text := cfg.A
			if msg.Params.Name == "b" {
				text = cfg.B
			}
			structured := map[string]any{"value": text}
			if cfg.Stamp {
				structured["at"] = time.Now().Format(time.RFC3339Nano)
			}
			if cfg.Notify != "" {
				send(map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{"level": "info", "data": cfg.Notify}})
			}
			time.Sleep(time.Duration(cfg.DelayMS) * time.Millisecond)
			result = map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}, "structuredContent": structured}
		default:
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": "no such method"}})
			continue
		}
		send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
	}
}

// cacheSweep is one sweep of the two-tools scenario in dir with the cell cache cache: its
// results, its log, and how many times the client started in all the sweeps so far.
type cacheSweep struct {
	res    *tally.Results
	stderr string
	starts int
	out    string
}

// TestCellCache (issue 41): a sweep twice with one cache runs no client the second time and
// counts the same, every cell reused; a change to one tool's answer runs that tool's cells only;
// a timestamp in the answers runs every cell until volatile names it; a damaged entry is
// discarded and its cell run. The client's starts are counted by the client itself, a line a
// start, never read from the report.
func TestCellCache(t *testing.T) {
	t.Setenv("TOOLSCORE_CACHE", t.TempDir()) // the defined client's install
	dir, cache := t.TempDir(), filepath.Join(t.TempDir(), "cells")
	starts, config := filepath.Join(dir, "..", filepath.Base(dir)+"-starts.log"), filepath.Join(t.TempDir(), "twotools.json")
	writeFile(t, filepath.Join(dir, "counter.sh"), "#!/bin/sh\necho started >> "+starts+"\nexec "+staticToolscore(t)+" client raw\n")
	if err := os.Chmod(filepath.Join(dir, "counter.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := func(volatile string) {
		tools := "tools:\n  - {name: a" + volatile + "}\n  - {name: b" + volatile + "}\n"
		writeFile(t, filepath.Join(dir, "m.yaml"), "name: two tools\nserver:\n  command: [\""+os.Args[0]+"\", badserver, twotools, \""+config+"\"]\n"+tools+
			"faults: [clean, error]\nschema_modes: [as-is]\nclients:\n  - name: counter\n    runtime: binary\n    command: [./counter.sh]\nruns: 2\n")
	}
	serve := func(c twoToolsConfig) {
		b, _ := json.Marshal(c)
		writeFile(t, config, string(b))
	}
	n := 0
	sweep := func() cacheSweep {
		t.Helper()
		n++
		out := filepath.Join(t.TempDir(), fmt.Sprintf("out%d", n))
		_, stderr, code := toolscore(t, dir, "run", "m.yaml", "--backend", "local", "--out", out, "--cache", cache)
		if code != 0 {
			t.Fatalf("sweep %d exited %d:\n%s", n, code, stderr)
		}
		b, _ := os.ReadFile(starts)
		return cacheSweep{readResultsDir(t, out), stderr, strings.Count(string(b), "started"), out}
	}
	// ran says which cells of a sweep ran (not reused), by tool.
	ran := func(s cacheSweep) map[string]int {
		m := map[string]int{}
		for _, c := range s.res.Cells {
			if c.ReusedFrom == nil {
				m[c.Tool]++
			}
		}
		return m
	}

	manifest("")
	serve(twoToolsConfig{A: "alpha", B: "beta"})
	first := sweep()
	if first.starts != 8 || first.res.RunsExecuted != 8 || first.res.RunsReused != 0 {
		t.Fatalf("first sweep: %d client starts, %d runs executed, %d reused; want 8, 8, 0\n%s", first.starts, first.res.RunsExecuted, first.res.RunsReused, first.stderr)
	}
	second := sweep()
	if second.starts != first.starts {
		t.Errorf("the second sweep started the client %d times, want none", second.starts-first.starts)
	}
	if second.res.RunsExecuted != 0 || second.res.RunsReused != 8 || !strings.Contains(second.stderr, "4 cells: 0 ran, 4 reused, server answers verified") {
		t.Errorf("second sweep: %d executed, %d reused:\n%s", second.res.RunsExecuted, second.res.RunsReused, second.stderr)
	}
	for i, c := range second.res.Cells {
		if c.ReusedFrom == nil || !c.ReusedFrom.Equal(first.res.Started) || c.CacheKey == "" {
			t.Errorf("cell %s: reused_from %v, cache_key %q; want the first sweep's start %v", c.Key(), c.ReusedFrom, c.CacheKey, first.res.Started)
		}
		if f := first.res.Cells[i]; !reflect.DeepEqual(f.Outcome, c.Outcome) || f.Runs != c.Runs {
			t.Errorf("cell %s: %v in %d runs, first sweep %v in %d", c.Key(), c.Outcome, c.Runs, f.Outcome, f.Runs)
		}
	}

	// The second sweep cut after its first two cells and resumed, with no --cache (and the
	// default cache off): the resume takes the cache the sweep recorded, so its last two cells
	// are reused too, no client starts, and the first two, read back from runs.jsonl, still say
	// they were reused.
	runs := filepath.Join(second.out, "runs.jsonl")
	b, err := os.ReadFile(runs)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	writeFile(t, runs, strings.Join(lines[:4], ""))
	_ = os.Remove(filepath.Join(second.out, "results.json"))
	t.Setenv("TOOLSCORE_CACHE_DIR", "off")
	_, stderr, code := toolscore(t, dir, "run", "--resume", second.out)
	after, _ := os.ReadFile(starts)
	resumed := readResultsDir(t, second.out)
	if code != 0 || strings.Count(string(after), "started") != second.starts || resumed.RunsExecuted != 0 || resumed.RunsReused != 8 {
		t.Errorf("resumed: exit %d, %d client starts, %d runs executed, %d reused; want 0, 0, 0, 8\n%s",
			code, strings.Count(string(after), "started")-second.starts, resumed.RunsExecuted, resumed.RunsReused, stderr)
	}
	for _, c := range resumed.Cells {
		if c.ReusedFrom == nil || !c.ReusedFrom.Equal(first.res.Started) {
			t.Errorf("resumed cell %s: reused_from %v, want %v", c.Key(), c.ReusedFrom, first.res.Started)
		}
	}

	// One tool answers differently: its cells run, the other's are reused.
	serve(twoToolsConfig{A: "alpha", B: "beta, changed"})
	third := sweep()
	if got := ran(third); third.starts-second.starts != 4 || !reflect.DeepEqual(got, map[string]int{"b": 2}) {
		t.Errorf("b changed: %d client starts, cells run by tool %v; want 4 starts, b's 2 cells", third.starts-second.starts, got)
	}

	// A timestamp in every answer: every cell runs, each time, until volatile names it.
	serve(twoToolsConfig{A: "alpha", B: "beta, changed", Stamp: true})
	fourth := sweep()
	fifth := sweep()
	if fourth.starts-third.starts != 8 || fifth.starts-fourth.starts != 8 {
		t.Errorf("stamped answers: %d then %d client starts, want 8 and 8\n%s", fourth.starts-third.starts, fifth.starts-fourth.starts, fifth.stderr)
	}
	manifest(", volatile: [/structuredContent/at]")
	sixth := sweep()
	if sixth.starts != fifth.starts || sixth.res.RunsReused != 8 {
		t.Errorf("volatile /structuredContent/at: %d client starts, %d runs reused; want 0 and 8\n%s", sixth.starts-fifth.starts, sixth.res.RunsReused, sixth.stderr)
	}

	// A damaged entry: discarded with a line saying so, its cell run, the rest reused.
	key := sixth.res.Cells[0].CacheKey
	tee := filepath.Join(cache, key, "files", "runs")
	var victim string
	_ = filepath.WalkDir(tee, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "tee.jsonl" && victim == "" {
			victim = p
		}
		return nil
	})
	if victim == "" {
		t.Fatalf("no transcript in the entry %s", key)
	}
	if err := os.Truncate(victim, 10); err != nil {
		t.Fatal(err)
	}
	seventh := sweep()
	if seventh.starts-sixth.starts != 2 || !strings.Contains(seventh.stderr, "is damaged") || seventh.res.Cells[0].ReusedFrom != nil {
		t.Errorf("a truncated entry: %d client starts (want the cell's 2), first cell reused %v:\n%s", seventh.starts-sixth.starts, seventh.res.Cells[0].ReusedFrom, seventh.stderr)
	}
}

// TestCellCacheKeepsConfirmedCrash: a cell whose runs crashed is kept in the cache only once
// its run alone crashed too (the crash is the client's, not the machine's load), and is then
// reused with no client start; a cell whose run alone passed is not kept, and runs again.
func TestCellCacheKeepsConfirmedCrash(t *testing.T) {
	t.Setenv("TOOLSCORE_CACHE", t.TempDir())
	dir, cache := t.TempDir(), filepath.Join(t.TempDir(), "cells")
	starts, marker := filepath.Join(t.TempDir(), "starts.log"), filepath.Join(t.TempDir(), "crashed-once")
	// always: every start crashes; once: only the first start crashes, the others are raw.
	writeFile(t, filepath.Join(dir, "always.sh"), "#!/bin/sh\necho started >> "+starts+"\necho 'boom' >&2\nexit 3\n")
	writeFile(t, filepath.Join(dir, "once.sh"), "#!/bin/sh\necho started >> "+starts+"\nif [ ! -e "+marker+" ]; then touch "+marker+"; exit 3; fi\nexec "+staticToolscore(t)+" client raw\n")
	for _, f := range []string{"always.sh", "once.sh"} {
		if err := os.Chmod(filepath.Join(dir, f), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(dir, "m.yaml"), "name: crashes\nserver: {builtin: ledger}\ntool: get_account_balance\narguments: {account_id: ACC-4471}\n"+
		"faults: [clean]\nschema_modes: [as-is]\nclients:\n  - {name: always, runtime: binary, command: [./always.sh]}\n  - {name: once, runtime: binary, command: [./once.sh]}\nruns: 2\n")
	count := func() int {
		b, _ := os.ReadFile(starts)
		return strings.Count(string(b), "started")
	}
	sweep := func(n int) *tally.Results {
		t.Helper()
		out := filepath.Join(t.TempDir(), fmt.Sprintf("out%d", n))
		if _, stderr, code := toolscore(t, dir, "run", "m.yaml", "--backend", "local", "--out", out, "--cache", cache, "--parallel", "1"); code != 0 {
			t.Fatalf("sweep %d exited %d:\n%s", n, code, stderr)
		}
		return readResultsDir(t, out)
	}
	first := sweep(1)
	// always: 2 runs and 1 alone; once: 2 runs (crashed, passed) and 1 alone (passed).
	if got := count(); got != 6 {
		t.Fatalf("first sweep: %d client starts, want 6", got)
	}
	if c := first.Cells[0]; c.Outcome["crashed"] != 2 || c.Alone["crashed"] != 1 {
		t.Fatalf("always: %v, alone %v; want crashed 2, alone crashed 1", c.Outcome, c.Alone)
	}
	before := count()
	second := sweep(2)
	byClient := map[string]*tally.Cell{}
	for _, c := range second.Cells {
		byClient[c.Client] = c
	}
	if c := byClient["always"]; c.ReusedFrom == nil || c.Outcome["crashed"] != 2 {
		t.Errorf("always, its crash confirmed alone: reused %v, %v; want reused, crashed 2", c.ReusedFrom, c.Outcome)
	}
	if c := byClient["once"]; c.ReusedFrom != nil {
		t.Errorf("once, whose run alone passed: reused from %v, want run again", c.ReusedFrom)
	}
	if got := count() - before; got != 2 {
		t.Errorf("second sweep: %d client starts, want once's 2 only", got)
	}
}
