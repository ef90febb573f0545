package enginebench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolscore/toolscore/record"
)

// Sweep runs a toolscore command (bin argv...) in dir as a user runs it, timing the whole
// command, and returns its stderr for the caller's own checks. On failure the error quotes the
// ends of both its outputs, where the command says why.
func Sweep(ctx context.Context, bin, dir string, argv []string) (stderr []byte, wall time.Duration, err error) {
	cmd := exec.CommandContext(ctx, bin, argv...)
	cmd.Dir = dir
	cmd.WaitDelay = 10 * time.Second
	var outBuf, errBuf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &outBuf, &errBuf
	t0 := time.Now()
	err = cmd.Run()
	wall = time.Since(t0)
	if err != nil {
		err = fmt.Errorf("toolscore %s: %v\n%s%s", strings.Join(argv, " "), err, Tail(outBuf.Bytes(), 1500), Tail(errBuf.Bytes(), 3000))
	}
	return errBuf.Bytes(), wall, err
}

// Run is one record of a sweep's runs.jsonl, the fields the benchmarks read.
type Run struct {
	Client  string         `json:"client"`
	Outcome record.Outcome `json:"outcome"`
	Ms      int64          `json:"ms"`     // the backend's Took: container create to the end of the cell's output
	Stderr  string         `json:"stderr"` // the cell's stderr
}

// ReadRuns reads the runs.jsonl in a sweep's out directory, checking what a benchmark's figures
// rest on: want runs, all of client, none crashed or hung (the error then quotes the end of
// the sweep's stderr).
func ReadRuns(out, client string, want int, stderr []byte) ([]Run, error) {
	f, err := os.Open(filepath.Join(out, record.RunsFile))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var runs []Run
	outcomes := map[record.Outcome]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var rec Run
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("runs.jsonl: %w", err)
		}
		if rec.Client != client {
			return nil, fmt.Errorf("runs.jsonl has a run of %q, want %q", rec.Client, client)
		}
		outcomes[rec.Outcome]++
		runs = append(runs, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(runs) != want {
		return nil, fmt.Errorf("%s: runs.jsonl has %d runs, want %d", client, len(runs), want)
	}
	for _, bad := range []record.Outcome{record.Crashed, record.Hung} {
		if outcomes[bad] > 0 {
			return nil, fmt.Errorf("%s: %d run(s) %s: %s", client, outcomes[bad], bad, Tail(stderr, 2000))
		}
	}
	return runs, nil
}

// ReadAllRuns reads every record of a sweep's runs.jsonl, of any client, none of which may have
// crashed or hung (the error then quotes the end of the sweep's stderr).
func ReadAllRuns(out string, stderr []byte) ([]Run, error) {
	f, err := os.Open(filepath.Join(out, record.RunsFile))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var runs []Run
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var rec Run
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("runs.jsonl: %w", err)
		}
		if rec.Outcome == record.Crashed || rec.Outcome == record.Hung {
			return nil, fmt.Errorf("%s: a run %s: %s", rec.Client, rec.Outcome, Tail(stderr, 2000))
		}
		runs = append(runs, rec)
	}
	return runs, sc.Err()
}
