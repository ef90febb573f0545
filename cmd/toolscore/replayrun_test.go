package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenarios"
)

// replayRuns reads an output directory's runs.jsonl by client, fault, schema, protocol and run.
func replayRuns(t *testing.T, dir string) map[string]record.Run {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs := map[string]record.Run{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r record.Run
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		recs[strings.Join([]string{r.Client, r.Fault, r.Schema, r.Protocol, r.Tee}, " ")] = r
	}
	return recs
}

// runToolscore runs the toolscore command and returns its exit code and everything it printed.
func runToolscore(t *testing.T, args ...string) (int, string) {
	t.Helper()
	stdout, stderr, code := toolscore(t, "", args...)
	return code, stdout + stderr
}

// sameRuns checks the replayed sweep's runs have the live ones' outcome, evidence, wire answer,
// introduced values, negotiated revision and (for an agent) model view and answer, and that
// toolscore diff finds no cell changed.
func sameRuns(t *testing.T, live, replayed string, runs int) {
	t.Helper()
	want, got := replayRuns(t, live), replayRuns(t, replayed)
	if len(want) != runs || len(got) != len(want) {
		t.Fatalf("%d live runs and %d replayed, want %d each", len(want), len(got), runs)
	}
	for k, w := range want {
		g := got[k]
		if g.Outcome != w.Outcome || g.Evidence != w.Evidence || g.Wire != w.Wire || g.Negotiated != w.Negotiated || !reflect.DeepEqual(g.Introduced, w.Introduced) ||
			g.ModelView != w.ModelView || g.Answer != w.Answer || g.Flagged != w.Flagged {
			t.Errorf("%s: replayed %s %q (negotiated %s, view %s, answer %s), live %s %q (negotiated %s, view %s, answer %s)", k,
				g.Outcome, g.Evidence, g.Negotiated, g.ModelView, g.Answer, w.Outcome, w.Evidence, w.Negotiated, w.ModelView, w.Answer)
		}
	}
	if code, out := runToolscore(t, "diff", filepath.Join(live, "results.json"), filepath.Join(replayed, "results.json")); code != 0 {
		t.Fatalf("toolscore diff exited %d:\n%s", code, out)
	}
}

// TestReplayedSweepOnDocker is TestReplayedSweep's first half on the docker backend, for a
// sample: the bare client, the TypeScript SDK (which validates against a published schema) and
// Claude Code with the scripted model, over the faults where they differ.
func TestReplayedSweepOnDocker(t *testing.T) {
	api := engine(t)
	live, replayed := t.TempDir(), t.TempDir()
	args := []string{"--backend", "docker", "--runs", "1", "--parallel", "2", "--clients", "raw,ts-sdk/list-then-call,claude-code",
		"--faults", "clean,type-swap,rpc-error,wrong-container,drop-required"}
	if code, _, stderr := runStatic(t, append(args, "--out", live)...); code != 0 {
		t.Fatalf("the live sweep exited %d:\n%s", code, stderr)
	}
	if code, _, stderr := runStatic(t, append(args, "--out", replayed, "--replay", live)...); code != 0 {
		t.Fatalf("the replayed sweep exited %d:\n%s", code, stderr)
	}
	sameRuns(t, live, replayed, 3*5*2*2)
	noLeftovers(t, api, "the replayed sweep")
}

// TestReplayedSweep runs the embedded study live on the local backend, then again with
// --replay against the live sweep's transcripts and no server: every run has the live run's
// outcome, evidence, wire answer, introduced values and negotiated revision, and toolscore diff
// finds no cell changed. A manifest that asks the recording for another account diverges: every
// run is graded diverged with the replayer's account as evidence, not as the recorded fault.
func TestReplayedSweep(t *testing.T) {
	live, replayed := t.TempDir(), t.TempDir()
	if code, out := runToolscore(t, "run", "--backend", "local", "--clients", "raw,go-sdk/call,go-sdk/list-then-call,mcp-go/call,mcp-go/list-then-call", "--runs", "1", "--parallel", "2", "--out", live); code != 0 {
		t.Fatalf("the live sweep exited %d:\n%s", code, out)
	}
	if code, out := runToolscore(t, "run", "--backend", "local", "--clients", "raw,go-sdk/call,go-sdk/list-then-call,mcp-go/call,mcp-go/list-then-call", "--runs", "1", "--parallel", "2", "--out", replayed, "--replay", live); code != 0 {
		t.Fatalf("the replayed sweep exited %d:\n%s", code, out)
	}
	sameRuns(t, live, replayed, 220)

	manifest := filepath.Join(t.TempDir(), "other-account.yaml")
	m := strings.Replace(string(scenarios.Ledger), "account_id: ACC-4471", "account_id: ACC-4476", 1)
	if err := os.WriteFile(manifest, []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	diverged := t.TempDir()
	code, out := runToolscore(t, "run", manifest, "--backend", "local", "--runs", "1", "--clients", "raw,go-sdk/call",
		"--faults", "type-swap,rpc-error", "--out", diverged, "--replay", live, "--fail-on", "never")
	if code != 0 {
		t.Fatalf("the divergent replay exited %d:\n%s", code, out)
	}
	recs := replayRuns(t, diverged)
	if len(recs) != 2*2*2*2 {
		t.Fatalf("%d runs, want 16", len(recs))
	}
	for k, r := range recs {
		if r.Outcome != record.Diverged || !strings.Contains(r.Evidence, `got tools/call {"arguments":{"account_id":"ACC-4476"}`) ||
			!strings.Contains(r.Evidence, `expected request #`) {
			t.Errorf("%s: %s %q, want diverged with the replayer's account", k, r.Outcome, r.Evidence)
		}
	}
}

// TestReplayRefusesAnotherScenario checks --replay names the mismatch when the earlier sweep is
// of another scenario, before anything runs.
func TestReplayRefusesAnotherScenario(t *testing.T) {
	old := t.TempDir()
	if err := os.WriteFile(filepath.Join(old, "results.json"), []byte(`{"scenario":"something else","cells":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := runToolscore(t, "run", "--backend", "local", "--out", t.TempDir(), "--replay", old)
	if code != 2 || !strings.Contains(out, `is a sweep of the scenario "something else", not of "ledger balance"`) {
		t.Fatalf("exit %d:\n%s\nwant 2 naming both scenarios", code, out)
	}
}

// TestReplayNarrowedSweep replays a narrowed live sweep with no flags: the replay plays the
// recorded sweep's own cells and runs (not the scenario's whole matrix at its default runs),
// with the live outcomes, and toolscore diff finds no cell changed. Asked for runs the recording
// does not hold, it refuses before anything runs, naming them, rather than grading them crashed.
func TestReplayNarrowedSweep(t *testing.T) {
	live, replayed := t.TempDir(), t.TempDir()
	if code, out := runToolscore(t, "run", "--backend", "local", "--clients", "raw,go-sdk/list-then-call,mcp-go/call",
		"--faults", "clean,type-swap,rpc-error", "--runs", "1", "--parallel", "2", "--out", live); code != 0 {
		t.Fatalf("the live sweep exited %d:\n%s", code, out)
	}
	if code, out := runToolscore(t, "run", "--backend", "local", "--parallel", "2", "--out", replayed, "--replay", live); code != 0 {
		t.Fatalf("the replayed sweep exited %d:\n%s", code, out)
	}
	want, got := readResultsDir(t, live), readResultsDir(t, replayed)
	if len(want.Cells) != 3*3*2*2 || len(got.Cells) != len(want.Cells) {
		t.Fatalf("%d cells live, %d replayed; want 36 each", len(want.Cells), len(got.Cells))
	}
	for i, w := range want.Cells {
		if g := got.Cells[i]; g.Coordinates() != w.Coordinates() || g.Counts() != w.Counts() || g.Runs != 1 {
			t.Errorf("cell %d: replayed %s %s (%d runs), live %s %s", i, g.Coordinates(), g.Counts(), g.Runs, w.Coordinates(), w.Counts())
		}
	}
	sameRuns(t, live, replayed, 36)

	code, out := runToolscore(t, "run", "--backend", "local", "--runs", "2", "--out", t.TempDir(), "--replay", live)
	if code != 2 || !strings.Contains(out, "holds no recording of 36 of the 72 runs to replay (the first: ") || strings.Contains(out, "on the local backend") {
		t.Fatalf("--runs 2: exit %d, want 2 naming the 36 runs with no recording, before any run:\n%s", code, out)
	}
}
