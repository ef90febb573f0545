package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolscore/toolscore/action"
	"github.com/toolscore/toolscore/runner"
	"github.com/toolscore/toolscore/runner/client"
	"github.com/toolscore/toolscore/runner/exitcode"
	"github.com/toolscore/toolscore/runner/fault"
	"github.com/toolscore/toolscore/runner/grade"
	"github.com/toolscore/toolscore/runner/outdir"
	"github.com/toolscore/toolscore/runner/report"
	"github.com/toolscore/toolscore/runner/scenario"
	"github.com/toolscore/toolscore/runner/tally"
	"github.com/toolscore/toolscore/scenarios"
)

// The exit codes, as the commands that still return one name them (package exitcode declares
// them; toolscore run returns an error that carries its own).
const (
	exitOK    = exitcode.OK
	exitUnmet = exitcode.Unmet
	exitUsage = exitcode.Usage
)

// defaultMaxRuns is the largest sweep toolscore run starts unless --max-runs says more: ten
// times the embedded scenario's whole matrix, hours of runs; more is likely a typo in runs.
const defaultMaxRuns = 10000

func runCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: toolscore run [SCENARIO] [flags]\n\nRuns every run of every cell of SCENARIO (default: the embedded scenarios/ledger.yaml)\nand reports the outcome counts. Exit 0 when every expect entry holds, 1 when one does not\n(see --fail-on), 2 on a usage or manifest error, a server command that cannot be started\n(checked before any run, in each cell image on docker) or an output directory that cannot be\nwritten, 130 when interrupted.\n\nflags:")
		fs.PrintDefaults()
	}
	clients := fs.String("clients", "", "only these clients, comma-separated")
	faults := fs.String("faults", "", "only these faults, comma-separated")
	schemas := fs.String("schema", "", "only these schema modes, comma-separated")
	protocols := fs.String("protocols", "", "only these protocols (as-is or versions), comma-separated")
	transports := fs.String("transports", "", "only these transports (stdio, http), comma-separated")
	tools := fs.String("tools", "", "only these tools of a scenario with tools:, comma-separated")
	runs := fs.Int("runs", 0, "runs per cell (default: the scenario's)")
	maxRuns := fs.Int("max-runs", defaultMaxRuns, "refuse a sweep of more runs than this (cells × runs, in this shard), before anything runs")
	parallel := fs.Int("parallel", 0, "runs at once (default: the scenario's, or the number of CPUs)")
	shard := fs.String("shard", "", "run only slice i of n of the runs, as i/n (merge the shards' outputs with toolscore merge)")
	backendName := fs.String("backend", "", "where runs execute: docker or local (default: docker when a Docker daemon answers)")
	out := fs.String("out", "", "output directory (default ./toolscore-out/<timestamp>)")
	replayDir := fs.String("replay", "", "play every run against its own transcript in this earlier output `directory` instead of a live server")
	failOnFlag := fs.String("fail-on", "expect", "what exits 1: expect (an unmet expectation), unchecked (that, or one no run checked), or never")
	resume := fs.String("resume", "", "continue the sweep stopped or killed in this output `directory`, with the scenario and flags it recorded")
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	failOn, err := runFailOn(*failOnFlag)
	if *resume != "" && err == nil {
		return resumeSweep(ctx, fs, positional, *resume, *parallel, failOn)
	}
	if len(positional) > 1 {
		err = errors.Join(err, fmt.Errorf("one scenario at a time, got %d: %s", len(positional), strings.Join(positional, " ")))
	}
	if err := errors.Join(err, countFlags(fs, "runs", "max-runs", "parallel")); err != nil {
		printLines(os.Stderr, err, "toolscore run: ")
		return exitcode.UsageError(err)
	}
	a := sweepArgs{
		SweepInputs: action.SweepInputs{
			Clients: *clients, Faults: *faults, Schemas: *schemas, Protocols: *protocols, Transports: *transports, Tools: *tools,
			Runs: *runs, MaxRuns: *maxRuns, Parallel: *parallel, Shard: *shard, Backend: *backendName, Out: *out,
		},
		FailOn: failOn,
		Replay: *replayDir,
	}
	if len(positional) == 1 {
		a.Scenario = positional[0]
	}
	sc, err := loadScenario(a.Scenario)
	if err != nil {
		loadFailed(os.Stderr, err)
		return exitcode.UsageError(err)
	}
	_, _, _, err = sweepScenario(ctx, a, sc, os.Stdout, os.Stderr)
	return err
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

// sweepArgs are what toolscore run takes from its flags: the sweep the action's inputs name
// too, and what fails it.
type sweepArgs struct {
	action.SweepInputs
	FailOn report.FailOn // what makes the exit code 1; "" is expect
	// Replay is an earlier output directory whose transcripts the runs play against.
	Replay string
	// Resume continues the sweep in Out (toolscore run --resume) instead of starting one.
	Resume bool
}

// loadScenario loads a manifest as toolscore run does; "" is the embedded ledger.
func loadScenario(path string) (*scenario.Scenario, error) {
	data := scenarios.Ledger
	if path == "" {
		path = scenarios.LedgerPath
	} else {
		var err error
		if data, err = scenario.ReadFile(path); err != nil {
			return nil, err
		}
	}
	return scenario.Load(path, data, scenario.Known{Faults: fault.Names(), FaultOptions: fault.Check, HTTPOnly: fault.Transport, Clients: client.Names(), Builtins: builtinServers, HTTPBuiltins: []string{"ledger"}, Agents: client.AgentNames(), Versioned: client.Versioned()})
}

// loadFailed prints why a manifest did not load, and returns run's exit code for it: manifest
// errors one a line as file:line:col: message, the way editors read them; any other (a file
// that cannot be read) after the command's name.
func loadFailed(stderr io.Writer, err error) int {
	if len(scenario.Errors(err)) > 0 {
		printLines(stderr, err, "")
	} else {
		fmt.Fprintln(stderr, "toolscore run:", err)
	}
	return exitUsage
}

// printLines prints each line of err on a line of its own, after prefix.
func printLines(stderr io.Writer, err error, prefix string) {
	for _, e := range strings.Split(err.Error(), "\n") {
		fmt.Fprintln(stderr, prefix+e)
	}
}

// sweepScenario does what toolscore run does once its flags are read and sc is loaded (the
// action runs it too): it filters the scenario, picks the backend, runs the matrix, writes
// results.json, summary.md and runs.jsonl into out, and prints the text report on stdout.
// res is nil when nothing ran; err says what stopped or failed the sweep, with its exit code
// (exitcode.Of), which is code.
func sweepScenario(ctx context.Context, a sweepArgs, sc *scenario.Scenario, stdout, stderr io.Writer) (res *tally.Results, out string, code int, err error) {
	res, out, err = runSweep(ctx, a, sc, stdout, stderr)
	return res, out, exitcode.Of(err), err
}

func runSweep(ctx context.Context, a sweepArgs, sc *scenario.Scenario, stdout, stderr io.Writer) (res *tally.Results, out string, err error) {
	path := cmp.Or(a.Scenario, scenarios.LedgerPath)
	// fail prints why nothing (more) could run; an error of its own is a usage or setup error.
	fail := func(err error) (*tally.Results, string, error) {
		printLines(stderr, err, "toolscore run: ")
		if _, coded := errors.AsType[*exitcode.Error](err); !coded && !errors.Is(err, context.Canceled) {
			err = exitcode.UsageError(err)
		}
		return nil, out, err
	}
	var recordings *runner.Recordings
	if a.Replay != "" {
		r, shard, err := loadRecordings(a.Replay, sc)
		if err != nil {
			return fail(err)
		}
		recordings, a = r, replayArgs(a, sc, r, shard)
	}
	if err := errors.Join(sc.Filter(splitList(a.Clients), splitList(a.Faults), splitList(a.Schemas), splitList(a.Protocols), splitList(a.Transports)), sc.FilterTools(splitList(a.Tools))); err != nil {
		return fail(err)
	}
	serverEnv, secrets, err := sc.ServerEnv(os.LookupEnv)
	auth, authErr := sc.Auth(os.LookupEnv)
	if err := errors.Join(err, authErr); err != nil {
		printLines(stderr, err, "")
		return nil, "", exitcode.UsageError(err)
	}
	if auth != "" {
		secrets = append(secrets, auth)
	}
	if a.Runs < 0 || a.Parallel < 0 || a.MaxRuns < 0 {
		return fail(errors.New("--runs, --max-runs and --parallel must be 1 or more"))
	}
	shard, shards, err := parseShard(a.Shard)
	if err != nil {
		return fail(err)
	}
	if a.Runs > 0 {
		sc.Runs = a.Runs
	}
	if err := checkSweepSize(sc, shard, shards, cmp.Or(a.MaxRuns, defaultMaxRuns)); err != nil {
		return fail(err)
	}
	par := a.Parallel
	if par == 0 {
		par = sc.Parallel
	}
	if par == 0 {
		par = runtime.NumCPU()
	}
	out = a.Out
	if out == "" {
		out = outdir.Stamped("")
	}
	// Before anything is built or run: a sweep whose results cannot be written is not started.
	if err := checkOutDir(out); err != nil {
		return fail(err)
	}
	// One sweep at a time writes an output directory: two would clobber each other's files.
	release, err := outdir.Lock(out)
	if err != nil {
		return fail(exitcode.UsageError(err))
	}
	defer release()
	self, err := os.Executable()
	if err != nil {
		return fail(err)
	}
	choice, err := runner.ChooseBackend(ctx, a.Backend, self, sc, stderr)
	if err != nil {
		return fail(err)
	}
	defer choice.Done()
	be, why, unavailable := choice.Backend, choice.Why, choice.Unavailable
	if be.Name() == "local" && sc.Server.Install != "" {
		fmt.Fprintf(stderr, "toolscore run: server.install runs only on the docker backend; on the local backend %q must already be on PATH\n", sc.Server.Command[0])
	}
	if recordings != nil {
		if err := checkRecorded(a.Replay, recordings, runner.Options{Scenario: sc, Unavailable: unavailable, Shard: shard, Shards: shards}); err != nil {
			return fail(err)
		}
	} else if _, err := checkServer(ctx, be, sc, unavailable); err != nil {
		return fail(err)
	}
	// Count the cells that will run: not those of unavailable clients, and in a shard only
	// those with runs in it (shards number the cells of the whole matrix).
	cells, progCells, slice := 0, 0, ""
	for i, c := range sc.Cells() {
		if _, skip := unavailable[c.Client.ID()]; skip {
			continue
		}
		cells++
		if shards == 0 || runner.ShardRuns(i, sc.Runs, shard, shards) > 0 {
			progCells++
		}
	}
	if shards > 0 {
		slice = fmt.Sprintf(" (shard %d/%d)", shard, shards)
	}
	fmt.Fprintf(stderr, "toolscore %s: %s (%s): %d cells × %d runs%s on the %s backend (%s), %d at a time; output in %s\n",
		version, report.Plain(sc.Name), report.Plain(path), cells, sc.Runs, slice, be.Name(), report.Plain(why), par, report.Plain(out))
	o := runner.Options{
		Scenario: sc, Backend: be, BackendWhy: why, Out: out,
		Parallel: par, Version: version, Unavailable: unavailable,
		Shard: shard, Shards: shards, ServerEnv: serverEnv, Secrets: secrets, Auth: auth, Replay: recordings,
		Adapters: choice.Adapters, Record: sweepRecord(a, sc, be.Name()), Resume: a.Resume,
	}
	if a.Resume {
		if _, err := o.CheckResume(); err != nil {
			return fail(exitcode.UsageError(err))
		}
	}
	prog := newProgress(stderr, progCells)
	o.Progress = prog
	res, err = runner.Run(ctx, o)
	prog.finish()
	if res == nil {
		return fail(err) // the output directory could not be made: nothing ran
	}
	// What ran is reported and checked whatever could be written of it; an output that could
	// not all be written (runs.jsonl or a report: a full disk) then fails the sweep as setup.
	werr := errors.Join(err, outdir.Write(out, res))
	if err := report.Text(stdout, res); err != nil {
		fmt.Fprintln(stderr, "toolscore run:", err)
	}
	if werr == nil {
		fmt.Fprintf(stderr, "results: %s\n", outdir.Results(out))
	}
	unmet := expectationsFail(res, a.FailOn, stderr)
	gone := serverExits(res, stderr)
	switch {
	case werr != nil:
		werr = fmt.Errorf("the output in %s is incomplete (the counts above are all there is): %w", out, werr)
		printLines(stderr, werr, "toolscore run: ")
		return res, out, exitcode.UsageError(werr)
	case res.Interrupted:
		fmt.Fprintf(stderr, "interrupted: the runs that finished are in runs.jsonl and counted above; toolscore run --resume %s runs the rest\n", report.Plain(out))
		return res, out, &exitcode.Error{Code: exitcode.Interrupted, Err: context.Canceled}
	case unmet:
		_, missed, open := tally.Count(res.Expectations)
		return res, out, exitcode.UnmetError(fmt.Errorf("%d %s not hold, %d not checked (fail-on: %s)", missed, report.Plural(missed, "expectation did", "expectations did"), open, a.FailOn))
	case gone:
		err := errors.New("the server exited before answering the handshake in every run: nothing was measured")
		fmt.Fprintln(stderr, "toolscore run:", err)
		return res, out, exitcode.UsageError(err)
	}
	return res, out, nil
}

// serverExits says on stderr how many runs the server failed (it exited before answering the
// handshake), with the first one's evidence, and whether it failed every run: then the sweep
// measured no client at all, a setup error as a server that cannot start is.
func serverExits(r *tally.Results, stderr io.Writer) (every bool) {
	n, runs, evidence := 0, 0, ""
	for _, c := range r.Cells {
		runs += c.Runs
		n += c.Outcome[grade.ServerExited]
		if ex, ok := c.Examples[grade.ServerExited]; ok && evidence == "" {
			evidence = ex.Evidence
		}
	}
	if n == 0 {
		return false
	}
	fmt.Fprintf(stderr, "warning: the server exited before answering the handshake in %d of %d runs (%s): %s\n",
		n, runs, grade.ServerExited, report.Plain(evidence))
	return n == runs
}

// runFailOn reads --fail-on of run and merge, which have no baseline to change against.
func runFailOn(s string) (report.FailOn, error) {
	f, err := report.ParseFailOn(s)
	if err == nil && f.Change() {
		err = fmt.Errorf("--fail-on %s: there is no baseline here; compare with toolscore diff, or use the action's fail-on", s)
	}
	return f, err
}

// expectationsFail says whether the expectations fail the sweep under failOn, and warns of
// unchecked ones that do not: neither held nor unmet, they must not pass unnoticed.
func expectationsFail(r *tally.Results, failOn report.FailOn, stderr io.Writer) bool {
	_, missed, open := tally.Count(r.Expectations)
	if open > 0 && !failOn.Unchecked() {
		fmt.Fprintf(stderr, "warning: %d %s checked by this sweep (listed in the report); fail-on unchecked makes that fail\n",
			open, report.Plural(open, "expectation was not", "expectations were not"))
	}
	return missed > 0 && failOn.Unmet() || open > 0 && failOn.Unchecked()
}

// checkSweepSize refuses a sweep of more than limit runs in this shard, before anything is made
// for it. A matrix of more cells than limit is refused too, sharded or not: every cell runs at
// least once somewhere, and each is counted in memory.
func checkSweepSize(sc *scenario.Scenario, shard, shards, limit int) error {
	cells := sc.CellCount()
	planned := runner.PlannedRuns(cells, sc.Runs, shard, shards)
	var what string
	switch {
	case planned <= limit && cells <= limit:
		return nil
	case planned <= limit:
		what = fmt.Sprintf("%d cells (each runs at least once, in some shard)", cells)
	case planned == math.MaxInt:
		what = fmt.Sprintf("more runs than can be counted (%d cells × %d runs)", cells, sc.Runs)
	case shards > 0:
		what = fmt.Sprintf("%d runs in shard %d/%d (%d cells × %d runs, over %d shards)", planned, shard, shards, cells, sc.Runs, shards)
	default:
		what = fmt.Sprintf("%d runs (%d cells × %d runs)", planned, cells, sc.Runs)
	}
	return fmt.Errorf("the sweep would make %s, over the limit of %d runs; narrow it with --clients, --faults, --schema, --protocols, --runs or --shard, or raise the limit with --max-runs %d (the action's input max-runs)", what, limit, max(planned, cells))
}

// parseShard reads --shard i/n; "" is the whole matrix, returned as 0, 0.
func parseShard(s string) (shard, shards int, err error) {
	if s == "" {
		return 0, 0, nil
	}
	is, ns, ok := strings.Cut(s, "/")
	i, ierr := strconv.Atoi(strings.TrimSpace(is))
	n, nerr := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || ierr != nil || nerr != nil {
		return 0, 0, fmt.Errorf("--shard %q: want i/n, e.g. 1/3 for the first of three shards", s)
	}
	if n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("--shard %q: want 1 ≤ i ≤ n, e.g. 1/%d to %d/%d", s, max(n, 1), max(n, 1), max(n, 1))
	}
	return i, n, nil
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

// parseFlags parses args into fs. -h is help asked for: the usage on stdout and an error of exit
// code 0; a bad flag prints the usage on stderr and is a usage error.
func parseFlags(fs *flag.FlagSet, args []string) error {
	usage := fs.Usage
	if usage == nil {
		usage = fs.PrintDefaults
	}
	fs.Usage = func() {} // printed below, where it belongs
	defer func() { fs.Usage = usage }()
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(os.Stdout)
		usage()
		return &exitcode.Error{Code: exitcode.OK, Err: err}
	}
	if err != nil {
		usage()
		return exitcode.UsageError(err)
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// progress shows the sweep as it goes: one live line on a terminal, plain lines (one per
// finished cell) in a CI log.
type progress struct {
	w           io.Writer
	live        bool
	mu          sync.Mutex
	start       time.Time
	total, done int
	running     int
	cells       int
	cellsDone   int
	stop        chan struct{}
	stopped     sync.WaitGroup
}

func newProgress(w io.Writer, cells int) *progress {
	p := &progress{w: w, cells: cells, start: time.Now(), stop: make(chan struct{})}
	if f, ok := w.(*os.File); ok && isTerminal(f) && os.Getenv("CI") == "" {
		p.live = true
		p.stopped.Add(1)
		go func() {
			defer p.stopped.Done()
			t := time.NewTicker(500 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-p.stop:
					return
				case <-t.C:
					p.mu.Lock()
					p.draw()
					p.mu.Unlock()
				}
			}
		}()
	}
	return p
}

func (p *progress) Started(total, cellsDone int) {
	p.mu.Lock()
	p.total, p.cellsDone = total, cellsDone
	p.mu.Unlock()
}

func (p *progress) RunStarted(scenario.Cell, int) { p.mu.Lock(); p.running++; p.mu.Unlock() }

func (p *progress) RunDone(cell scenario.Cell, run int, outcome string, cellDone bool, c *tally.Cell) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running--
	p.done++
	if cellDone {
		p.cellsDone++
		if !p.live {
			fmt.Fprintf(p.w, "[%d/%d] %s: %s\n", p.cellsDone, p.cells, report.Plain(c.Coordinates()), report.Plain(c.Counts()))
		}
	}
	if p.live {
		p.draw()
	}
}

func (p *progress) draw() {
	elapsed := time.Since(p.start)
	eta := "?"
	if p.done > 0 {
		eta = clock(time.Duration(float64(elapsed) / float64(p.done) * float64(p.total-p.done)))
	}
	fmt.Fprintf(p.w, "\r\033[K  cells %d/%d · runs %d/%d · %d running · %s elapsed · ETA %s",
		p.cellsDone, p.cells, p.done, p.total, p.running, clock(elapsed), eta)
}

func (p *progress) finish() {
	close(p.stop)
	p.stopped.Wait()
	if p.live {
		p.mu.Lock()
		p.draw()
		fmt.Fprintln(p.w)
		p.mu.Unlock()
	}
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func clock(d time.Duration) string {
	d = d.Round(time.Second)
	return fmt.Sprintf("%d:%02d", int(d.Minutes()), int(d.Seconds())%60)
}
