package sweep

import (
	"fmt"
	"io"
	"math"
	"os"
	"time"

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
			for i := range cells {
				if n := p.CellRuns(i); n > 0 {
					plan[s].Cells++
					plan[s].Runs += n
				}
			}
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

// SummarizePlan says on w how even plan's shards are, for the person reading the job's log;
// from names the measured results, "" for none.
func SummarizePlan(w io.Writer, sc *scenario.Scenario, plan []Shard, from string) {
	fmt.Fprintf(w, "%d %s of %d cells × %d runs", len(plan), report.Plural(len(plan), "shard", "shards"), sc.CellCount(), sc.Runs)
	if from == "" {
		fmt.Fprintln(w, ", the runs dealt out evenly (no measured times: give an earlier results.json to balance by time)")
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
