package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"time"

	"github.com/toolscore/toolscore/internal/backend/local"
	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/internal/runner"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/tally"
)

// MaxMatrixJobs is the most jobs GitHub Actions makes of one matrix, and so the most shards a
// plan has.
const MaxMatrixJobs = 256

// Shard is one job of a plan (toolscore plan, the action's input plan): its --shard, its cells
// and runs, and its runs' measured time one at a time, in seconds (0 when nothing was measured).
type Shard struct {
	Shard   string `json:"shard"`
	Cells   int    `json:"cells"`
	Runs    int    `json:"runs"`
	Seconds int64  `json:"estimate_s,omitempty"`
}

// ReadMeasured reads the results.json of --shard-by and --from: the file, or the one in an
// output directory.
func ReadMeasured(path string) (*tally.Results, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = outdir.Results(path)
	}
	return outdir.ReadResults(path)
}

// Narrow narrows sc as a sweep of c narrows it before it plans its shards, so that a plan counts
// the cells its shards will run: to c's axes and runs, and without the cells that do not apply
// (the faults that need an outputSchema, on a tool the server lists without one). That takes the
// sweep's preflight: the server started once, here, on the local backend, and its tools listed;
// a tool it does not list, or arguments that do not fit, are refused as the sweep refuses them.
// A server the preflight cannot start here (one only a cell image has) is said on stderr, and
// the plan counts the whole matrix.
func Narrow(ctx context.Context, sc *scenario.Scenario, c Config) error {
	_, stderr := c.writers()
	if err := errors.Join(sc.Filter(c.Clients, c.Faults, c.Schemas, c.Protocols, c.Transports), sc.FilterTools(c.Tools)); err != nil {
		return err
	}
	if c.Runs > 0 {
		sc.Runs = c.Runs
	}
	serverEnv, secrets, err := sc.ServerEnv(os.LookupEnv)
	if err != nil {
		// A plan job may well lack the server's secrets, which only the sweep's jobs need.
		fmt.Fprintf(stderr, "warning: the plan counts every cell of the matrix: it could not start the server here to leave out the cells that do not apply (%v)\n", err)
		return nil
	}
	self := c.Self
	if self == "" {
		if self, err = os.Executable(); err != nil {
			return err
		}
	}
	dir, err := os.MkdirTemp("", "toolscore-plan-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	o := runner.Options{Plan: runner.Plan{Scenario: sc}, Backend: local.Backend{Binary: self}, Out: dir, ServerEnv: serverEnv, Secrets: secrets}
	noSchema, err := preflight(ctx, o, stderr)
	switch {
	case len(scenario.Errors(err)) > 0, errors.Is(err, context.Canceled):
		return err
	case err != nil:
		fmt.Fprintf(stderr, "warning: the plan counts every cell of the matrix: it could not list the server's tools here to leave out the cells that do not apply (%v)\n", err)
		return nil
	}
	notApplicable(sc, noSchema, stderr)
	return nil
}

// Plan splits sc's sweep into shards jobs: whole cells balanced by their times in measured
// (runner.Balance), as --shard-by runs them; without measured, the runs dealt out as --shard
// alone deals them.
func Plan(sc *scenario.Scenario, shards int, measured *tally.Results) ([]Shard, error) {
	if shards < 1 || shards > MaxMatrixJobs {
		return nil, fmt.Errorf("%d shards: want 1 to %d (GitHub Actions makes at most %d jobs of a matrix)", shards, MaxMatrixJobs, MaxMatrixJobs)
	}
	cells := sc.Cells()
	plan := make([]Shard, shards)
	for s := range plan {
		plan[s].Shard = fmt.Sprintf("%d/%d", s+1, shards)
	}
	if measured == nil {
		for s := range plan {
			p := runner.Plan{Scenario: sc, Shard: s + 1, Shards: shards}
			var millis int64
			for i, c := range cells {
				if n := p.CellRuns(i); n > 0 {
					plan[s].Cells++
					plan[s].Runs += n
					millis += int64(n) * knownRun(c.Client)
				}
			}
			plan[s].Seconds = (millis + 999) / 1000
		}
		return plan, nil
	}
	owner, load := runner.Balance(cells, sc.Runs, shards, measured)
	for i := range cells {
		plan[owner[i]-1].Cells++
		plan[owner[i]-1].Runs += sc.Runs
	}
	for s := range plan {
		plan[s].Seconds = load[s]/1000 + min(load[s]%1000, 1) // rounded up, without overflowing
	}
	return plan, nil
}

// knownRun is how long a run of client c takes, in milliseconds, as the docs' measured sweeps
// found it (knownRunMillis); a client they do not run (one the manifest defines) is taken to
// take as long as the median client.
func knownRun(c scenario.Client) int64 {
	if ms, ok := knownRunMillis[c.Name]; ok {
		return ms
	}
	all := slices.Sorted(maps.Values(knownRunMillis))
	return all[len(all)/2]
}

// SummarizePlan says on w how even plan's shards are, for the person reading the job's log;
// from names the measured results, "" for none.
func SummarizePlan(w io.Writer, sc *scenario.Scenario, plan []Shard, from string) {
	fmt.Fprintf(w, "%d %s of %d cells × %d runs", len(plan), report.Plural(len(plan), "shard", "shards"), sc.CellCount(), sc.Runs)
	if from == "" {
		fmt.Fprintln(w, ", the runs dealt out evenly, each shard's time estimated from its clients' median runs in toolscore's own measured sweeps (give an earlier results.json with --from to balance whole cells by their times)")
		return
	}
	lo, hi := plan[0].Seconds, plan[0].Seconds
	for _, p := range plan {
		lo, hi = min(lo, p.Seconds), max(hi, p.Seconds)
	}
	spread := 0.0
	if hi > 0 {
		spread = float64(hi-lo) / float64(hi) * 100
	}
	fmt.Fprintf(w, ", balanced by the measured times in %s: %s to %s of runs a shard (within %.0f%%)\n",
		report.Plain(from), seconds(lo), seconds(hi), spread)
}

// seconds is s seconds as a duration, the longest one where that overflows.
func seconds(s int64) time.Duration {
	if s > int64(math.MaxInt64/time.Second) {
		return math.MaxInt64
	}
	return time.Duration(s) * time.Second
}
