package runner

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// origin is where a run of the sweep came from.
type origin int

const (
	// resumed is a run runs.jsonl recorded before the sweep was resumed: counted, nothing more.
	resumed origin = iota
	// cached is a run of a cell the cell cache gave.
	cached
	// executed is a run that ran now.
	executed
)

// sink takes every run of the sweep, wherever it came from: it writes the run's line (to
// runs.jsonl, or alone.jsonl for a run alone), counts it into its cell, reports progress and
// offers it to the cell cache. It is the one place a run is counted, so resume, the cache and
// execution count alike.
type sink struct {
	o   Options
	res *tally.Results

	mu sync.Mutex
	// runs is runs.jsonl, open for the runs to come; w writes to it, aloneW to alone.jsonl
	// (opened when the first run alone ends).
	runs, aloneFile *os.File
	w, aloneW       *bufio.Writer
	// werr is the first write that failed: no line is written after it. stop stops the sweep:
	// a run to run again whose directory could not be cleared, or a run whose output found no
	// room.
	werr, stop error
	// done are the runs a resumed sweep found recorded.
	done map[doneRun]bool
	// suspect holds, per cell, the first run of this sweep whose outcome the machine's load may
	// have made: it runs again alone once the sweep is over.
	suspect map[int]Job
}

// openSink opens the output of the sweep of res: started afresh, or resumed, the runs recorded
// then taken into the sink.
func (o Options) openSink(res *tally.Results) (*sink, error) {
	s := &sink{o: o, res: res, done: map[doneRun]bool{}, suspect: map[int]Job{}}
	var err error
	if o.Resume {
		s.runs, err = o.resume(res, s.done, func(i int, r *record.Run) { s.add(Job{Index: i}, r, resumed) })
	} else {
		s.runs, err = o.start(res)
	}
	if err != nil {
		return nil, err
	}
	s.w = bufio.NewWriter(s.runs)
	return s, nil
}

// close closes the files the sink writes.
func (s *sink) close() {
	s.runs.Close()
	if s.aloneFile != nil {
		s.aloneFile.Close()
	}
}

// take takes run rec of job j's cell, from where it came (add).
func (s *sink) take(j Job, rec *record.Run, from origin) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.add(j, rec, from)
}

// add takes run rec of job j's cell (of a run resumed or cached, only its Index is known), with
// s.mu held. A run executed is written, counted, offered to the cache and reported; a cached
// one is written and counted, but not when its line cannot be written (the error returned);
// a resumed one, on disk already, is counted.
func (s *sink) add(j Job, rec *record.Run, from origin) error {
	switch from {
	case resumed:
		if rec.ReusedFrom != nil {
			s.res.RunsReused++
		} else {
			s.res.RunsExecuted++
		}
	case cached:
		if err := s.write(j, runLine(*rec)); err != nil {
			return err
		}
		s.res.RunsReused++
	case executed:
		line := runLine(*rec)
		s.o.ranRun(j, line)
		if j.Alone {
			s.o.aloneRan(j, rec.Outcome)
		}
		s.res.RunsExecuted++
		s.write(j, line) // a run that ran is counted even when its line could not be written
	}
	c := s.res.Cells[j.Index]
	c.AddRun(rec)
	if from != executed {
		return nil
	}
	p := s.o.Progress
	if j.Alone {
		if p != nil {
			p.AloneDone(c, rec.Outcome)
		}
		return nil
	}
	if prev, seen := s.suspect[j.Index]; loadMayMake(rec.Outcome) && (!seen || j.Run < prev.Run) {
		s.suspect[j.Index] = j
	}
	if p != nil {
		p.RunDone(j.Cell, j.Run, rec.Outcome, c.Runs == c.Planned, c)
	}
	return nil
}

// write writes line, of job j's run, to runs.jsonl (alone.jsonl for a run alone), unless a
// write failed before; it returns the first write's error.
func (s *sink) write(j Job, line []byte) error {
	if to := s.w; s.werr == nil {
		if j.Alone {
			to = s.aloneW
		}
		to.Write(line)
		s.werr = to.Flush() // each run is on disk as it ends, so an interrupt loses none
	}
	return s.werr
}

// takeCached takes the runs of cell i from the cell cache when it holds them (reuseCell):
// false when the cell is to run.
func (s *sink) takeCached(i int) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.o.reuseCell(i, s.res.Cells[i], func(rec *record.Run) error { return s.add(Job{Index: i}, rec, cached) })
}

// started tells the progress how many runs the sweep will run, and how many cells are complete
// before the first: those resumed whole, and those the cache gives.
func (s *sink) started() {
	if s.o.Progress == nil {
		return
	}
	total, complete := 0, 0
	for i, c := range s.res.Cells {
		if s.o.cachedCell(i) {
			complete++
			continue
		}
		total += c.Planned - c.Runs
		if c.Planned > 0 && c.Runs == c.Planned {
			complete++
		}
	}
	s.o.Progress.Started(total, complete)
}

// runStarted reports that run j starts.
func (s *sink) runStarted(j Job) {
	if s.o.Progress != nil && !j.Alone {
		s.mu.Lock()
		s.o.Progress.RunStarted(j.Cell, j.Run)
		s.mu.Unlock()
	}
}

// stopWith stops the sweep with err, the first such error kept.
func (s *sink) stopWith(err error) {
	s.mu.Lock()
	s.stop = cmp.Or(s.stop, err)
	s.mu.Unlock()
}

// stopped says whether the sweep was stopped (stopWith).
func (s *sink) stopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stop != nil
}

// openAlone opens alone.jsonl for the runs alone, once.
func (s *sink) openAlone() error {
	if s.aloneW != nil {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(s.o.Out, record.AloneFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		s.werr = err
		return err
	}
	s.aloneFile, s.aloneW = f, bufio.NewWriter(f)
	return nil
}

// finish ends the sweep's counts, and says what stopped it: a line that could not be written,
// or stop.
func (s *sink) finish(ctx context.Context) (*tally.Results, error) {
	s.res.Finished = time.Now().UTC()
	s.res.Interrupted = ctx.Err() != nil
	if s.werr != nil {
		return s.res, fmt.Errorf("writing %s: %w", record.RunsFile, s.werr)
	}
	return s.res, s.stop
}
