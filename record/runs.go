package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
	"unicode/utf8"
)

// Run is one line of runs.jsonl: a finished run, where it sits in the matrix, and its grade
// with the full evidence.
type Run struct {
	Cell
	Run int `json:"run"`
	// Negotiated is the protocol version the run's handshake settled on, as the proxy saw it.
	Negotiated string `json:"negotiated,omitempty"`
	Seed       uint64 `json:"seed"`
	Grade
	Millis   int64  `json:"ms"`
	ExitCode int    `json:"exit_code"`
	Stderr   string `json:"stderr,omitempty"`
	// Tee is the run's transcript, relative to the output directory.
	Tee string `json:"tee"`
	// Alone marks a run run again alone after the sweep, counted beside its cell's runs, never
	// in them (AloneFile).
	Alone bool `json:"alone,omitempty"`
	// ReusedFrom and CacheKey mark a run taken from the cell cache, not run by this sweep: when
	// the sweep that ran it started, and the entry's key. A resumed sweep counts it as reused.
	ReusedFrom *time.Time `json:"reused_from,omitempty"`
	CacheKey   string     `json:"cache_key,omitempty"`
}

// RunsIn reads the run records of an output directory's runs.jsonl, as many as are whole; none
// when it has none.
func RunsIn(dir string) []Run {
	path := filepath.Join(dir, RunsFile)
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var runs []Run
	ReadRunsAny(f, path, func(_ int, r *Run) error {
		runs = append(runs, *r)
		return nil
	})
	return runs
}

// ReadRuns reads the records of runs.jsonl (or alone.jsonl) from r, a line at a time whatever
// its size, calling each for every record with its line number, and returns the length of the
// part that holds whole records. A last line without its newline that is not a whole record is
// what a sweep killed while writing it leaves: it is not read, and good ends before it. Any
// other line that is not a run's record (one with an outcome: what the counts need) is an error
// naming name and its line; so is each's error, which stops the read.
func ReadRuns(r io.Reader, name string, each func(line int, run *Run) error) (good int64, err error) {
	return readRuns(r, name, true, each)
}

// ReadRunsAny is ReadRuns for a reader that shows what each record holds (the report's evidence,
// a repro, a replay) rather than counting it: a line that is a record without an outcome is read
// as it is, where the counts refuse it.
func ReadRunsAny(r io.Reader, name string, each func(line int, run *Run) error) (good int64, err error) {
	return readRuns(r, name, false, each)
}

// readRuns is ReadRuns; outcome says whether a record needs an outcome to be whole.
func readRuns(r io.Reader, name string, outcome bool, each func(line int, run *Run) error) (good int64, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return good, fmt.Errorf("reading %s: %w", name, err)
		}
		last := errors.Is(err, io.EOF)
		if len(bytes.TrimSpace(b)) > 0 {
			run := new(Run)
			if uerr := json.Unmarshal(b, run); uerr != nil || outcome && run.Outcome == "" {
				if last && b[len(b)-1] != '\n' {
					return good, nil // a record cut short by a kill
				}
				if uerr == nil {
					uerr = errors.New("it has no outcome")
				}
				return good, fmt.Errorf("%s:%d: not a run's record: %w", name, line, uerr)
			}
			if err := each(line, run); err != nil {
				return good, err
			}
		}
		good += int64(len(b))
		if last {
			return good, nil
		}
	}
}

// Line encodes a run's record as its line of runs.jsonl, newline included: valid UTF-8 JSON
// whatever the server sent. What a library returned is kept as it returned it, bytes that are
// not UTF-8 included, and each such byte is written as U+FFFD, as encoding/json writes a
// string's (the transcript keeps the exact bytes).
func Line(rec any) ([]byte, error) {
	line, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	if utf8.Valid(line) {
		return append(line, '\n'), nil
	}
	out := make([]byte, 0, len(line)+64)
	for len(line) > 0 {
		r, n := utf8.DecodeRune(line)
		if r == utf8.RuneError && n == 1 {
			out = append(out, "\ufffd"...) // only a JSON string can hold such a byte
		} else {
			out = append(out, line[:n]...)
		}
		line = line[n:]
	}
	return append(out, '\n'), nil
}
