package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sourcegraph/conc/pool"
)

// execution runs the cells neither a resume nor the cell cache gave, their runs' records going
// to the sink. A cell's runs go to one worker, one after the other: on docker they share the
// cell's container.
type execution struct {
	ctx context.Context
	o   Options
	s   *sink
	p   *pool.Pool
	// cells is the backend when it runs each cell in a place of its own (cellBackend).
	cells cellBackend
}

func (o Options) execution(ctx context.Context, s *sink) *execution {
	cells, _ := o.Backend.(cellBackend)
	return &execution{ctx: ctx, o: o, s: s, p: pool.New().WithMaxGoroutines(max(o.Parallel, 1)), cells: cells}
}

// cell runs the runs of c not done yet. The backend hears of the cell before a worker is free
// for it, so it can start the cell's container while the cells before it run; p.Go waits for a
// worker, so cells and their runs are made as workers free up, never listed. The cell's held
// container starts from its client's image: built first, when the sweep found no cell of it to
// run before the cache turned this one down (runOne says why not).
func (x *execution) cell(c cellRuns) {
	ctx, o := x.ctx, x.o
	if x.cells != nil && o.Installs.Ready(ctx, c.First.Client.ID()) == nil {
		spec, _ := o.Spec(c.First, filepath.Join(o.Out, c.First.Dir()))
		x.cells.PrepareCell(ctx, spec)
	}
	x.p.Go(func() {
		if x.cells != nil {
			defer x.cells.EndCell(c.First.Cell.Key())
		}
		for j := range c.Runs {
			if ctx.Err() != nil || x.s.stopped() {
				return
			}
			if x.s.done[doneRun{j.Index, j.Run}] {
				continue
			}
			if o.Resume {
				// A run the kill cut short may have left files: it starts afresh.
				if err := os.RemoveAll(filepath.Join(o.Out, j.Dir())); err != nil {
					x.s.stopWith(fmt.Errorf("clearing the directory of a run to run again: %w", err))
					return
				}
			}
			x.run(j)
		}
		o.keepCell(ctx, c, x.s.res.Started)
	})
}

// run executes run j and gives its record to the sink.
func (x *execution) run(j Job) {
	x.s.runStarted(j)
	rec, ok, err := runOne(x.ctx, x.o, j)
	if err != nil {
		x.s.stopWith(err)
		return
	}
	if !ok {
		return // cancelled midway: not a finished run
	}
	rec.Alone = j.Alone
	x.s.take(j, &rec, executed)
}

// alone runs again, alone and one after the other once the sweep's runs are over, the runs
// whose outcome the machine's load may have made (aloneRuns).
func (x *execution) alone() {
	ctx, o, s := x.ctx, x.o, x.s
	alone := aloneRuns(s.suspect, s.res)
	if o.Progress != nil && len(alone) > 0 && ctx.Err() == nil && s.stop == nil {
		o.Progress.AloneStarted(len(alone), o.Scenario.Timeout.Std())
	}
	for _, j := range alone {
		if ctx.Err() != nil || s.stop != nil || s.werr != nil || s.openAlone() != nil {
			break
		}
		if x.cells != nil {
			spec, _ := o.Spec(j, filepath.Join(o.Out, j.Dir()))
			x.cells.PrepareCell(ctx, spec)
		}
		x.run(j)
		if x.cells != nil {
			x.cells.EndCell(j.Cell.Key())
		}
	}
}
