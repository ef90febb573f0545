package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/toolscore/toolscore/runner/exitcode"
	"github.com/toolscore/toolscore/runner/outdir"
	"github.com/toolscore/toolscore/runner/report"
	"github.com/toolscore/toolscore/runner/tally"
)

// mergeCmd adds up several outputs of `toolscore run` for one scenario (shards of a matrix run
// on different machines, or more runs of the same cells) into one output directory.
func mergeCmd(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: toolscore merge [--out DIR] DIR...\n\nMerges the outputs of toolscore run --out DIR (each holding results.json and runs.jsonl) of one\nscenario: counts of the same cell are added up, runs.jsonl files are concatenated, and results.json\nand summary.md are written for the whole. Exit 0 when every expect entry held in every input,\n1 when one did not (see --fail-on), 2 on a usage error, outputs of different scenarios or an\noutput that cannot be written.\n\nflags:")
		fs.PrintDefaults()
	}
	out := fs.String("out", "", "output directory (default ./toolscore-out/merged-<timestamp>)")
	failOnFlag := fs.String("fail-on", "expect", "what exits 1: expect (an unmet expectation), unchecked (that, or one no run checked), or never")
	dirs, err := parseInterspersed(fs, args)
	if err != nil {
		return exitcode.Of(err)
	}
	failOn, err := runFailOn(*failOnFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolscore merge:", err)
		return exitUsage
	}
	if len(dirs) == 0 {
		fs.Usage()
		fmt.Fprintln(os.Stderr, "toolscore merge: name the output directories of toolscore run to merge")
		return exitUsage
	}
	_, _, code, _ := mergeOutputs(*out, dirs, failOn, os.Stdout, os.Stderr)
	return code
}

// mergeOutputs does what toolscore merge does once its flags are read: it merges dirs into out
// ("" is a new directory under ./toolscore-out) and prints the text report on stdout. code is
// merge's exit code; res is nil when nothing was merged, and err says why it stopped.
func mergeOutputs(out string, dirs []string, failOn report.FailOn, stdout, stderr io.Writer) (res *tally.Results, dir string, code int, err error) {
	if out == "" {
		out = outdir.Stamped("merged-")
	}
	merged, err := outdir.Merge(out, dirs)
	if err != nil {
		fmt.Fprintln(stderr, "toolscore merge:", err)
		return nil, out, exitUsage, err
	}
	// Like a sweep, a merge is the only writer of its output directory while it writes.
	release, err := outdir.Lock(out)
	if err != nil {
		fmt.Fprintln(stderr, "toolscore merge:", err)
		return nil, out, exitUsage, err
	}
	defer release()
	// What was merged is reported and checked whatever could be written of it; an output that
	// could not all be written fails the merge as setup, as it does a sweep.
	werr := outdir.WriteMerged(out, dirs, merged)
	if err := report.Text(stdout, merged); err != nil {
		fmt.Fprintln(stderr, "toolscore merge:", err)
	}
	if werr == nil {
		fmt.Fprintf(stderr, "merged %d outputs into %s\n", len(dirs), outdir.Results(out))
	}
	unmet := expectationsFail(merged, failOn, stderr)
	if werr != nil {
		printLines(stderr, werr, "toolscore merge: ")
		return merged, out, exitUsage, exitcode.UsageError(werr)
	}
	if unmet {
		return merged, out, exitUnmet, nil
	}
	return merged, out, exitOK, nil
}
