package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/tally"
)

// defaultBaseline is where toolscore baseline writes, and what a team commits.
const defaultBaseline = "toolscore-baseline.json"

// baselineCmd writes a sweep's counts as the expected ones: a small, stable file that
// toolscore diff (and the action's baseline input) compares later sweeps with.
func baselineCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("baseline", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: toolscore baseline [RESULTS] [--out FILE]\n\nWrites the outcome counts of RESULTS (a results.json or a directory holding one; default: the\nnewest under ./toolscore-out) as the expected ones, to commit and compare later sweeps with\ntoolscore diff. The file holds the scenario and each cell's counts, sorted, with no timings or\npaths: equal counts give the same bytes. Exit 0 when written, 2 on a usage error, results that cannot serve as a baseline\nor a file that cannot be written.\n\nflags:")
		fs.PrintDefaults()
	}
	out := fs.String("out", defaultBaseline, "file to write")
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	fail := func(format string, a ...any) error {
		err := fmt.Errorf(format, a...)
		fmt.Fprintln(os.Stderr, "toolscore baseline:", err)
		return exitcode.UsageError(err)
	}
	var path string
	switch len(positional) {
	case 0:
		if path, err = outdir.Newest(); err != nil {
			return fail("%v", err)
		}
	case 1:
		path = positional[0]
	default:
		fs.Usage()
		return fail("want at most one results.json, got %d arguments", len(positional))
	}
	res, err := outdir.ReadCounts(path)
	if err != nil {
		return fail("%v", err)
	}
	// Counts of part of the matrix would report every other cell as changed on the next diff.
	if res.Interrupted {
		return fail("%s is of an interrupted sweep: not every run finished; run it to the end first", path)
	}
	if res.Shard != "" {
		return fail("%s is shard %s only; merge the shards with toolscore merge and baseline the merged results", path, res.Shard)
	}
	b, err := json.MarshalIndent(tally.NewBaseline(res), "", "  ")
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolscore baseline:", err)
		return exitcode.UsageError(err)
	}
	if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "toolscore baseline: writing the baseline: %v\n", err)
		return exitcode.UsageError(err)
	}
	fmt.Fprintf(os.Stderr, "wrote %s: the counts of %d cells of %s, from %s\n", *out, len(res.Cells), report.Plain(res.Scenario), path)
	return nil
}
