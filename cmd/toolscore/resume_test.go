package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenarios"
	"github.com/toolscore/toolscore/tally"
)

// resumeSweepArgs is a 40-run sweep of the embedded ledger on the local backend: 2 clients × 5
// faults × 2 schema modes, one protocol and transport, 2 runs a cell.
var resumeSweepArgs = []string{"run", "--backend", "local", "--clients", "raw,go-sdk/call",
	"--faults", "clean,rpc-error,corrupt,type-swap,empty", "--protocols", "2025-11-25", "--transports", "stdio",
	"--runs", "2", "--parallel", "2"}

// TestResumeAfterKill: a sweep SIGKILLed at a random point, then run on with --resume, counts
// what the same sweep never killed counts (10 trials, the kill points drawn over the sweep's
// whole length, past its end too); before the resume, report and merge count the runs the
// killed sweep finished. A second sweep on the output directory of a running one is refused
// with exit 2 naming it, and the lock dies with the killed sweep (every resume takes it).
func TestResumeAfterKill(t *testing.T) {
	ref := t.TempDir()
	start := time.Now()
	first := startSweep(t, append(resumeSweepArgs, "--out", ref)...)
	waitFile(t, filepath.Join(ref, "sweep.json"), nil, first)

	// Another sweep on the same --out, fresh or resumed, is refused while the first runs.
	for _, args := range [][]string{append(resumeSweepArgs, "--out", ref), {"run", "--resume", ref}} {
		out, err := exec.Command(os.Args[0], args...).CombinedOutput()
		if code := exitCode(err); code != 2 || !strings.Contains(string(out), "in use by another sweep (pid "+strconv.Itoa(first.cmd.Process.Pid)+", started ") {
			t.Errorf("%v on the --out of a running sweep: exit %d, want 2 naming pid %d:\n%s", args[1:], code, first.cmd.Process.Pid, out)
		}
	}
	if code := first.wait(t); code != 0 {
		t.Fatalf("the sweep never killed exited %d:\n%s", code, first.stderr.String())
	}
	took := time.Since(start)
	want := tallies(t, ref)
	if len(want) != 20 || runsIn(want) != 40 {
		t.Fatalf("the sweep never killed counted %d runs in %d cells, want 40 in 20", runsIn(want), len(want))
	}

	seed := uint64(time.Now().UnixNano())
	t.Logf("kill points drawn with seed %d; the sweep never killed took %s", seed, took.Round(time.Millisecond))
	rng := rand.New(rand.NewPCG(seed, 0))
	merged := false
	for trial := range 10 {
		out := t.TempDir()
		if trial == 0 {
			// The directory of another, finished sweep: nothing of it may count for this one.
			b, err := exec.Command(os.Args[0], "run", "--backend", "local", "--clients", "raw", "--faults", "clean", "--schema", "hidden",
				"--protocols", "2025-11-25", "--transports", "stdio", "--runs", "1", "--out", out).CombinedOutput()
			if code := exitCode(err); code != 0 {
				t.Fatalf("the sweep before exited %d:\n%s", code, b)
			}
		}
		// The sweep before's sweep.json is there from the start: wait for this sweep's, else a
		// kill in its first milliseconds finds the directory untouched (the sweep before's, rightly).
		before, _ := os.ReadFile(filepath.Join(out, "sweep.json"))
		s := startSweep(t, append(resumeSweepArgs, "--out", out)...)
		waitFile(t, filepath.Join(out, "sweep.json"), before, s)
		// The kill point: once a number of runs drawn from 0 to 40 are recorded, then up to
		// two runs' time later, so kills spread over the sweep whatever the machine's speed
		// (40: between the last record and results.json, or after it).
		runs := filepath.Join(out, "runs.jsonl")
		after, at := rng.IntN(41), time.Duration(rng.Int64N(int64(took/20)+1))
		if trial == 9 {
			after = 40 // once at least, the end: results.json written or about to be
		}
		waitRuns(t, runs, after, s)
		time.Sleep(at)
		s.cmd.Process.Signal(syscall.SIGKILL)
		s.wait(t)
		finished := countLines(runs)
		_, statErr := os.Stat(filepath.Join(out, "results.json"))
		t.Logf("trial %d: killed %s after %d runs, %d runs recorded, results.json written: %v", trial+1, at.Round(time.Millisecond), after, finished, statErr == nil)

		{
			// report counts what runs.jsonl holds, also without results.json.
			var got tally.Results
			b, err := exec.Command(os.Args[0], "report", out, "--format", "json").Output()
			if err == nil {
				err = json.Unmarshal(b, &got)
			}
			if err != nil {
				t.Fatalf("report of a killed sweep: %v", err)
			}
			if counted := runsIn(countsOf(&got)); counted != finished || len(got.Cells) != 20 || !got.Interrupted && finished < 40 {
				t.Errorf("report of a killed sweep counts %d runs in %d cells (interrupted %v), runs.jsonl holds %d (want those, in 20 cells)", counted, len(got.Cells), got.Interrupted, finished)
			}
			if !merged && finished > 0 && statErr != nil {
				merged = true
				checkMergePartial(t, out, ref, want)
			}
		}
		if trial%3 == 0 && finished > 0 {
			// What a kill in the middle of writing a record leaves: half a line.
			appendTorn(t, runs)
		}

		r := exec.Command(os.Args[0], "run", "--resume", out)
		b, err := r.CombinedOutput()
		if code := exitCode(err); code != 0 {
			t.Fatalf("trial %d: --resume exited %d:\n%s", trial+1, code, b)
		}
		if got := tallies(t, out); !reflect.DeepEqual(got, want) {
			t.Errorf("trial %d: resumed after %d runs, the counts differ from the sweep never killed:\n got %v\nwant %v", trial+1, finished, got, want)
		}
		checkRunsOnce(t, runs)
		if left := sweepProcesses(out); len(left) > 0 {
			t.Errorf("trial %d: processes of the sweep outlived its resume: %v", trial+1, left)
		}
	}
	if !merged {
		t.Log("no kill left a sweep without results.json and with a run: merge of a partial sweep not checked this time")
	}
}

// checkMergePartial merges the killed sweep in partial with the whole one in ref: every cell
// counts its runs in both, none that ran in partial is "not run".
func checkMergePartial(t *testing.T, partial, ref string, whole map[string]string) {
	t.Helper()
	part := tallies(t, partial)
	m := filepath.Join(t.TempDir(), "merged")
	b, err := exec.Command(os.Args[0], "merge", "--out", m, partial, ref).CombinedOutput()
	if code := exitCode(err); code != 0 {
		t.Fatalf("merge of a killed sweep and a whole one exited %d:\n%s", code, b)
	}
	got := tallies(t, m)
	for key, w := range whole {
		runs := func(s string) int { n, _ := strconv.Atoi(strings.Fields(s)[0]); return n }
		if want := runs(w) + runs(part[key]); runs(got[key]) != want {
			t.Errorf("merged cell %s counts %q, want %d runs (%q + %q)", key, got[key], want, part[key], w)
		}
	}
	if n := countLines(filepath.Join(m, "runs.jsonl")); n != runsIn(got) {
		t.Errorf("the merged runs.jsonl holds %d records, its counts %d runs", n, runsIn(got))
	}
}

// TestResumeRefused: --resume refuses, with exit 2 and nothing run, a directory no sweep
// started in, flags that would change the sweep, and a sweep whose manifest changed since.
func TestResumeRefused(t *testing.T) {
	dir := t.TempDir()
	manifest := filepath.Join(dir, "ledger.yaml")
	if err := os.WriteFile(manifest, scenarios.Ledger, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	b, err := exec.Command(os.Args[0], "run", manifest, "--backend", "local", "--clients", "raw", "--faults", "clean",
		"--schema", "hidden", "--protocols", "2025-11-25", "--transports", "stdio", "--runs", "1", "--out", out).CombinedOutput()
	if code := exitCode(err); code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, b)
	}
	if err := os.Remove(filepath.Join(out, "results.json")); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(manifest, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("# edited after the sweep started\n")
	f.Close()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--resume", t.TempDir()}, "has no sweep.json"},
		{[]string{"run", "--resume", out, "--runs", "3"}, "only --parallel, --fail-on, --cache and --no-cache may be given with it, not [--runs]"},
		{[]string{"run", manifest, "--resume", out}, "not [" + manifest + "]"},
		{[]string{"run", "--resume", out}, "its scenario " + manifest + " changed since the sweep started"},
	} {
		b, err := exec.Command(os.Args[0], c.args...).CombinedOutput()
		if code := exitCode(err); code != 2 || !strings.Contains(string(b), c.want) {
			t.Errorf("%v: exit %d, want 2 saying %q:\n%s", c.args[1:], code, c.want, b)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "results.json")); err == nil {
		t.Error("a refused resume wrote results.json")
	}
}

type sweepProc struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	done   chan error
}

func startSweep(t *testing.T, args ...string) *sweepProc {
	t.Helper()
	s := &sweepProc{cmd: exec.Command(os.Args[0], args...), done: make(chan error, 1)}
	s.cmd.Stderr = &s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- s.cmd.Wait() }()
	t.Cleanup(func() { s.cmd.Process.Kill(); <-s.done; s.done <- nil })
	return s
}

// wait waits for the sweep's exit (two minutes at most) and returns its code.
func (s *sweepProc) wait(t *testing.T) int {
	t.Helper()
	select {
	case err := <-s.done:
		s.done <- err // for the cleanup
		return exitCode(err)
	case <-time.After(2 * time.Minute):
		t.Fatalf("the sweep did not end in two minutes:\n%s", s.stderr.String())
	}
	return -1
}

// waitFile waits until the sweep s has made path, with contents other than old (nil: any).
func waitFile(t *testing.T, path string, old []byte, s *sweepProc) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		if b, err := os.ReadFile(path); err == nil && (old == nil || !bytes.Equal(b, old)) {
			return
		}
		select {
		case err := <-s.done:
			s.done <- err
			t.Fatalf("the sweep exited (%v) before it made %s:\n%s", err, path, s.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within a minute:\n%s", path, s.stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitRuns waits until runs.jsonl at path holds n records, or the sweep s has ended.
func waitRuns(t *testing.T, path string, n int, s *sweepProc) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for countLines(path) < n {
		select {
		case err := <-s.done:
			s.done <- err
			return
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %d runs in %s within two minutes:\n%s", n, path, s.stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// tallies reads the counts of the output directory dir (results.json, else sweep.json and
// runs.jsonl) as toolscore report does.
func tallies(t *testing.T, dir string) map[string]string {
	t.Helper()
	b, err := exec.Command(os.Args[0], "report", dir, "--format", "json").Output()
	var res tally.Results
	if err == nil {
		err = json.Unmarshal(b, &res)
	}
	if err != nil {
		t.Fatalf("report %s: %v", dir, err)
	}
	return countsOf(&res)
}

// countsOf is each cell's runs, planned runs and outcome counts, by key.
func countsOf(res *tally.Results) map[string]string {
	m := map[string]string{}
	for _, c := range res.Cells {
		m[c.Key()] = fmt.Sprintf("%d of %d: %s", c.Runs, c.Planned, c.Counts())
	}
	return m
}

func runsIn(counts map[string]string) int {
	n := 0
	for _, s := range counts {
		k, _ := strconv.Atoi(strings.Fields(s)[0])
		n += k
	}
	return n
}

// appendTorn appends the first half of runs.jsonl's first record, with no newline.
func appendTorn(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(line[:len(line)/2]); err != nil {
		t.Fatal(err)
	}
}

// checkRunsOnce checks that every line of runs.jsonl is a whole record, and each run of each
// cell is recorded once.
func checkRunsOnce(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for n := 1; sc.Scan(); n++ {
		var r record.Run
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.Outcome == "" {
			t.Errorf("%s:%d is not a whole record (%v): %.200s", path, n, err, sc.Bytes())
			continue
		}
		k := r.Key() + " run " + strconv.Itoa(r.Run)
		if seen[k] {
			t.Errorf("%s:%d: %s is recorded twice", path, n, k)
		}
		seen[k] = true
	}
}
