package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/cli"
	"github.com/toolscore/toolscore/sweep"
)

// mergeCmd adds up several outputs of `toolscore run` for one scenario (shards of a matrix run
// on different machines, or more runs of the same cells) into one output directory.
func mergeCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: toolscore merge [--out DIR] DIR...\n\nMerges the outputs of toolscore run --out DIR (each holding results.json and runs.jsonl) of one\nscenario: counts of the same cell are added up, runs.jsonl files are concatenated, and results.json\nand summary.md are written for the whole. Exit 0 when every expect entry held in every input,\n1 when one did not (see --fail-on), 2 on a usage error, outputs of different scenarios or of\ntwo manifests that share a name, one output or one shard of a plan given twice (a copy or a\nlink), inputs that hold the same run (an unsharded output with its shards, a merged output with\none of its inputs), or an output that cannot be written.\n\nflags:")
		fs.PrintDefaults()
	}
	out := fs.String("out", "", "output directory (default ./toolscore-out/merged-<timestamp>)")
	failOnFlag := fs.String("fail-on", "expect", "what exits 1: expect (an unmet expectation), unchecked (that, or one no run checked), or never")
	dirs, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	failOn, err := runFailOn(*failOnFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolscore merge:", err)
		return exitcode.UsageError(err)
	}
	if len(dirs) == 0 {
		fs.Usage()
		err := errors.New("name the output directories of toolscore run to merge")
		fmt.Fprintln(os.Stderr, "toolscore merge:", err)
		return exitcode.UsageError(err)
	}
	res, outDir, err := sweep.Merge(ctx, dirs, sweep.Config{Out: *out, FailOn: failOn, Stdout: os.Stdout, Stderr: os.Stderr})
	cli.PrintSweepError(os.Stderr, "toolscore merge", err, res, outDir)
	return err
}
