// Package execute runs one run and makes its record: the backend runs the adapter (with the
// proxy wrapped around the server, as the run's spec says), secrets are masked in what the run
// left, the transcript is ended and read back, and the run is graded (package grade). It is the
// one pipeline from a run's spec to its record: the runner calls [Run] for every run of a sweep,
// and toolscore check-client for each of its runs.
//
// It sits below the runner, apart from the sweep's plan, backends' choice and image building,
// so that whatever runs one run (the cell cache's check of a stored record, next) can call it
// without importing the runner.
//
// Uses: backend (the spec and the result), transcript, grade, record.
package execute

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"
	"time"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/grade"
	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
)

// Backend executes one run's spec; local.Backend and docker.Backend implement it.
type Backend interface {
	Run(ctx context.Context, s backend.Spec) backend.Result
}

// Job is one run to execute.
type Job struct {
	// Spec is what the backend runs. Its Dir is the run's directory on this machine, where the
	// run's proxy writes the transcript (record.TeeFile).
	Spec backend.Spec
	// Cell, Run and Seed are the run's coordinates in its record; Dir is the run's directory
	// as its record names it (relative to the sweep's output).
	Cell record.Cell
	Run  int
	Seed uint64
	Dir  string
	// Agent says the client is an agent, whose final answer is graded against Truth.
	Agent bool
	Truth []string
	// SideEffects is the manifest's side_effects of the run's tool (nil: unset, the server's
	// annotations decide whether a repeated call is a duplicate).
	SideEffects *bool
	// Recording, for a run played against a recording (toolscore run --replay), is the path of
	// the recorded transcript on this machine.
	Recording string
	// Secrets are masked wherever they appear in the run's files and output (empty ones aside).
	Secrets []string
}

// Ran is an executed run: its record, and the backend's result it was made from (its Stderr
// masked). A run cancelled midway has its Result.Cancelled set and no record.
type Ran struct {
	Record record.Run
	Result backend.Result
}

// Run executes job j on be and grades it. Its error is the machine's, never the client's: the
// run's transcript could not be ended for want of room ([NoRoom]), so what the client did is
// unknown.
func Run(ctx context.Context, be Backend, j Job) (Ran, error) {
	res := be.Run(ctx, j.Spec)
	// Nothing the vendor, the agent or the server echoed may keep a key or a from_env value:
	// not the run's files, not its output.
	redact(j.Spec.Dir, &res, j.Secrets)
	if res.Cancelled {
		return Ran{Result: res}, nil
	}
	// A client that started the server more than once left a transcript per session: the run is
	// graded on, and its record names, the one that carried its call.
	first := filepath.Join(j.Spec.Dir, record.TeeFile)
	tee := transcript.GradedSession(first)
	// The end goes into every session's transcript before it is read back, so the reading (and
	// what it says of a record the proxy left cut short) is of the transcript as it stays on
	// disk. A session other than the graded one that was cut short may have held the call the
	// graded one lacks (its record lost with the proxy): the grader hears of it.
	var otherCut string
	for _, s := range transcript.Sessions(first) {
		ended, err := transcript.EndWithout(s, noExitWhy(res, j.Spec.Timeout),
			map[string]any{"timed_out": res.TimedOut, "oom_killed": res.OOMKilled, "adapter_exit": res.ExitCode})
		if NoRoom(err) {
			return Ran{Result: res}, fmt.Errorf("ending the transcript %s: %w", filepath.Base(s), err)
		} else if err != nil {
			res.Stderr = append(res.Stderr, "\ntoolscore: ending the transcript "+filepath.Base(s)+": "+err.Error()...)
		}
		if ended && s != tee && otherCut == "" {
			otherCut = filepath.Base(s)
		}
	}
	// Read in one pass keeping only what grading reads: a flood of messages costs no memory. A
	// missing transcript is a run whose proxy never started: nothing was on the wire.
	entries, calls, terr := transcript.ReadForGradingCalls(tee)
	if errors.Is(terr, fs.ErrNotExist) {
		terr = nil
	}
	in := grade.Input{Run: gradeRun(res), Transcript: entries, Unread: terr, Calls: calls, SideEffects: j.SideEffects, Agent: j.Agent, Truth: j.Truth, OtherCut: otherCut}
	if j.Recording != "" {
		// A recording that cannot be read adds no negotiation and no fault's values: the run is
		// graded on its own transcript.
		in.Replayed = true
		in.Recording, _ = transcript.ReadForGrading(j.Recording)
	}
	return Ran{Result: res, Record: record.Run{
		Cell: j.Cell, Negotiated: transcript.Negotiated(entries).Version,
		Run: j.Run, Seed: j.Seed, Grade: in.Grade(), Millis: res.Took.Milliseconds(), ExitCode: res.ExitCode,
		Stderr: tail(res.Stderr, 4096), Tee: filepath.Join(j.Dir, filepath.Base(tee)),
	}}, nil
}

// gradeRun is what the grader reads of a run's result.
func gradeRun(res backend.Result) grade.Run {
	return grade.Run{Stdout: res.Stdout, Stderr: res.Stderr, ExitCode: res.ExitCode, TimedOut: res.TimedOut,
		OOMKilled: res.OOMKilled, Took: res.Took, CPU: res.CPU, Err: res.Err}
}

// noExitWhy says why a run's transcript may lack the server's exit: how the run ended, which
// only whoever ran it knows.
func noExitWhy(res backend.Result, timeout time.Duration) string {
	switch {
	case res.TimedOut:
		return fmt.Sprintf("the run's timeout (%s) ran out, and its processes were killed before the proxy saw the server exit", timeout)
	case res.OOMKilled:
		return "the cell ran out of memory and was killed before the proxy saw the server exit"
	}
	return fmt.Sprintf("the proxy was gone before it saw the server exit (the adapter exited %d)", res.ExitCode)
}

// NoRoom says whether err is the output's storage refusing a write: full, over quota or
// read-only.
func NoRoom(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || errors.Is(err, syscall.EROFS)
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
