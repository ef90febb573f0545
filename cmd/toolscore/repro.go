package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"regexp"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/cli"
	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/internal/repro"
	"github.com/toolscore/toolscore/sweep"
)

// reproCmd writes a small directory to attach to an issue: one run's transcript, the cell of the
// manifest it ran, what the client did, and how to replay it with no server.
func reproCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("repro", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: toolscore repro OUT_DIR CELL [--run N] [--scenario FILE] [--out DIR]\n\nWrites a directory to attach to an issue: the run's transcript (tee.jsonl), the manifest's\nexcerpt for its cell (cell.json), its record (run.json), and a README.md with the replay\ncommand and what the client did. CELL is a cell's key as results.json has it\n(client|fault|schema|transport[|protocol]) or its coordinates (client × fault × schema [× protocol]).\n\nflags:")
		fs.PrintDefaults()
	}
	run := fs.Int("run", 0, "the run of the cell (default: its first)")
	manifest := fs.String("scenario", "", "the manifest the sweep ran (default: the embedded scenarios/ledger.yaml)")
	out := fs.String("out", "", "the directory to write (default: ./repro-<cell>-run-<N>)")
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	fail := func(format string, a ...any) error {
		err := fmt.Errorf(format, a...)
		fmt.Fprintln(os.Stderr, "toolscore repro:", err)
		return exitcode.UsageError(err)
	}
	if len(positional) != 2 {
		fs.Usage()
		return exitcode.UsageError(fmt.Errorf("want OUT_DIR and CELL, got %d arguments", len(positional)))
	}
	dir, cellArg := positional[0], positional[1]
	res, err := outdir.ReadResults(outdir.Results(dir))
	if err != nil {
		return fail("%v", err)
	}
	sc, err := sweep.Load(*manifest)
	if err != nil {
		cli.PrintLoadError(os.Stderr, err)
		return exitcode.UsageError(err)
	}
	if sc.Name != res.Scenario {
		return fail("%s is a sweep of the scenario %q, not of %q: give its manifest with --scenario", dir, res.Scenario, sc.Name)
	}
	rec, err := repro.FindRun(dir, cellArg, *run)
	if err != nil {
		return fail("%v", err)
	}
	key := rec.Key()
	to := cmp.Or(*out, "repro-"+regexp.MustCompile(`[^A-Za-z0-9._-]+`).ReplaceAllString(key, "_")+fmt.Sprintf("-run-%d", rec.Run))
	if err := repro.Write(to, dir, sc, rec); err != nil {
		return fail("%v", err)
	}
	fmt.Println(to)
	return nil
}
