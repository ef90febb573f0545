package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/cli"
	"github.com/toolscore/toolscore/internal/selfcmd"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/sweep"
)

// runsBinary is the toolscore binary a sweep's runs start (proxies, adapters, built-in
// servers); "" is this one. The tests set it, so that a race-instrumented runner starts them
// uninstrumented (see main_test.go).
var runsBinary string

func runCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: toolscore run [SCENARIO] [flags]\n\nRuns every run of every cell of SCENARIO (default: the embedded scenarios/ledger.yaml)\nand reports the outcome counts. Exit 0 when every expect entry holds, 1 when one does not\n(see --fail-on), 2 on a usage or manifest error, a server command that cannot be started\n(checked before any run, in each cell image on docker) or an output directory that cannot be\nwritten, 130 when interrupted.\n\nflags:")
		fs.PrintDefaults()
	}
	clients := fs.String("clients", "", "only these clients, comma-separated")
	axes := axisFlags(fs)
	runs := fs.Int("runs", 0, "runs per cell (default: the scenario's)")
	maxRuns := fs.Int("max-runs", sweep.DefaultMaxRuns, "refuse a sweep of more runs than this (cells × runs, in this shard), before anything runs")
	parallel := fs.Int("parallel", 0, "runs at once (default: the scenario's, or the number of CPUs)")
	shard := fs.String("shard", "", "run only slice i of n of the runs, as i/n (merge the shards' outputs with toolscore merge)")
	shardBy := fs.String("shard-by", "", "with --shard, run whole cells balanced by their measured times in this earlier `results` file or output directory (see toolscore plan)")
	backendName := fs.String("backend", "", "where runs execute: docker or local (default: docker when a Docker daemon answers)")
	out := fs.String("out", "", "output directory (default ./toolscore-out/<timestamp>)")
	replayDir := fs.String("replay", "", "play every run against its own transcript in this earlier output `directory` instead of a live server")
	failOnFlag := fs.String("fail-on", "expect", "what exits 1: expect (an unmet expectation), unchecked (that, or one no run checked), or never")
	cacheDir := fs.String("cache", "", "the cell cache's `folder`: cells it holds are reused, not run, when the server answers their recorded requests as it did (default $"+cacheDirEnv+", else the user cache folder's toolscore/cells)")
	noCache := fs.Bool("no-cache", false, "run every cell, neither reusing nor storing any in the cell cache")
	resume := fs.String("resume", "", "continue the sweep stopped or killed in this output `directory`, with the scenario and flags it recorded")
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	failOn, err := runFailOn(*failOnFlag)
	if *resume != "" && err == nil {
		return resumeCmd(ctx, fs, positional, *resume, *parallel, failOn)
	}
	if len(positional) > 1 {
		err = errors.Join(err, fmt.Errorf("one scenario at a time, got %d: %s", len(positional), strings.Join(positional, " ")))
	}
	err = errors.Join(err, countFlags(fs, "runs", "max-runs", "parallel"))
	i, n, shardErr := sweep.ParseShard(*shard)
	if shardErr != nil {
		err = errors.Join(err, fmt.Errorf("--shard %w", shardErr))
	}
	if err != nil {
		cli.PrintLines(os.Stderr, err, "toolscore run: ")
		return exitcode.UsageError(err)
	}
	c := sweep.Config{
		Clients: cli.Split(*clients), Runs: *runs, MaxRuns: *maxRuns, Parallel: *parallel, Shard: i, Shards: n, ShardBy: *shardBy, Backend: *backendName, Out: *out,
		FailOn: failOn, Replay: *replayDir, Cache: *cacheDir,
		Version: version, Self: runsBinary, Stdout: os.Stdout, Stderr: os.Stderr,
	}
	axes(&c)
	if c.Cache == "" {
		c.Cache = defaultCacheDir()
	}
	if *noCache {
		c.Cache = ""
	}
	if len(positional) == 1 {
		c.Scenario = positional[0]
	}
	sc, err := sweep.Load(c.Scenario)
	if err != nil {
		cli.PrintLoadError(os.Stderr, err)
		return exitcode.UsageError(err)
	}
	if c.ShardBy != "" && c.Shards == 0 {
		err := fmt.Errorf("--shard-by %s balances the shards of --shard i/n: give --shard too", c.ShardBy)
		fmt.Fprintln(os.Stderr, "toolscore run:", err)
		return exitcode.UsageError(err)
	}
	res, outDir, err := sweep.Sweep(ctx, sc, c)
	cli.PrintSweepError(os.Stderr, "toolscore run", err, res, outDir)
	return err
}

// resumeCmd is toolscore run --resume DIR: the sweep that DIR's sweep.json records, run on
// from its runs.jsonl. Only --parallel, --fail-on, --cache and --no-cache may be given beside it: every other flag,
// and the scenario, are the recorded ones.
func resumeCmd(ctx context.Context, fs *flag.FlagSet, positional []string, dir string, parallel int, failOn report.FailOn) error {
	var set []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "resume" && f.Name != "parallel" && f.Name != "fail-on" && f.Name != "cache" && f.Name != "no-cache" {
			set = append(set, "--"+f.Name)
		}
	})
	if len(positional) > 0 || len(set) > 0 {
		err := fmt.Errorf("--resume runs the scenario and flags that %s records; only --parallel, --fail-on, --cache and --no-cache may be given with it, not %v",
			filepath.Join(dir, record.SweepFile), append(positional, set...))
		fmt.Fprintln(os.Stderr, "toolscore run:", err)
		return exitcode.UsageError(err)
	}
	// The cell cache is the one the sweep recorded, unless --cache or --no-cache says otherwise.
	c := sweep.Config{Version: version, Self: runsBinary, Stdout: os.Stdout, Stderr: os.Stderr}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "parallel":
			c.Parallel = parallel
		case "fail-on":
			c.FailOn = failOn
		case "cache":
			c.Cache = f.Value.String()
		case "no-cache":
			if f.Value.String() == "true" {
				c.Cache = sweep.NoCache
			}
		}
	})
	res, out, err := sweep.Resume(ctx, dir, c)
	cli.PrintSweepError(os.Stderr, "toolscore run", err, res, out)
	return err
}

// axisFlags defines the flags that narrow the matrix axis by axis, as run and history take
// them; the function returned sets them in a sweep's Config.
func axisFlags(fs *flag.FlagSet) func(*sweep.Config) {
	faults := fs.String("faults", "", "only these faults, comma-separated")
	schemas := fs.String("schema", "", "only these schema modes, comma-separated")
	protocols := fs.String("protocols", "", "only these protocols (as-is or versions), comma-separated")
	transports := fs.String("transports", "", "only these transports (stdio, http), comma-separated")
	tools := fs.String("tools", "", "only these tools of a scenario with tools:, comma-separated")
	return func(c *sweep.Config) {
		c.Faults, c.Schemas, c.Protocols = cli.Split(*faults), cli.Split(*schemas), cli.Split(*protocols)
		c.Transports, c.Tools = cli.Split(*transports), cli.Split(*tools)
	}
}

// countFlags refuses a count flag given below 1: a count of 0 or less is never what was meant,
// and the flag's default (the scenario's) is had by leaving it out.
func countFlags(fs *flag.FlagSet, names ...string) error {
	var errs []error
	fs.Visit(func(f *flag.Flag) {
		if n, err := strconv.Atoi(f.Value.String()); err == nil && n < 1 && slices.Contains(names, f.Name) {
			errs = append(errs, fmt.Errorf("--%s %d: must be 1 or more (leave it out for the default)", f.Name, n))
		}
	})
	return errors.Join(errs...)
}

// runFailOn reads --fail-on of run and merge, which have no baseline to change against.
func runFailOn(s string) (report.FailOn, error) {
	f, err := report.ParseFailOn(s)
	if err == nil && f.Change() {
		err = fmt.Errorf("--fail-on %s: there is no baseline here; compare with toolscore diff, or use the action's fail-on", s)
	}
	return f, err
}

// parseInterspersed lets the scenario path come before, between or after the flags; it parses
// as parseFlags does.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// parseFlags parses args into fs, as every command of toolscore's does (selfcmd.ParseFlags).
func parseFlags(fs *flag.FlagSet, args []string) error { return selfcmd.ParseFlags(fs, args) }
