package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolscore/toolscore/record"
)

// TestCallsOnDocker (issue 49, the calls measure): the transient fault, whose first target call
// fails with an isError result and whose later ones pass, through go-sdk/call and the real Claude
// Code CLI on docker, with a manifest that says the tool has side effects. Each run's record,
// results.json and the evidence say how many times the client sent the call:
//
//   - go-sdk v1.8.0 once: ClientSession.CallTool (mcp/client.go:1284) sends one request through
//     handleSend (:1298) and hands the isError result back as it came, with no try of its own;
//   - Claude Code 2.1.332 under the scripted model that answers from the first result, once: it
//     sends one tools/call per tool_use the model asks for, and adds none;
//   - the same under the scripted model told to try once more (retries: 1), twice (ids 2 and 3),
//     after waiting for the model's second turn: a duplicate, since the tool has side effects.
func TestCallsOnDocker(t *testing.T) {
	engine(t)
	manifest := filepath.Join(t.TempDir(), "calls.yaml")
	writeFile(t, manifest, `name: calls
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
prompt: What is the balance of ledger account ACC-4471?
truth: ["40718.77"]
side_effects: true
faults: [transient]
schema_modes: [hidden]
protocols: [2025-11-25]
transports: [stdio]
clients: [go-sdk/call, claude-code, {name: claude-code, retries: 1}]
runs: 1
timeout: 120s
`)
	out := t.TempDir()
	start := time.Now()
	if code, _, stderr := runStatic(t, manifest, "--backend", "docker", "--parallel", "2", "--out", out); code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	t.Logf("the sweep took %s", time.Since(start).Round(time.Second))
	want := map[string]struct {
		sent      int
		duplicate bool
	}{"go-sdk/call": {1, false}, "claude-code": {1, false}, "claude-code+retries1": {2, true}}
	res := readResultsDir(t, out)
	if len(res.Cells) != len(want) || len(res.Unavailable) > 0 {
		t.Fatalf("%d cells, unavailable %v; want %d and none", len(res.Cells), res.Unavailable, len(want))
	}
	for _, c := range res.Cells {
		w, ok := want[c.Client]
		if !ok {
			t.Errorf("a cell of %s", c.Client)
			continue
		}
		dup := 0
		if w.duplicate {
			dup = 1
		}
		if c.Calls[strconv.Itoa(w.sent)] != 1 || c.Duplicate != dup || c.Cancelled != 0 {
			t.Errorf("%s: calls %v, duplicate %d, cancelled %d; want %d sent, duplicate %d, none cancelled", c.Client, c.Calls, c.Duplicate, c.Cancelled, w.sent, dup)
		}
		for outcome, ex := range c.Examples {
			if ex.Calls == nil || ex.Calls.Sent != w.sent || ex.Calls.Duplicate != w.duplicate || ex.Calls.SideEffects != "the manifest's side_effects: true" {
				t.Errorf("%s (%s): example's calls %+v", c.Client, outcome, ex.Calls)
			}
			if said := strings.Contains(ex.Evidence, "duplicate: the tool has side effects"); said != w.duplicate {
				t.Errorf("%s (%s): evidence %q, duplicate said %v, want %v", c.Client, outcome, ex.Evidence, said, w.duplicate)
			}
		}
	}
	// runs.jsonl holds the same, with the ids on the wire: each try a request of its own.
	f, err := os.Open(filepath.Join(out, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var rec record.Run
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Calls == nil || len(rec.Calls.IDs) != want[rec.Client].sent {
			t.Errorf("%s: calls %+v", rec.Client, rec.Calls)
			continue
		}
		if c := rec.Calls; c.Sent == 2 && (c.IDs[0] == c.IDs[1] || len(c.WaitsMillis) != 1) {
			t.Errorf("%s: ids %v, waits %v; want two ids and one wait", rec.Client, c.IDs, c.WaitsMillis)
		}
		t.Logf("%s: %s; calls %+v", rec.Client, rec.Outcome, *rec.Calls)
	}
}
