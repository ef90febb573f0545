package runner

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/sourcegraph/conc/pool"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/cellimage"
	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/execute"
	"github.com/toolscore/toolscore/internal/grade"
	"github.com/toolscore/toolscore/internal/install"
	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/tally"
)

// Backend executes one run; local.Backend and docker.Backend implement it.
type Backend interface {
	Name() string
	// Self is the toolscore binary as seen where runs execute (it serves the proxy, the
	// built-in ledger and the built-in adapters); WorkDir is the run's directory there.
	Self() string
	WorkDir(hostDir string) string
	Run(ctx context.Context, s backend.Spec) backend.Result
}

// failed says whether err, guarded by mu, is set.
func failed(mu *sync.Mutex, err *error) bool {
	mu.Lock()
	defer mu.Unlock()
	return *err != nil
}

// cellBackend runs each cell's runs in a place of the cell's own (docker's held container): told
// of a cell before a worker is free for it, so it can make that place meanwhile, and told when
// the cell's runs are over.
type cellBackend interface {
	PrepareCell(ctx context.Context, s backend.Spec)
	EndCell(cell string)
}

// Options configure a sweep.
type Options struct {
	// Plan is what the sweep runs: its cells, and of them the runs of this shard.
	Plan
	Backend Backend
	// BackendWhy says why this backend was chosen, for the report.
	BackendWhy string
	// Out is the output directory: runs.jsonl, results.json, the transcripts.
	Out string
	// Parallel bounds how many runs execute at once.
	Parallel int
	// Version is toolscore's own version, for results.json.
	Version string
	// Progress, when set, is told about every run that starts and ends.
	Progress Progress
	// ServerEnv is the command server's own environment (Scenario.ServerEnv): a server sees
	// it and the allowlist, nothing else. Secrets are its values read from the runner's
	// environment: masked in every file and output of a run, like a model's key.
	ServerEnv, Secrets []string
	// ServerCache, when set, is the folder a command server's package managers share across
	// runs (ServerCache): the local backend's, where runs have the network to fill it.
	ServerCache string
	// Auth is a url server's Authorization header (Scenario.Auth), which only the proxy of its
	// http cells is given; it is among Secrets.
	Auth string
	// Replay, when set, plays every run against its recording in a previous sweep instead of
	// starting the scenario's server (toolscore run --replay).
	Replay *Recordings
	// Adapters are the commands of adapters built for Go clients' version pins, by client ID
	// (Choice.Adapters); every other client's adapter is toolscore's own or its image's.
	Adapters map[string]string
	// Installed are the install cache's folders clients run from on the local backend, by
	// client ID (Choice.Installed); a client there starts as its client.Local says.
	Installed map[string]string
	// Installs, when set, installs a client of Installed, or on docker builds its cell image,
	// before its first run (Installs.Ready): without it, Installed must have been installed
	// and the images built (Choice.Install).
	Installs *Installs
	// Record is what sweep.json says of how the sweep was asked for (its manifest and the
	// command's flags); Run adds the plan and writes it into Out before the first run.
	Record outdir.Sweep
	// Resume continues the sweep in Out that its sweep.json and runs.jsonl describe: the runs
	// recorded are counted, not run again; a record cut short is dropped and its run run.
	Resume bool
	// ClientFiles are the files of each client the manifest defines, with their SHA-256, by
	// client ID (Choice.ClientFiles): in its cells' keys, so a cell run again says which changed.
	ClientFiles map[string]map[string]string
	// Cache, when set, takes the cells it holds (the server checked) instead of running them,
	// and keeps the cells run (CellCache).
	Cache *CellCache
}

// Progress hears about the sweep as it goes.
type Progress interface {
	// Started says how many runs the sweep will run, and how many cells are complete before
	// the first (those a resumed sweep found recorded).
	Started(total, cellsDone int)
	RunStarted(cell scenario.Cell, run int)
	RunDone(cell scenario.Cell, run int, outcome record.Outcome, cellDone bool, c *tally.Cell)
	// AloneStarted says how many runs run again alone, one after the other, once the sweep's
	// are over, each bounded by timeout; AloneDone that one of them ended, c its cell.
	AloneStarted(runs int, timeout time.Duration)
	AloneDone(c *tally.Cell, outcome record.Outcome)
}

// Run executes the sweep. It returns the counts of every run that finished, also when ctx was
// cancelled midway (then Interrupted is set and the rest are not run). The expectations are
// not checked here: the sweep checks them (tally.Check) and gives the verdict (report.Decide).
func Run(ctx context.Context, o Options) (*tally.Results, error) {
	// Run directories are handed to processes that start in them, so a relative --out would
	// point nowhere: the local backend's proxy could not find its tee.
	abs, err := filepath.Abs(o.Out)
	if err != nil {
		return nil, fmt.Errorf("the output directory %s: %w", o.Out, err)
	}
	o.Out = abs
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("making the output directory: %w", err)
	}
	res := o.Results()
	done := map[doneRun]bool{}
	var runsFile *os.File
	if o.Resume {
		runsFile, err = o.resume(res, done)
	} else {
		runsFile, err = o.start(res)
	}
	if err != nil {
		return nil, err
	}
	defer runsFile.Close()
	if o.Cache != nil {
		o.cacheHits(ctx, res)
	}
	if o.Progress != nil {
		total, complete := 0, 0
		for i, c := range res.Cells {
			if o.Cache != nil && o.Cache.hits[i] != nil {
				complete++
				continue
			}
			total += c.Planned - c.Runs
			if c.Planned > 0 && c.Runs == c.Planned {
				complete++
			}
		}
		o.Progress.Started(total, complete)
	}

	var mu sync.Mutex
	w := bufio.NewWriter(runsFile)
	// stopErr stops the sweep: a run to run again whose directory could not be cleared, or a run
	// whose output found no room.
	var werr, stopErr error
	p := pool.New().WithMaxGoroutines(max(o.Parallel, 1))
	// suspect holds, per cell, the first run of this sweep whose outcome the machine's load may
	// have made: it runs again alone once the sweep is over.
	suspect := map[int]Job{}
	var aloneW *bufio.Writer // alone.jsonl, opened when the first run alone starts
	run := func(j Job) {
		if o.Progress != nil && !j.Alone {
			mu.Lock()
			o.Progress.RunStarted(j.Cell, j.Run)
			mu.Unlock()
		}
		rec, ok, err := runOne(ctx, o, j)
		if err != nil {
			mu.Lock()
			stopErr = cmp.Or(stopErr, err)
			mu.Unlock()
			return
		}
		if !ok {
			return // cancelled midway: not a finished run
		}
		rec.Alone = j.Alone
		line := runLine(rec)
		o.ranRun(j, line)
		if j.Alone {
			o.aloneRan(j, rec.Outcome)
		}
		mu.Lock()
		defer mu.Unlock()
		res.RunsExecuted++
		if to := w; werr == nil {
			if j.Alone {
				to = aloneW
			}
			to.Write(line)
			werr = to.Flush() // each run is on disk as it ends, so an interrupt loses none
		}
		c := res.Cells[j.Index]
		c.AddRun(&rec)
		if j.Alone {
			if o.Progress != nil {
				o.Progress.AloneDone(c, rec.Outcome)
			}
			return
		}
		if s, seen := suspect[j.Index]; loadMayMake(rec.Outcome) && (!seen || j.Run < s.Run) {
			suspect[j.Index] = j
		}
		if o.Progress != nil {
			o.Progress.RunDone(j.Cell, j.Run, rec.Outcome, c.Runs == c.Planned, c)
		}
	}
	// A cell's runs go to one worker, one after the other: on docker they share the cell's
	// container. The backend hears of a cell before a worker is free for it, so it can start the
	// cell's container while the cells before it run. Cells and their runs are made as workers
	// free up (p.Go waits for one), never listed: memory stays the same whatever the number of
	// runs planned.
	cells, _ := o.Backend.(cellBackend)
	for c := range o.cellJobs() {
		if ctx.Err() != nil || failed(&mu, &stopErr) {
			break
		}
		if cl := res.Cells[c.First.Index]; cl.Planned > 0 && cl.Runs >= cl.Planned {
			continue // every run of it is in the sweep resumed: no worker, no container
		}
		if o.Cache != nil {
			mu.Lock()
			cl := res.Cells[c.First.Index]
			reused, err := o.reuseCell(c.First.Index, cl, func(line []byte) error {
				if werr == nil {
					w.Write(line)
					werr = w.Flush()
				}
				return werr
			})
			if reused {
				res.RunsReused += cl.Runs
			}
			mu.Unlock()
			if err != nil || reused {
				continue
			}
		}
		// The cell's held container starts from its client's image: built first, when the sweep
		// found no cell of it to run before the cache turned this one down (runOne says why not).
		if cells != nil && o.Installs.Ready(ctx, c.First.Client.ID()) == nil {
			spec, _ := o.Spec(c.First, filepath.Join(o.Out, c.First.Dir()))
			cells.PrepareCell(ctx, spec)
		}
		p.Go(func() {
			if cells != nil {
				defer cells.EndCell(c.First.Cell.Key())
			}
			for j := range c.Runs {
				if ctx.Err() != nil || failed(&mu, &stopErr) {
					return
				}
				if done[doneRun{j.Index, j.Run}] {
					continue
				}
				if o.Resume {
					// A run the kill cut short may have left files: it starts afresh.
					if err := os.RemoveAll(filepath.Join(o.Out, j.Dir())); err != nil {
						mu.Lock()
						stopErr = fmt.Errorf("clearing the directory of a run to run again: %w", err)
						mu.Unlock()
						return
					}
				}
				run(j)
			}
			o.keepCell(ctx, c, res.Started)
		})
	}
	p.Wait()
	alone := aloneRuns(suspect, res)
	if o.Progress != nil && len(alone) > 0 && ctx.Err() == nil && stopErr == nil {
		o.Progress.AloneStarted(len(alone), o.Scenario.Timeout.Std())
	}
	for _, j := range alone {
		if ctx.Err() != nil || stopErr != nil || werr != nil {
			break
		}
		if aloneW == nil {
			f, err := os.OpenFile(filepath.Join(o.Out, record.AloneFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
			if err != nil {
				werr = err
				break
			}
			defer f.Close()
			aloneW = bufio.NewWriter(f)
		}
		if cells != nil {
			spec, _ := o.Spec(j, filepath.Join(o.Out, j.Dir()))
			cells.PrepareCell(ctx, spec)
		}
		run(j)
		if cells != nil {
			cells.EndCell(j.Cell.Key())
		}
	}
	o.keepConfirmed(ctx, res.Started)
	res.Finished = time.Now().UTC()
	res.Interrupted = ctx.Err() != nil
	if werr != nil {
		return res, fmt.Errorf("writing %s: %w", record.RunsFile, werr)
	}
	return res, stopErr
}

// maxAlone bounds the runs run again alone after a sweep: one after the other, a client that
// hangs in every cell would otherwise add a timeout per cell to the sweep.
const maxAlone = 32

// loadMayMake says whether an outcome may be the loaded machine's rather than the client's: a
// run that ran out of time, died, lost its server, never called the tool, found the server not
// ready, or whose transcript was cut short before the call's answer (unobserved).
func loadMayMake(outcome record.Outcome) bool {
	switch outcome {
	case record.Hung, record.Crashed, record.ServerExited, record.NoCall, record.NotReady, record.Unobserved:
		return true
	}
	return false
}

// aloneRuns are the suspect runs to run again alone, in the matrix's order, at most maxAlone,
// but none of a cell that a sweep resumed had run alone already. The cells of those past the
// limit are marked AloneNotRun: their counts are unconfirmed, and say so.
func aloneRuns(suspect map[int]Job, res *tally.Results) []Job {
	out := make([]Job, 0, len(suspect))
	for _, j := range suspect {
		if len(res.Cells[j.Index].Alone) > 0 {
			continue
		}
		j.Alone = true
		out = append(out, j)
	}
	slices.SortFunc(out, func(a, b Job) int { return a.Index - b.Index })
	for _, j := range out[min(len(out), maxAlone):] {
		res.Cells[j.Index].AloneNotRun = true
	}
	return out[:min(len(out), maxAlone)]
}

// runOne executes one run: it writes the run's files, and package execute runs the adapter,
// started with the proxy wrapped around the server, and grades it. It returns false for a run cancelled midway, and an error, which stops the sweep, when the run's
// output could not be written for want of room: the machine's failing, never the client's.
func runOne(ctx context.Context, o Options, j Job) (record.Run, bool, error) {
	rel := j.Dir()
	dir := filepath.Join(o.Out, rel)
	// The client's install is made (or checked whole) before its first run, whether or not the
	// sweep's first pass found it needed: a cell the cell cache was to give may run after all.
	if err := o.Installs.Ready(ctx, j.Client.ID()); err != nil {
		if ctx.Err() != nil {
			return record.Run{}, false, nil
		}
		return record.Run{}, false, fmt.Errorf("client %s: installing it for a cell of it that runs: %w", j.Client.ID(), err)
	}
	// A run before this one may have written into the client's install, as the user it runs as
	// can: then this run would not run what was installed, nor would any after it.
	if err := install.Unchanged(o.Installed[j.Client.ID()]); err != nil {
		return record.Run{}, false, fmt.Errorf("client %s: %w; a run of this sweep wrote into it, so the sweep stopped (the next sweep, or --resume, installs it afresh)", j.Client.ID(), err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return setUpFailed(j, rel, fmt.Errorf("making the run's directory: %w", err))
	}
	// The run's inputs are files in its directory, so every backend can carry them in.
	if err := o.WriteInputs(dir); err != nil {
		return setUpFailed(j, rel, err)
	}
	if err := o.writeRecording(j, dir); err != nil {
		return setUpFailed(j, rel, err)
	}
	spec, req := o.Spec(j, dir)
	x := execute.Job{Spec: spec, Cell: j.Cell.Coordinates(), Run: j.Run, Seed: j.Seed, Dir: rel,
		Agent: j.Client.Descriptor.Agent, Truth: j.Cell.Tool.Truth, SideEffects: j.Cell.Tool.SideEffects, Secrets: append([]string{req.ModelKey}, o.Secrets...)}
	if o.Source() == SourceRecording {
		x.Recording = filepath.Join(dir, recordingFile)
	}
	ran, err := execute.Run(ctx, o.Backend, x)
	if err != nil {
		// The run's transcript could not be written, nor, likely, anything of the run's: what the
		// client did is unknown, and the disk is ours.
		return record.Run{}, false, stopSweep(j, err)
	}
	if ran.Result.Cancelled {
		return record.Run{}, false, nil
	}
	return ran.Record, true, nil
}

// runLine encodes a run's record as its line of runs.jsonl (record.Line); an observation that
// cannot be encoded is dropped, and the evidence says so.
func runLine(rec record.Run) []byte {
	line, err := record.Line(rec)
	if err != nil {
		rec.Observation = nil
		rec.Evidence += "; the client's observation could not be kept: " + err.Error()
		line, _ = record.Line(rec)
	}
	return line
}

// ModelKeyEnv is the variable of the runner's environment that holds the key of a client's real
// model: the manifest's key_env, else the agent vendor's usual one.
func ModelKeyEnv(c scenario.Client) string { return resolve(c, "").KeyEnv() }

// adapterCommand starts a client adapter: one installed on this machine from its install
// folder; a built-in one is toolscore itself, or the adapter built for its version pin; a
// contained one is whatever its image runs. A client the manifest defines runs from its install
// (on docker, its cell image's), an agent of the manifest's through toolscore agent defined.
func (o Options) adapterCommand(self string, c Client) []string {
	dir := o.Installed[c.ID()]
	if dir == "" && c.Descriptor.Manifest {
		dir = cellimage.RecipeDir
	}
	if dir != "" {
		argv := c.Descriptor.Local.Argv(self, dir, c.Name, c.Path)
		if c.Descriptor.Manifest && c.Descriptor.Agent {
			argv = client.DefinedAgentArgv(self, argv)
		}
		return argv
	}
	if c.Descriptor.Contained() {
		return c.Descriptor.Argv(c.Path)
	}
	if adapter := o.Adapters[c.ID()]; adapter != "" {
		return []string{adapter, c.Name}
	}
	return []string{self, "client", c.Name}
}

// crashedRun records a run that could not even be set up.
func crashedRun(j Job, rel string, err error) record.Run {
	return record.Run{
		Cell: j.Cell.Coordinates(), Run: j.Run, Seed: j.Seed, Grade: grade.Grade{Outcome: record.Crashed, Evidence: err.Error()}, Tee: filepath.Join(rel, record.TeeFile),
	}
}

// setUpFailed is runOne's answer for a run whose files could not be written: a crashed run, or
// the sweep's stop when the disk has no room left.
func setUpFailed(j Job, rel string, err error) (record.Run, bool, error) {
	if execute.NoRoom(err) {
		return record.Run{}, false, stopSweep(j, err)
	}
	return crashedRun(j, rel, err), true, nil
}

// stopSweep words the error that stops a sweep at run j for want of room.
func stopSweep(j Job, err error) error {
	return fmt.Errorf("the sweep stopped at %s, run %d, with nothing of it recorded: the output has no room (make room, then run again with --resume): %w", j.Cell.Coordinates(), j.Run, err)
}
