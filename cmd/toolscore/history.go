package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/cli"
	"github.com/toolscore/toolscore/internal/history"
	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/sweep"
	"github.com/toolscore/toolscore/tally"
)

// historyCmd sweeps a scenario at each client's releases in a range and writes history.json:
// per client and cell, the segments of versions with one outcome, found by sampling and then
// halving between samples that differ, every version's cells through the cell cache.
func historyCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: toolscore history [SCENARIO] --clients NAME,... [--from V] [--to V] [--since DATE] [--sample minor|every] [--order registry|date] [--pre] [run's filters]\n\nSweeps the scenario with each client at its released versions in the range, as its registry\nlists them (npm, PyPI, the Go module proxy, crates.io, Maven Central), first the last release of\neach minor line and both ends, then the versions between two that differ, halving, until every\nchange of a cell's outcome lies between two adjacent releases, in the registry's order (or, with\n--order date, by publish date: where a maintenance release came out after a newer line, the\nboundaries differ). Writes history.json into --out,\nwith each version's sweep under versions/; prints what changed, release by release (--format\njson: history.json). Every version's cells go through the cell cache: a second history over the\nsame range runs nothing. A version that cannot be installed or started is a segment of its own.\nExit 0 when the history was written, 2 on a usage error, 130 when interrupted.\n\nflags:")
		fs.PrintDefaults()
	}
	clients := fs.String("clients", "", "the clients, comma-separated, as the manifest or toolscore clients names them (default: every client of the scenario whose version can be set)")
	from := fs.String("from", "", "the oldest version of the range (default: the oldest release, or the oldest since --since)")
	to := fs.String("to", "", "the newest version of the range (default: the newest release)")
	since := fs.String("since", "", "only releases published on or after this `date` (YYYY-MM-DD)")
	sample := fs.String("sample", "minor", "the versions swept first: minor (the last release of each minor line and both ends, then halving between those that differ) or every (every release)")
	pre := fs.Bool("pre", false, "keep pre-releases in the range")
	order := fs.String("order", tally.OrderRegistry, "the order releases are searched and shown in: registry (as the registry lists them) or date (by publish date)")
	format := fs.String("format", "text", "what to print on stdout: text (what changed, release by release) or json (history.json)")
	axes := axisFlags(fs)
	runs := fs.Int("runs", 0, "runs per cell (default: the scenario's)")
	parallel := fs.Int("parallel", 0, "runs at once (default: the scenario's, or the number of CPUs)")
	backendName := fs.String("backend", "", "where runs execute: docker or local (default: docker when a Docker daemon answers)")
	out := fs.String("out", "", "output directory (default ./toolscore-out/history-<timestamp>)")
	cacheDir := fs.String("cache", "", "the cell cache's `folder` (default as toolscore run's)")
	noCache := fs.Bool("no-cache", false, "run every version's cells, neither reusing nor storing any in the cell cache")
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	var errs []error
	if len(positional) > 1 {
		errs = append(errs, fmt.Errorf("one scenario at a time, got %d: %s", len(positional), strings.Join(positional, " ")))
	}
	sinceDate, flagErrs := history.CheckFlags(*sample, *order, *format, *since)
	errs = append(append(errs, flagErrs...), countFlags(fs, "runs", "parallel"))
	if err := errors.Join(errs...); err != nil {
		cli.PrintLines(os.Stderr, err, "toolscore history: ")
		return exitcode.UsageError(err)
	}
	usage := func(err error) error {
		fmt.Fprintln(os.Stderr, "toolscore history:", err)
		return exitcode.UsageError(err)
	}
	manifest := ""
	if len(positional) == 1 {
		manifest = positional[0]
	}
	sc, err := sweep.Load(manifest)
	if err != nil {
		cli.PrintLoadError(os.Stderr, err)
		return exitcode.UsageError(err)
	}
	names, err := history.Clients(sc, cli.Split(*clients))
	if err != nil {
		return usage(err)
	}
	cfg := sweep.Config{
		Scenario: manifest, Runs: *runs, Parallel: *parallel,
		Backend: *backendName, Cache: *cacheDir, Version: version, Self: runsBinary,
	}
	axes(&cfg)
	if cfg.Cache == "" {
		cfg.Cache = defaultCacheDir()
	}
	if *noCache {
		cfg.Cache = ""
	}
	dir := cmp.Or(*out, outdir.Stamped("history-"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usage(fmt.Errorf("--out: %w", err))
	}
	plan := history.Plan{
		Manifest: manifest, Scenario: sc, Clients: names, From: *from, To: *to, Since: sinceDate, Pre: *pre,
		Order: *order, Every: *sample == "every", Config: cfg, Work: dir, Format: *format, Stdout: os.Stdout, Stderr: os.Stderr,
	}
	searches, err := plan.Searches(ctx)
	if err != nil {
		return usage(err)
	}
	return plan.Run(ctx, searches)
}
