package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/bisect"
	"github.com/toolscore/toolscore/internal/cellimage"
	"github.com/toolscore/toolscore/internal/cli"
	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/history"
	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/internal/registry"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/scenario"
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
	if *sample != "minor" && *sample != "every" {
		errs = append(errs, fmt.Errorf("--sample %q: want minor or every", *sample))
	}
	if *order != tally.OrderRegistry && *order != tally.OrderDate {
		errs = append(errs, fmt.Errorf("--order %q: want %s or %s", *order, tally.OrderRegistry, tally.OrderDate))
	}
	if *format != "text" && *format != "json" {
		errs = append(errs, fmt.Errorf("--format %q: want text or json", *format))
	}
	var sinceDate time.Time
	if *since != "" {
		if sinceDate, err = time.Parse(time.DateOnly, *since); err != nil {
			errs = append(errs, fmt.Errorf("--since %q: want a date as YYYY-MM-DD", *since))
		}
	}
	errs = append(errs, countFlags(fs, "runs", "parallel"))
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
	// A client named twice is swept once: its history would be the same twice over.
	var names []string
	for _, n := range cli.Split(*clients) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		for _, c := range sc.Clients {
			if _, err := clientPin(c.Name); err == nil && !slices.Contains(names, c.Name) {
				names = append(names, c.Name)
			}
		}
		if len(names) == 0 {
			return usage(fmt.Errorf("the scenario has no client whose version can be set: name one with --clients (%s)", strings.Join(client.Versioned(), ", ")))
		}
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
	dir := *out
	if dir == "" {
		dir = outdir.Stamped("history-")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usage(fmt.Errorf("--out: %w", err))
	}
	// Each client's range is read before anything runs, so a wrong name or version costs nothing.
	var searches []*history.Search
	for _, name := range names {
		pin, err := clientPin(name)
		if err != nil {
			return usage(fmt.Errorf("--clients %s: %w", name, err))
		}
		rel, isPre, err := releases(ctx, pin.Registry, pin.Package)
		if err != nil {
			return usage(fmt.Errorf("%s: %w", name, err))
		}
		rng, err := releaseRange(rel, isPre, pin.Registry, *from, *to, sinceDate, *pre)
		if err == nil {
			_, err = history.Ordered(rng, *order) // a release with no date is refused before anything runs
		}
		if err != nil {
			return usage(fmt.Errorf("%s (%s on %s): %w", name, pin.Package, pin.Registry, err))
		}
		entry := scenario.Client{Name: name}
		for _, c := range sc.Clients {
			if c.Name == name {
				entry, entry.Version = c, ""
			}
		}
		searches = append(searches, &history.Search{
			Manifest: manifest, Client: entry, Registry: pin.Registry, Package: pin.Package, Releases: rng,
			Every: *sample == "every", Order: *order, Config: cfg, Work: dir, Stderr: os.Stderr,
		})
	}
	h := &tally.History{Scenario: sc.Name, Toolscore: version, Started: time.Now().UTC()}
	var stopped error
	for _, s := range searches {
		ch, executed, reused, err := s.Run(ctx)
		h.RunsExecuted += executed
		h.RunsReused += reused
		if err != nil {
			stopped = err
			break
		}
		h.Clients = append(h.Clients, ch)
	}
	h.Finished = time.Now().UTC()
	h.Backend = backendOf(dir, h)
	b, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(dir, tally.HistoryFile)
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return exitcode.Failed(fmt.Errorf("writing %s: %w", path, err))
	}
	if stopped != nil {
		fmt.Fprintf(os.Stderr, "toolscore history: stopped: %v; what finished is in %s\n", stopped, path)
		if exitcode.Of(stopped) == exitcode.Interrupted {
			return stopped
		}
		return exitcode.Failed(stopped)
	}
	fmt.Fprintf(os.Stderr, "toolscore history: %s (%d runs executed, %d from the cell cache)\n", path, h.RunsExecuted, h.RunsReused)
	if *format == "json" {
		_, err = os.Stdout.Write(append(b, '\n'))
		return err
	}
	return report.HistoryText(os.Stdout, h)
}

// backendOf is the backend the history's sweeps ran on, as the first one's results say.
func backendOf(dir string, h *tally.History) string {
	for _, c := range h.Clients {
		for _, v := range c.Versions {
			if v.Sweep == "" {
				continue
			}
			if res, err := outdir.ReadResults(filepath.Join(dir, v.Sweep)); err == nil {
				return res.Backend
			}
		}
	}
	return ""
}

// clientPin is where a client's versions come from: a Go client's module on the Go proxy, or
// the package its cell image installs at a version.
func clientPin(name string) (cellimage.Pin, error) {
	d, _, ok := client.Lookup(name)
	switch {
	case ok && d.Module != "":
		return cellimage.Pin{Registry: "Go", Package: d.Module}, nil
	case ok && d.Contained() && d.Image.VersionArg != "":
		return cellimage.PinOf(d.Image)
	}
	return cellimage.Pin{}, fmt.Errorf("not a client whose version can be set (%s)", strings.Join(client.Versioned(), ", "))
}

// releases lists a package's published versions, oldest first in the registry's order.
func releases(ctx context.Context, reg, pkg string) ([]tally.Release, []bool, error) {
	rs, err := registry.Releases(ctx, reg, pkg)
	if err != nil {
		return nil, nil, err
	}
	out, pre := make([]tally.Release, len(rs)), make([]bool, len(rs))
	for i, r := range rs {
		out[i], pre[i] = tally.Release{Version: r.Version, Published: r.Published}, r.Pre
	}
	return out, pre, nil
}

// releaseRange is the releases from from to to (both published versions; "" is either end),
// published on or after since when given (or, when none was, the newest before it), pre-releases
// left out unless pre.
func releaseRange(rel []tally.Release, isPre []bool, registry, from, to string, since time.Time, pre bool) ([]tally.Release, error) {
	if registry == "Go" {
		from, to = bisect.GoVersion(from), bisect.GoVersion(to)
	}
	index := func(flag, v string, def int) (int, error) {
		if v == "" {
			return def, nil
		}
		i := slices.IndexFunc(rel, func(r tally.Release) bool { return r.Version == v })
		if i < 0 {
			return 0, fmt.Errorf("%s %s is not a published version", flag, v)
		}
		return i, nil
	}
	i, err := index("--from", from, 0)
	if err != nil {
		return nil, err
	}
	j, err := index("--to", to, len(rel)-1)
	if err != nil {
		return nil, err
	}
	if j < i {
		return nil, fmt.Errorf("--to %s comes before --from %s", to, from)
	}
	var out []tally.Release
	var before *tally.Release // the newest release published before since
	for k, r := range rel[i : j+1] {
		named := k == 0 && from != "" || k == j-i && to != ""
		if !named && !pre && isPre[i+k] {
			continue
		}
		if !since.IsZero() && r.Published != nil && r.Published.Before(since) {
			before = &rel[i+k]
			continue
		}
		out = append(out, r)
	}
	if len(out) == 0 && before != nil {
		// No release since the date: the one still current then is what users have.
		out = append(out, *before)
	}
	if len(out) == 0 {
		return nil, errors.New("no release in the range")
	}
	return out, nil
}
