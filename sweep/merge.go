package sweep

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/tally"
)

// Merge does what toolscore merge does: it adds up the outputs in dirs of sweeps of one
// scenario (shards of a matrix run on different machines, or more runs of the same cells) into
// c.Out ("" is a new directory under ./toolscore-out), and writes the text report on c.Stdout.
// Of c it reads only Out, FailOn, Stdout and Stderr. res is nil when nothing was merged; err
// says why the merge failed, and exitcode.Of(err) is toolscore merge's exit code for it.
func Merge(ctx context.Context, dirs []string, c Config) (res *tally.Results, out string, err error) {
	stdout, stderr := c.writers()
	out = c.Out
	if out == "" {
		out = outdir.Stamped("merged-")
	}
	merged, err := outdir.Merge(out, dirs)
	if err != nil {
		return nil, out, exitcode.UsageError(err)
	}
	// Like a sweep, a merge is the only writer of its output directory while it writes.
	release, err := outdir.Lock(out)
	if err != nil {
		return nil, out, exitcode.UsageError(err)
	}
	defer release()
	// What was merged is reported and checked whatever could be written of it; an output that
	// could not all be written fails the merge as setup, as it does a sweep.
	werr := outdir.WriteMerged(out, dirs, merged)
	if err := report.Text(stdout, merged); err != nil {
		fmt.Fprintln(stderr, "warning: the text report:", err)
	}
	if werr == nil {
		fmt.Fprintf(stderr, "merged %d outputs into %s\n", len(dirs), outdir.Results(out))
	}
	// A merge is never cut short: an interrupted shard leaves its runs out of the counts, and
	// the expectations it leaves unchecked are what fail-on decides on.
	whole := *merged
	whole.Interrupted = false
	verdict := report.Decide(&whole, nil, c.FailOn)
	warnUnchecked(merged, c.FailOn, stderr)
	if werr != nil {
		return merged, out, exitcode.UsageError(werr)
	}
	if verdict.Code == exitcode.Unmet {
		return merged, out, exitcode.UnmetError(errors.New(verdict.Reason))
	}
	return merged, out, nil
}
