package runner

import (
	"encoding/json"
	"fmt"
	"iter"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"strconv"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenario"
)

// Plan is what a sweep runs: the scenario's cells, less those of clients that cannot run here,
// and in a shard the runs of them that fall in it. The checks before a sweep (its size, a
// replay's recordings, the progress shown) and the sweep itself read the same value.
type Plan struct {
	Scenario *scenario.Scenario
	// Unavailable names clients that cannot run here (by ID), with the reason; their cells are
	// reported as unavailable, never given made-up outcomes.
	Unavailable map[string]string
	// Shard and Shards, when Shards > 0, run only slice Shard (1-based) of Shards: see ShardRuns.
	Shard, Shards int
	// Owner, when set, is a planned split (Balance): the shard of each of the matrix's cells,
	// by index. Shard then runs its cells whole, and no run of the others.
	Owner []int
}

// Cells counts the cells the plan counts (those of clients that can run) and, of them, the ones
// with runs in this shard.
func (p Plan) Cells() (counted, withRuns int) {
	for i, c := range p.Scenario.Cells() {
		if _, out := p.Unavailable[c.Client.ID()]; out {
			continue
		}
		counted++
		if p.CellRuns(i) > 0 {
			withRuns++
		}
	}
	return counted, withRuns
}

// Job is one run of a sweep: its cell, its number within the cell (from 1) and the seed its
// proxy draws from.
type Job struct {
	Cell scenario.Cell
	// Client is the cell's client resolved in the registry, once for the sweep.
	Client Client
	// Index is the cell's place among the sweep's counted cells (tally.Results.Cells): the
	// matrix's cells in order, those of unavailable clients left out.
	Index int
	Run   int
	Seed  uint64
	// Alone is a run run again alone after the sweep, with the seed of its first run.
	Alone bool
}

// Dir is the run's directory, relative to the output directory.
func (j Job) Dir() string {
	top := record.RunsDir
	if j.Alone {
		top = record.AloneDir
	}
	return filepath.Join(top, record.Slug(j.Cell.Key()), "run-"+strconv.Itoa(j.Run))
}

// Jobs yields the sweep's runs in the order they start: cell by cell in the matrix's order
// (unavailable clients left out), and within a cell the runs of this shard. Each is made as it
// is asked for, never listed, so memory stays the same whatever the number of runs planned.
func (p Plan) Jobs() iter.Seq[Job] {
	return func(yield func(Job) bool) {
		for c := range p.cellJobs() {
			for j := range c.Runs {
				if !yield(j) {
					return
				}
			}
		}
	}
}

// cellRuns is one cell of a sweep with runs in this shard: its first run, and all of them, made
// as they are asked for.
type cellRuns struct {
	First Job
	Runs  iter.Seq[Job]
}

// cellJobs yields the sweep's cells that have runs in this shard, in the order of Jobs.
func (p Plan) cellJobs() iter.Seq[cellRuns] {
	return func(yield func(cellRuns) bool) {
		sc := p.Scenario
		index := 0
		clients := map[string]Client{}
		for _, c := range Clients(sc) {
			clients[c.ID()] = c
		}
		for i, c := range sc.Cells() {
			if _, ok := p.Unavailable[c.Client.ID()]; ok {
				continue
			}
			idx, cl := index, clients[c.Client.ID()]
			index++
			first, step := p.firstRun(i)
			if first > sc.Runs {
				continue
			}
			runs := func(yield func(Job) bool) {
				for r := first; r <= sc.Runs; r += step {
					if !yield(Job{Cell: c, Client: cl, Index: idx, Run: r, Seed: runSeed(c.Fault, r)}) {
						return
					}
					if sc.Runs-r < step {
						break // the next run would be past the last (and r + step might overflow)
					}
				}
			}
			if !yield(cellRuns{First: Job{Cell: c, Client: cl, Index: idx, Run: first, Seed: runSeed(c.Fault, first)}, Runs: runs}) {
				return
			}
		}
	}
}

// Client is a manifest's client resolved against the registry of internal/client: the manifest's
// entry, the client's descriptor and the path its name picks (call in ts-sdk/call).
type Client struct {
	scenario.Client
	Descriptor client.Descriptor
	Path       string
}

// Clients resolves the scenario's clients, in its order; the loader checked every name.
func Clients(sc *scenario.Scenario) []Client {
	out := make([]Client, len(sc.Clients))
	for i, c := range sc.Clients {
		out[i] = resolve(c, sc.File)
	}
	return out
}

// resolve is the one place a manifest's client is looked up in the registry, or, for a client
// the manifest defines, made from its entry: installed from the folder of manifest.
func resolve(c scenario.Client, manifest string) Client {
	if c.Defined() {
		return Client{Client: c, Descriptor: client.Defined(c.Name, c.Runtime, c.Command, c.Install, c.Files, c.Agent, manifest)}
	}
	d, path, _ := client.Lookup(c.Name)
	return Client{Client: c, Descriptor: d, Path: path}
}

// KeyEnv is the variable of the runner's environment that holds the key of the client's real
// model: the manifest's key_env, else the agent vendor's usual one.
func (c Client) KeyEnv() string {
	if c.Model != nil && c.Model.KeyEnv != "" {
		return c.Model.KeyEnv
	}
	return c.Descriptor.KeyEnv
}

// runSeed is the seed of a fault's run: the manifest's (1 when unset) plus the run's number
// less one, so each run draws afresh and the same sweep draws the same.
func runSeed(f scenario.Fault, run int) uint64 {
	seed := uint64(1)
	if f.Seed != nil {
		seed = uint64(*f.Seed)
	}
	return seed + uint64(run-1)
}

// WriteInputs writes a run's input files into its directory dir, from where every backend
// carries them in: the manifest's output schema of each tool that has one.
func (o Options) WriteInputs(dir string) error {
	for _, t := range o.Scenario.Calls() {
		if len(t.OutputSchema) == 0 {
			continue
		}
		b, _ := json.Marshal(t.OutputSchema)
		if err := os.WriteFile(filepath.Join(dir, outputSchemaFile(t)), b, 0o644); err != nil {
			return fmt.Errorf("writing the output schema of %s: %w", t.Name, err)
		}
	}
	return nil
}

// outputSchemaFile is the input file WriteInputs writes a tool's output schema to: the single
// tool's keeps the name it always had.
func outputSchemaFile(t scenario.Tool) string {
	if t.Coordinate() == "" {
		return "output-schema.json"
	}
	return "output-schema-" + record.Slug(t.Name) + ".json"
}

// Spec is what job j runs on the sweep's backend with dir its directory on this machine: the
// adapter's command and environment, and the request they carry (the proxy wrapped around the
// server its source yields, the tool and its arguments, the agent's prompt and model). On the
// http transport the command is toolscore cell, which serves the proxy on loopback before it
// starts the adapter.
func (o Options) Spec(j Job, dir string) (backend.Spec, client.Request) {
	self, work := o.Backend.Self(), o.Backend.WorkDir(dir)
	tool := j.Cell.Tool
	s := o.serve(j, self, work)
	req := client.Request{Tool: tool.Name, Arguments: tool.Arguments}
	if j.Client.Descriptor.Agent {
		req.Prompt = tool.Prompt
	}
	if m := j.Cell.Client.Model; m != nil {
		req.Model, req.ModelURL, req.ModelKey = m.Name, m.URL, os.Getenv(j.Client.KeyEnv())
	}
	req.ModelRetries = j.Cell.Client.Retries
	command := o.adapterCommand(self, j.Client)
	if j.Cell.Transport == scenario.TransportHTTP {
		command = serveCommand(self, s, command)
	} else {
		req.Server = proxyCommand(self, s.proxy)
	}
	return backend.Spec{
		Dir:      dir,
		Client:   j.Cell.Client.ID(),
		Cell:     j.Cell.Key(),
		Run:      j.Run,
		Command:  command,
		Env:      append(append(s.env, req.Env()...), o.installedEnv(j.Client)...),
		Timeout:  o.Scenario.Timeout.Std(),
		CellRuns: o.Scenario.Runs,
		Network:  s.network,
		Server:   s.server,
	}, req
}

// installedEnv is what a client installed on this machine runs with (its virtual environment
// on PATH, where its CLI is), nothing for any other client.
func (o Options) installedEnv(c Client) []string {
	if dir := o.Installed[c.ID()]; dir != "" {
		return c.Descriptor.Local.Environ(dir)
	}
	return nil
}

// AuthEnv is the variable of an http cell's environment that holds a url server's
// Authorization header, for the proxy alone (see incell.Serve.ProxyEnv).
const AuthEnv = "TOOLSCORE_UPSTREAM_AUTHORIZATION"

// CellRuns is how many of the runs of the matrix's cell i this sweep has.
func (p Plan) CellRuns(i int) int {
	if p.Owner != nil {
		if p.Owner[i] == p.Shard {
			return p.Scenario.Runs
		}
		return 0
	}
	return ShardRuns(i, p.Scenario.Runs, p.Shard, p.Shards)
}

// firstRun is the first run of the matrix's cell i in this sweep (more than the scenario's runs
// when none is), and step how many runs apart the next ones are.
func (p Plan) firstRun(i int) (first, step int) {
	if p.Owner != nil {
		if p.Owner[i] == p.Shard {
			return 1, 1
		}
		return p.Scenario.Runs + 1, 1
	}
	return firstRun(i, p.Scenario.Runs, p.Shard, p.Shards), max(p.Shards, 1)
}

// ShardRuns is how many of a cell's runs fall in shard (1-based) of shards: the matrix's runs
// are numbered in order, cell by cell and run by run within a cell, and run k belongs to the
// shard k % shards + 1, so each cell's runs spread over the shards. shards 0 is the whole matrix.
func ShardRuns(cellIdx, runs, shard, shards int) int {
	if shards <= 0 {
		return runs
	}
	first := firstRun(cellIdx, runs, shard, shards)
	if first > runs {
		return 0
	}
	return (runs-first)/shards + 1
}

// firstRun is the first run (1-based) of cell cellIdx that falls in shard, or more than runs
// when none does; the next ones follow every shards runs.
func firstRun(cellIdx, runs, shard, shards int) int {
	if shards <= 0 {
		return 1
	}
	// The cell's first run is cellIdx*runs, 0-based over the whole matrix; its remainder is
	// taken without overflow, however large runs is.
	hi, lo := bits.Mul64(uint64(cellIdx), uint64(runs))
	k := int(bits.Rem64(hi, lo, uint64(shards)))
	return (shard-1-k+shards)%shards + 1
}

// PlannedRuns is how many runs a sweep of cells cells of runs runs each has in shard of shards
// (every run when shards is 0), as many as math.MaxInt when the product overflows.
func PlannedRuns(cells, runs, shard, shards int) int {
	if cells <= 0 || runs <= 0 {
		return 0
	}
	if runs > math.MaxInt/cells {
		return math.MaxInt
	}
	total := cells * runs
	if shards <= 0 {
		return total
	}
	if total < shard {
		return 0
	}
	return (total-shard)/shards + 1
}
