package runner

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// Results are the sweep's results before any run: every cell it counts with its planned runs.
func (o Options) Results() *tally.Results {
	sc := o.Scenario
	res := &tally.Results{Scenario: sc.Name, Toolscore: o.Version, Backend: o.Backend.Name(), BackendWhy: o.BackendWhy, Started: time.Now().UTC(), Cells: []*tally.Cell{}}
	if o.Shards > 0 {
		res.Shard = fmt.Sprintf("%d/%d", o.Shard, o.Shards)
	}
	for _, c := range sc.Clients {
		if why, ok := o.Unavailable[c.ID()]; ok {
			res.Unavailable = append(res.Unavailable, tally.Unavailable{Client: c.ID(), Reason: why})
		}
	}
	// Runs are numbered over the whole matrix, unavailable clients included, so a run lands in
	// the same shard whatever could run on the other machines.
	for i, c := range sc.Cells() {
		if _, ok := o.Unavailable[c.Client.ID()]; ok {
			continue
		}
		// Every cell is listed, also one with no run in this shard (planned 0), so merged
		// shards keep the unsharded order of cells (Job.Index).
		res.Cells = append(res.Cells, &tally.Cell{Cell: c.Coordinates(), Planned: o.CellRuns(i)})
	}
	return res
}

// doneRun is a run a resumed sweep finds recorded: its cell's index and its number.
type doneRun struct{ cell, run int }

// start begins a new sweep in o.Out: runs.jsonl empty, sweep.json written with the plan res.
// What a sweep before left there goes first, in an order that a kill at any point leaves
// either no sweep.json (nothing to resume) or this sweep's.
func (o Options) start(res *tally.Results) (*os.File, error) {
	if err := os.Remove(filepath.Join(o.Out, record.SweepFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("removing the %s of the sweep before: %w", record.SweepFile, err)
	}
	if err := outdir.ClearCounts(o.Out); err != nil {
		return nil, err
	}
	if err := clearAlone(o.Out); err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(o.Out, record.RunsFile))
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", record.RunsFile, err)
	}
	rec := o.Record
	rec.Plan, rec.Expect = res, tally.Select(o.Scenario)
	if err := outdir.WriteSweep(o.Out, &rec); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// resume continues the sweep in o.Out, whose plan is res: the runs runs.jsonl records are
// given to add and marked done, a record cut short is cut off, and runs.jsonl is returned
// open for the runs still to come.
func (o Options) resume(res *tally.Results, done map[doneRun]bool, add func(i int, r *record.Run)) (*os.File, error) {
	s, err := o.CheckResume()
	if err != nil {
		return nil, err
	}
	// The sweep is the one that started then, for the reason it gave.
	res.Started, res.BackendWhy = s.Plan.Started, s.Plan.BackendWhy
	index := map[string]int{}
	for i, c := range res.Cells {
		index[c.Key()] = i
	}
	// The first run of each counted cell in this shard, which follow every step runs.
	first, step := make([]int, 0, len(res.Cells)), make([]int, 0, len(res.Cells))
	for m, c := range o.Scenario.Cells() {
		if _, ok := o.Unavailable[c.Client.ID()]; !ok {
			f, s := o.firstRun(m)
			first, step = append(first, f), append(step, s)
		}
	}
	path := filepath.Join(o.Out, record.RunsFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("resuming: %w", err)
	}
	good, err := record.ReadRuns(f, path, func(line int, r *record.Run) error {
		i, ok := index[r.Key()]
		if !ok {
			return fmt.Errorf("%s:%d: a run of %s, which is not a cell of this sweep", path, line, r.Key())
		}
		c := res.Cells[i]
		if r.Run < first[i] || r.Run > o.Scenario.Runs || (r.Run-first[i])%step[i] != 0 {
			return fmt.Errorf("%s:%d: run %d of %s, which is not a run of this sweep (%d planned)", path, line, r.Run, r.Key(), c.Planned)
		}
		if done[doneRun{i, r.Run}] {
			return fmt.Errorf("%s:%d: run %d of %s is recorded twice", path, line, r.Run, r.Key())
		}
		done[doneRun{i, r.Run}] = true
		add(i, r)
		return nil
	})
	if err == nil {
		// What follows the last whole record is a record cut short: its run runs again.
		err = f.Truncate(good)
	}
	if err == nil {
		_, err = f.Seek(good, 0)
	}
	if err == nil && good > 0 {
		// A whole record that lost only its newline gets it back, so the next is a line of its own.
		last := make([]byte, 1)
		if _, err = f.ReadAt(last, good-1); err == nil && last[0] != '\n' {
			_, err = f.Write([]byte("\n"))
		}
	}
	if err == nil {
		err = outdir.AddAlone(o.Out, res)
	}
	if err == nil {
		// The sweep counted its runs alone among the runs it executed (Run): so does its resume,
		// or a finished sweep resumed would say it ran fewer runs than it did.
		for _, c := range res.Cells {
			for _, n := range c.Alone {
				res.RunsExecuted += n
			}
		}
	}
	if err == nil {
		// Until this sweep writes its own, the directory's counts are those of its runs.jsonl.
		err = outdir.ClearCounts(o.Out)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("resuming: %w", err)
	}
	return f, nil
}

// CheckResume says whether the sweep in o.Out can be resumed with o: it must have a sweep.json
// whose plan is o's, cell for cell (the same matrix, runs and shard, the same clients
// unavailable). It returns the sweep.json read.
func (o Options) CheckResume() (*outdir.Sweep, error) {
	s, err := outdir.ReadSweep(o.Out)
	if err != nil {
		return nil, fmt.Errorf("cannot resume: %w", err)
	}
	was, now := s.Plan, o.Results()
	if was.Scenario != now.Scenario {
		return nil, fmt.Errorf("cannot resume %s: it is a sweep of the scenario %q, not %q", o.Out, was.Scenario, now.Scenario)
	}
	if was.Shard != now.Shard {
		return nil, fmt.Errorf("cannot resume %s: it is shard %q of its sweep, this would be %q", o.Out, was.Shard, now.Shard)
	}
	for i := range max(len(was.Cells), len(now.Cells)) {
		switch {
		case i >= len(now.Cells):
			return nil, fmt.Errorf("cannot resume %s: its cell %s would not run now (a client unavailable here?)", o.Out, was.Cells[i].Key())
		case i >= len(was.Cells):
			return nil, fmt.Errorf("cannot resume %s: the cell %s was not in its plan (a client unavailable when it started?)", o.Out, now.Cells[i].Key())
		case was.Cells[i].Key() != now.Cells[i].Key() || was.Cells[i].Planned != now.Cells[i].Planned:
			return nil, fmt.Errorf("cannot resume %s: its plan has %s with %d runs where this sweep has %s with %d (a client unavailable then or now, or another toolscore)", o.Out,
				was.Cells[i].Key(), was.Cells[i].Planned, now.Cells[i].Key(), now.Cells[i].Planned)
		}
	}
	// A sweep.json without a build predates the record of the adapters (the resume warned).
	if s.Build == "" {
		return s, nil
	}
	for _, id := range slices.Sorted(maps.Keys(o.Record.Adapters)) {
		then, now := s.Adapters[id], o.Record.Adapters[id]
		if then != now {
			return nil, fmt.Errorf("cannot resume %s: the adapter of the client %s changed since the sweep started (%s then, %s now): the runs of two adapters do not add up; start a new sweep, or put the client back as it was",
				o.Out, id, cmp.Or(then, "not recorded"), now)
		}
	}
	return s, nil
}

// clearAlone removes what a sweep before ran alone in out.
func clearAlone(out string) error {
	if err := os.Remove(filepath.Join(out, record.AloneFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing the %s of the sweep before: %w", record.AloneFile, err)
	}
	if err := os.RemoveAll(filepath.Join(out, record.AloneDir)); err != nil {
		return fmt.Errorf("removing the %s of the sweep before: %w", record.AloneDir, err)
	}
	return nil
}
