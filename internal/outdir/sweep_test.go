package outdir

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// TestLock: a locked output directory refuses a second lock, also from the same process (each
// lock is its own open file), naming the holder's pid; once released it locks again.
func TestLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	release, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Lock(dir)
	var locked *LockedError
	if !errors.As(err, &locked) || locked.Holder.PID != os.Getpid() || !strings.Contains(err.Error(), "in use by another sweep (pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("a second Lock: %v, want a LockedError naming pid %d", err, os.Getpid())
	}
	release()
	release, err = Lock(dir)
	if err != nil {
		t.Fatalf("Lock after release: %v", err)
	}
	release()
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := Lock(file); err == nil || errors.As(err, &locked) {
		t.Errorf("Lock of a file: %v, want an error making the directory", err)
	}
}

// A record as the runner writes it, and one cut short.
const (
	record1 = `{"client":"raw","fault":"clean","schema":"hidden","protocol":"as-is","transport":"stdio","run":1,"outcome":"passed","ms":5,"tee":"runs/a/run-1/tee.jsonl","observation":{"library":"raw"}}` + "\n"
	record2 = `{"client":"raw","fault":"clean","schema":"hidden","protocol":"as-is","transport":"stdio","run":2,"outcome":"threw","evidence":"boom","ms":7,"tee":"runs/a/run-2/tee.jsonl"}` + "\n"
)

// TestReadRuns: whole records are read and counted in good; a last line cut short is not
// (nor is it an error), while a bad line anywhere else is, named by its line.
func TestReadRuns(t *testing.T) {
	for _, c := range []struct {
		name, data string
		runs       int
		good       int
		err        string
	}{
		{"whole", record1 + record2, 2, len(record1 + record2), ""},
		{"cut short", record1 + record2[:40], 1, len(record1), ""},
		{"no newline", record1 + strings.TrimSuffix(record2, "\n"), 2, len(record1+record2) - 1, ""},
		{"blank lines", "\n" + record1 + "\n", 1, len(record1) + 2, ""},
		{"bad line", record1 + "{\"run\":2}\n" + record2, 1, len(record1), "runs.jsonl:2: not a run's record: it has no outcome"},
		{"cut in the middle", record1[:30] + "\n" + record2, 0, 0, "runs.jsonl:1: not a run's record"},
	} {
		n := 0
		good, err := record.ReadRuns(strings.NewReader(c.data), "runs.jsonl", func(int, *record.Run) error { n++; return nil })
		if n != c.runs || int(good) != c.good || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %d runs, good %d, %v; want %d, %d, %q", c.name, n, good, err, c.runs, c.good, c.err)
		}
	}
}

// TestRebuild: a directory with sweep.json and runs.jsonl but no results.json (a sweep killed)
// reads as the counts of its whole records, interrupted, with its expectations checked; merge
// counts it the same and leaves the cut record out of the merged runs.jsonl.
func TestRebuild(t *testing.T) {
	dir := t.TempDir()
	plan := &tally.Results{Scenario: "ledger", Backend: "local", Cells: []*tally.Cell{
		{Cell: record.Cell{Client: "raw", Fault: "clean", Schema: "hidden", Protocol: "as-is", Transport: "stdio"}, Planned: 3},
		{Cell: record.Cell{Client: "raw", Fault: "error", Schema: "hidden", Protocol: "as-is", Transport: "stdio"}, Planned: 3},
	}}
	sel := []tally.Selection{{Expectation: tally.Expectation{Line: 7, Client: "raw", Fault: "clean", Outcome: "passed"},
		Cells: []record.Cell{{Client: "raw", Fault: "clean", Schema: "hidden", Protocol: "as-is", Transport: "stdio"}}}}
	if err := WriteSweep(dir, &Sweep{Plan: plan, Expect: sel}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, record.RunsFile), []byte(record1+record2+record1[:50]), 0o644)
	for _, read := range []func(string) (*tally.Results, error){ReadResults, ReadCounts} {
		got, err := read(dir)
		if err != nil {
			t.Fatal(err)
		}
		c := got.Cells[0]
		if c.Runs != 2 || c.Outcome["passed"] != 1 || c.Outcome["threw"] != 1 || c.Library != "raw" || got.Cells[1].Runs != 0 || !got.Interrupted ||
			len(got.Expectations) != 1 || got.Expectations[0].State() != tally.Unmet || c.Examples["threw"].Evidence != "boom" {
			t.Errorf("rebuilt: %+v, cell %+v, expectations %+v", got, c, got.Expectations)
		}
	}
	out := filepath.Join(t.TempDir(), "merged")
	m, err := Merge(out, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteMerged(out, []string{dir}, m); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, record.RunsFile)); string(b) != record1+record2 || m.Cells[0].Runs != 2 {
		t.Errorf("merged %d runs, runs.jsonl:\n%s", m.Cells[0].Runs, b)
	}
	if _, err := ReadResults(t.TempDir()); err == nil {
		t.Error("ReadResults of an empty directory succeeded")
	}
}
