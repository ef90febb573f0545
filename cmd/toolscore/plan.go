package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/cli"
	"github.com/toolscore/toolscore/sweep"
	"github.com/toolscore/toolscore/tally"
)

func planCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: toolscore plan [SCENARIO] --shards N [--from RESULTS] [--clients ...] [--faults ...] [--tools ...]\n\nPrints the GitHub Actions matrix that splits SCENARIO's sweep (default: the embedded\nscenarios/ledger.yaml) into N shards, as JSON for strategy.matrix (fromJSON): each job's\nshard i/N, its cells, runs and estimated seconds of runs (one at a time: divide by\n--parallel). It counts the cells the sweep will run: narrowed as the same flags narrow\ntoolscore run, and without those that do not apply (it starts the server once and lists its\ntools, as the sweep's preflight does). With --from, each shard runs whole cells balanced by\ntheir measured times in that earlier results.json (give it to each job as --shard-by);\nwithout, shards split the runs evenly, estimated from each client's median run in\ntoolscore's own measured sweeps. On stderr: how even the shards are.\n\nflags:")
		fs.PrintDefaults()
	}
	shards := fs.Int("shards", 0, fmt.Sprintf("the number of shards, 1 to %d (the most jobs of one matrix)", sweep.MaxMatrixJobs))
	from := fs.String("from", "", "an earlier sweep's results.json or output `directory`, whose measured cell times balance the shards")
	runs := fs.Int("runs", 0, "runs per cell (default: the scenario's)")
	clients := fs.String("clients", "", "only these clients, comma-separated")
	axes := axisFlags(fs)
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(positional) > 1 {
		err = fmt.Errorf("one scenario at a time, got %d: %s", len(positional), strings.Join(positional, " "))
	}
	if err := errors.Join(err, countFlags(fs, "runs")); err != nil {
		cli.PrintLines(os.Stderr, err, "toolscore plan: ")
		return exitcode.UsageError(err)
	}
	path := ""
	if len(positional) == 1 {
		path = positional[0]
	}
	sc, err := sweep.Load(path)
	if err != nil {
		cli.PrintLoadError(os.Stderr, err)
		return exitcode.UsageError(err)
	}
	c := sweep.Config{Clients: cli.Split(*clients), Runs: *runs, Stderr: os.Stderr}
	axes(&c)
	if err := sweep.Narrow(ctx, sc, c); err != nil {
		cli.PrintSweepError(os.Stderr, "toolscore plan", err, nil, "")
		return exitcode.UsageError(err)
	}
	var measured *tally.Results
	if *from != "" {
		if measured, err = sweep.ReadMeasured(*from); err != nil {
			fmt.Fprintln(os.Stderr, "toolscore plan:", err)
			return exitcode.UsageError(err)
		}
	}
	plan, err := sweep.Plan(sc, *shards, measured)
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolscore plan: --shards:", err)
		return exitcode.UsageError(err)
	}
	// One line, as $GITHUB_OUTPUT takes it.
	b, err := json.Marshal(map[string][]sweep.Shard{"include": plan})
	if err != nil {
		return err
	}
	fmt.Printf("%s\n", b)
	sweep.SummarizePlan(os.Stderr, sc, plan, *from)
	return nil
}
