package sweep

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/toolscore/toolscore/internal/runner"
	"github.com/toolscore/toolscore/record"

	// The agents register themselves as clients: a manifest that names one loads wherever
	// Load is called, not only in toolscore's own binary.
	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/fault"
	_ "github.com/toolscore/toolscore/internal/agent"
	"github.com/toolscore/toolscore/internal/cache"
	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/scenarios"
	"github.com/toolscore/toolscore/tally"
)

// DefaultMaxRuns is the largest sweep Sweep starts unless Config.MaxRuns says more: ten times
// the embedded scenario's whole matrix, hours of runs; more is likely a typo in runs.
const DefaultMaxRuns = 10000

// Builtins are the servers a manifest can name as server.builtin: toolscore's own commands.
var Builtins = []string{"ledger", "hostile"}

// Config is what to sweep and how. The zero value of each field is its default.
type Config struct {
	Scenario string // the manifest's path, as given; "" is the embedded scenarios/ledger.yaml
	// Clients, Faults, Schemas, Protocols, Transports and Tools narrow the scenario's matrix to
	// the values named, axis by axis (clients by name or name@version, protocols as-is or by
	// version); nil keeps the axis whole.
	Clients, Faults, Schemas, Protocols, Transports, Tools []string
	Runs                                                   int // runs per cell; 0 is the scenario's
	MaxRuns                                                int // the largest sweep started; 0 is DefaultMaxRuns
	Parallel                                               int // runs at once; 0 is the scenario's, or the number of CPUs
	// Shard and Shards, when Shards > 0, run only slice Shard (1 to Shards) of the matrix's runs;
	// Merge adds the slices' outputs up. ParseShard reads them from "i/n".
	Shard, Shards int
	// ShardBy is an earlier sweep's results.json (or its output directory): the shard then runs
	// the cells that Balance gives it, whole, by their measured times (Plan prints them).
	ShardBy string
	// owner is the planned split a resumed sweep recorded (recordedArgs.Owner).
	owner   []int
	Backend string // docker, local, or "" and auto for docker when a Docker daemon answers
	Out     string // the output directory; "" is a new directory under ./toolscore-out
	// FailOn is what makes the error an exitcode.Unmet; "" is expect.
	FailOn report.FailOn
	// Replay is an earlier output directory whose transcripts the runs play against, instead
	// of a live server.
	Replay string
	// Cache is the cell cache's folder: cells it holds whose server answers as recorded are
	// taken from it instead of run, and the cells run are kept in it. "" runs every cell.
	Cache string

	// Version is toolscore's version, recorded in the results.
	Version string
	// Self is the toolscore binary the runs start (as proxy, adapter, builtin server); "" is
	// this process's own executable, which must then run those commands: toolscore does, and
	// a program (a test) that calls Reenter first does.
	Self string
	// Stdout gets the text report, Stderr the log (the plan, progress, warnings); nil discards
	// it. Errors are returned, not written.
	Stdout, Stderr io.Writer
}

// writers are c's Stdout and Stderr, io.Discard for a nil one.
func (c Config) writers() (stdout, stderr io.Writer) {
	stdout, stderr = c.Stdout, c.Stderr
	if stdout == nil {
		stdout = io.Discard
	}
	if stderr == nil {
		stderr = io.Discard
	}
	return stdout, stderr
}

// Load loads the manifest at path as toolscore run does, checked against the faults, clients
// and builtin servers toolscore knows; "" is the embedded ledger.
func Load(path string) (*scenario.Scenario, error) {
	data := scenarios.Ledger
	if path == "" {
		path = scenarios.LedgerPath
	} else {
		var err error
		if data, err = scenario.ReadFile(path); err != nil {
			return nil, err
		}
	}
	return scenario.Load(path, data, scenario.Known{Faults: fault.Names(), FaultOptions: fault.Check, HTTPOnly: fault.Transport, NeedsSchema: fault.NeedsSchema, Clients: client.Names(), Builtins: Builtins, HTTPBuiltins: []string{"ledger"}, Agents: client.AgentNames(), Versioned: client.Versioned()})
}

// Sweep does what toolscore run does with sc loaded from c.Scenario: it narrows the scenario,
// picks the backend, checks the server, runs the matrix, writes results.json, summary.md and
// runs.jsonl into out, and writes the text report on c.Stdout. res is nil when nothing ran. err
// says what stopped or failed the sweep; exitcode.Of(err) is toolscore run's exit code for it.
// A wrong Config is a *ConfigError or a *TooBigError, a manifest's a scenario error
// (scenario.Errors), an unmet expectation an exitcode.Unmet error the report already shows, an
// interruption an exitcode.Interrupted one with res holding what finished. sc is narrowed in
// place: load it again for another sweep.
func Sweep(ctx context.Context, sc *scenario.Scenario, c Config) (res *tally.Results, out string, err error) {
	return sweep(ctx, sc, c, false)
}

// sweep is Sweep, or with resume the sweep in c.Out run on from its runs.jsonl.
func sweep(ctx context.Context, sc *scenario.Scenario, a Config, resume bool) (res *tally.Results, out string, err error) {
	stdout, stderr := a.writers()
	path := cmp.Or(a.Scenario, scenarios.LedgerPath)
	// fail is why nothing (more) could run; an error with no code of its own is a usage or
	// setup error.
	leave := func() {} // undoes what a sweep refused before any run made
	fail := func(err error) (*tally.Results, string, error) {
		leave()
		if _, coded := errors.AsType[*exitcode.Error](err); !coded && !errors.Is(err, context.Canceled) {
			err = exitcode.UsageError(err)
		}
		return nil, out, err
	}
	if err := checkCounts(a); err != nil {
		return fail(err)
	}
	var recordings *runner.Recordings
	var skipped []tally.NotApplicable // the cells not applicable, which leave the matrix
	if a.Replay != "" {
		r, shard, na, err := loadRecordings(a.Replay, sc)
		if err != nil {
			return fail(&ConfigError{Field: "Replay", Err: err})
		}
		recordings, a, skipped = r, replayArgs(a, sc, r, shard), na
	}
	if err := errors.Join(sc.Filter(a.Clients, a.Faults, a.Schemas, a.Protocols, a.Transports), sc.FilterTools(a.Tools)); err != nil {
		return fail(err)
	}
	serverEnv, secrets, err := sc.ServerEnv(os.LookupEnv)
	auth, authErr := sc.Auth(os.LookupEnv)
	if err := errors.Join(err, authErr); err != nil {
		return fail(err)
	}
	if auth != "" {
		secrets = append(secrets, auth)
	}
	shard, shards := a.Shard, a.Shards
	if a.Runs > 0 {
		sc.Runs = a.Runs
	}
	if err := checkSweepSize(sc, shard, shards, cmp.Or(a.MaxRuns, DefaultMaxRuns)); err != nil {
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
	made := missingDirs(out)
	// Before anything is built or run: a sweep whose results cannot be written is not started.
	if err := checkOutDir(out); err != nil {
		return fail(err)
	}
	_, lockErr := os.Lstat(filepath.Join(out, record.LockFile))
	lockMade := errors.Is(lockErr, fs.ErrNotExist)
	// One sweep at a time writes an output directory: two would clobber each other's files.
	release, err := outdir.Lock(out)
	if err != nil {
		return fail(exitcode.UsageError(err))
	}
	defer release()
	if lockMade {
		// A sweep refused before any run leaves no output directory of its lock alone behind,
		// which toolscore baseline and report would take for a sweep's.
		leave = func() {
			release()
			os.Remove(filepath.Join(out, record.LockFile))
			for _, d := range made {
				os.Remove(d) // only when empty: what a run wrote stays
			}
		}
	}
	self := a.Self
	if self == "" {
		if self, err = os.Executable(); err != nil {
			return fail(err)
		}
	}
	choice, err := runner.ChooseBackend(ctx, a.Backend, self, sc, stderr)
	if err != nil {
		return fail(err)
	}
	defer choice.Done()
	be, why, unavailable := choice.Backend, choice.Why, choice.Unavailable
	if be.Name() == "local" && sc.Server.Install != "" {
		fmt.Fprintf(stderr, "warning: server.install runs only on the docker backend; on the local backend %q must already be on PATH\n", sc.Server.Command[0])
	}
	// The sweep's options: what provisioning made, the server's inputs and the output; the plan
	// is of the whole matrix until the preflight has left out what does not apply.
	o := choice.Options(runner.Plan{Scenario: sc})
	o.Out, o.ServerEnv, o.Secrets, o.Auth, o.ServerCache = out, serverEnv, secrets, auth, serverCache(be, sc)
	// Before any run: the server starts, and lists the tools the scenario calls (a replay's
	// recordings stand in for it, checked below).
	// On docker the server's checks run in the first client's cell image, built now; the other
	// clients' images are built only for the cells that run (choice.Install below).
	if err := choice.ReadyForChecks(ctx, sc); err != nil {
		return fail(err)
	}
	checked := map[string]bool{}
	if recordings == nil {
		if _, err := checkServer(ctx, choice, sc, checked); err != nil {
			return fail(err)
		}
		if _, err := checkURLServer(ctx, be, sc, auth, unavailable); err != nil {
			return fail(err)
		}
		// It fills the server's package cache, which the runs then share.
		noSchema, err := preflight(ctx, o, stderr)
		if err != nil {
			return fail(err)
		}
		skipped = notApplicable(sc, noSchema, stderr)
	}
	// The plan is of the matrix the preflight left: the cells not applicable are not in it.
	owner, err := planShard(a, sc, shards)
	if err != nil {
		return fail(err)
	}
	a.owner = owner
	o.Shard, o.Shards, o.Owner = shard, shards, owner
	if recordings != nil {
		if err := checkRecorded(a.Replay, recordings, o.Plan); err != nil {
			return fail(err)
		}
	}
	rec := sweepRecord(a, sc, be.Name())
	var buildErr error
	rec.Build, buildErr = Build(a.Version, a.Self)
	rec.Adapters = choice.Fingerprints
	o.Parallel, o.Version, o.Replay, o.Record, o.Resume = par, a.Version, recordings, rec, resume
	switch {
	case a.Cache != "" && buildErr != nil:
		// The build keys every cell: one not known could take another build's cells.
		fmt.Fprintf(stderr, "cell cache: every cell runs and none is kept: %v\n", buildErr)
	case a.Cache != "":
		o.Cache = &runner.CellCache{Store: cache.Cache{Dir: a.Cache}, Log: stderr}
	}
	// The cells' keys are known before any client is installed: only the clients with a cell
	// the cache does not hold are installed now (a cell it turns out not to give has its
	// client installed before it runs). A client that cannot be installed leaves the plan.
	if err := choice.Install(ctx, o.ClientsToRun()); err != nil {
		return fail(err)
	}
	if recordings == nil {
		// The server starts in the images just built too.
		if _, err := checkServer(ctx, choice, sc, checked); err != nil {
			return fail(err)
		}
	}
	// Count the cells that will run: not those of unavailable clients, and in a shard only
	// those with runs in it (shards number the cells of the whole matrix).
	cells, progCells := o.Cells()
	slice := ""
	if shards > 0 {
		slice = fmt.Sprintf(" (shard %d/%d)", shard, shards)
		if owner != nil {
			slice = fmt.Sprintf(" (shard %d/%d, its %d cells whole)", shard, shards, progCells)
		}
	}
	fmt.Fprintf(stderr, "toolscore %s: %s (%s): %d cells × %d runs%s on the %s backend (%s), %d at a time; output in %s\n",
		a.Version, report.Plain(sc.Name), report.Plain(path), cells, sc.Runs, slice, be.Name(), report.Plain(why), par, report.Plain(out))
	if resume {
		if _, err := o.CheckResume(); err != nil {
			return fail(exitcode.UsageError(err))
		}
	}
	prog := newProgress(stderr, progCells)
	o.Progress = prog
	if o.Cache != nil {
		o.Cache.Log = prog // its lines during the sweep go above a terminal's live line
	}
	res, err = runner.Run(ctx, o)
	prog.finish()
	if res != nil && a.Cache != "" {
		fmt.Fprintln(stderr, report.CacheLine(res))
	}
	if res == nil {
		return fail(err) // the output directory could not be made: nothing ran
	}
	res.NotApplicable = skipped
	res.Installed, res.NotInstalled = choice.Installs.Said()
	res.Expectations = tally.Check(sc, res)
	// What ran is reported and checked whatever could be written of it; an output that could
	// not all be written (runs.jsonl or a report: a full disk) then fails the sweep as setup.
	werr := errors.Join(err, outdir.Write(out, res))
	if err := report.Text(stdout, res); err != nil {
		fmt.Fprintln(stderr, "warning: the text report:", err)
	}
	verdict := report.Decide(res, nil, a.FailOn)
	warnUnchecked(res, a.FailOn, stderr)
	gone := serverExits(res, stderr)
	if werr == nil {
		nextSteps(stderr, out)
	}
	switch {
	case werr != nil:
		return res, out, exitcode.UsageError(fmt.Errorf("the output in %s is incomplete (the counts above are all there is): %w", out, werr))
	case verdict.Code == exitcode.Interrupted:
		return res, out, &exitcode.Error{Code: exitcode.Interrupted, Err: context.Canceled}
	case cells == 0:
		return res, out, exitcode.UsageError(fmt.Errorf("no cell ran: no client of the scenario can run here (%s)", unavailableReasons(unavailable)))
	case verdict.Code == exitcode.Unmet:
		return res, out, exitcode.UnmetError(errors.New(verdict.Reason))
	case gone:
		return res, out, exitcode.UsageError(errors.New("the server exited before answering the handshake in every run: nothing was measured"))
	}
	return res, out, nil
}

// nextSteps names, as a sweep's last lines, what it wrote and what to do with it: the results,
// the report to open, and the command that makes a page to share.
func nextSteps(w io.Writer, out string) {
	fmt.Fprintf(w, "results: %s\n", report.Plain(outdir.Results(out)))
	fmt.Fprintf(w, "report:  %s (every cell with its evidence; open it in a browser)\n", report.Plain(filepath.Join(out, record.HTMLFile)))
	fmt.Fprintf(w, "share:   toolscore report %s --format %s > compat.html (a page of what each client did)\n", report.Plain(shellQuote(out)), report.ShareFormat)
}

// shellQuote quotes s for a POSIX shell when it needs it, so that a printed command can be
// copied as it is.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@+=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// missingDirs are dir and those of its parents that do not exist yet, dir first: what making it
// makes.
func missingDirs(dir string) []string {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			return missing
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			return missing
		}
	}
}

// checkCounts refuses the counts and the shard of a that cannot be, each naming its field.
func checkCounts(a Config) error {
	var errs []error
	for _, n := range []struct {
		field string
		v     int
	}{{"Runs", a.Runs}, {"MaxRuns", a.MaxRuns}, {"Parallel", a.Parallel}} {
		if n.v < 0 {
			errs = append(errs, &ConfigError{Field: n.field, Err: fmt.Errorf("%d: must be 1 or more, or 0 for the default", n.v)})
		}
	}
	if a.Shards < 0 || a.Shards > 0 && (a.Shard < 1 || a.Shard > a.Shards) || a.Shards == 0 && a.Shard != 0 {
		errs = append(errs, &ConfigError{Field: "Shard", Err: fmt.Errorf("%d of %d shards: want 1 ≤ Shard ≤ Shards, or both 0 for the whole matrix", a.Shard, a.Shards)})
	}
	return errors.Join(errs...)
}

// unavailableReasons says why each client cannot run, one after another.
func unavailableReasons(unavailable map[string]string) string {
	var why []string
	for _, c := range slices.Sorted(maps.Keys(unavailable)) {
		why = append(why, c+": "+report.Plain(unavailable[c]))
	}
	return strings.Join(why, "; ")
}

// serverExits says on stderr how many runs the server failed (it exited before answering the
// handshake), with the first one's evidence, and whether it failed every run: then the sweep
// measured no client at all, a setup error as a server that cannot start is.
func serverExits(r *tally.Results, stderr io.Writer) (every bool) {
	n, runs, evidence := 0, 0, ""
	for _, c := range r.Cells {
		runs += c.Runs
		n += c.Outcome[string(record.ServerExited)]
		if ex, ok := c.Examples[string(record.ServerExited)]; ok && evidence == "" {
			evidence = ex.Evidence
		}
	}
	if n == 0 {
		return false
	}
	fmt.Fprintf(stderr, "warning: the server exited before answering the handshake in %d of %d runs (%s): %s\n",
		n, runs, record.ServerExited, report.Plain(evidence))
	return n == runs
}

// warnUnchecked warns of the expectations the sweep could not check when failOn lets them pass
// (report.Decide): neither held nor unmet, they must not pass unnoticed.
func warnUnchecked(r *tally.Results, failOn report.FailOn, stderr io.Writer) {
	_, _, open := tally.Count(r.Expectations)
	if open > 0 && !failOn.Unchecked() {
		fmt.Fprintf(stderr, "warning: %d %s checked by this sweep (listed in the report); fail-on unchecked makes that fail\n",
			open, report.Plural(open, "expectation was not", "expectations were not"))
	}
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
	var tools []scenario.Tool
	if t := sc.Calls(); len(t) > 1 {
		tools = t
	}
	return &TooBigError{What: what, Limit: limit, Need: max(planned, cells), Tools: tools}
}

// planShard is the planned split of Config.ShardBy (nil for none): recorded by a resumed sweep, or
// balanced from the measured results it names.
func planShard(a Config, sc *scenario.Scenario, shards int) ([]int, error) {
	cells := sc.Cells()
	switch {
	case a.owner != nil:
		if len(a.owner) != len(cells) {
			return nil, fmt.Errorf("cannot resume: the recorded plan has %d cells, the matrix now %d", len(a.owner), len(cells))
		}
		return a.owner, nil
	case a.ShardBy == "":
		return nil, nil
	case shards == 0:
		return nil, &ConfigError{Field: "ShardBy", Err: fmt.Errorf("%s balances the cells among shards, and Shards is 0: set Shard and Shards too", a.ShardBy)}
	}
	measured, err := ReadMeasured(a.ShardBy)
	if err != nil {
		return nil, &ConfigError{Field: "ShardBy", Err: err}
	}
	owner, _ := runner.Balance(cells, sc.Runs, shards, measured)
	return owner, nil
}

// serverCache is the package cache a command server's runs share on the local backend, where
// they have the network to fill it; a docker cell has none (server.install fills its image).
func serverCache(be runner.Backend, sc *scenario.Scenario) string {
	if be.Name() != "local" {
		return ""
	}
	return runner.ServerCache(sc)
}
