package runner

import (
	"cmp"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/toolscore/toolscore/runner/backend"
	"github.com/toolscore/toolscore/runner/client"
	"github.com/toolscore/toolscore/runner/scenario"
)

// Job is one run of a sweep: its cell, its number within the cell (from 1) and the seed its
// proxy draws from.
type Job struct {
	Cell scenario.Cell
	// Index is the cell's place among the sweep's counted cells (tally.Results.Cells): the
	// matrix's cells in order, those of unavailable clients left out.
	Index int
	Run   int
	Seed  uint64
}

// Dir is the run's directory, relative to the output directory.
func (j Job) Dir() string {
	return filepath.Join("runs", slug(j.Cell.Key()), "run-"+strconv.Itoa(j.Run))
}

// Jobs yields the sweep's runs in the order they start: cell by cell in the matrix's order
// (unavailable clients left out), and within a cell the runs of this shard. Each is made as it
// is asked for, never listed, so memory stays the same whatever the number of runs planned.
func (o Options) Jobs() iter.Seq[Job] {
	return func(yield func(Job) bool) {
		sc := o.Scenario
		step := max(o.Shards, 1)
		index := 0
		for i, c := range sc.Cells() {
			if _, ok := o.Unavailable[c.Client.ID()]; ok {
				continue
			}
			for r := firstRun(i, sc.Runs, o.Shard, o.Shards); r <= sc.Runs; r += step {
				if !yield(Job{Cell: c, Index: index, Run: r, Seed: runSeed(c.Fault, r)}) {
					return
				}
				if sc.Runs-r < step {
					break // the next run would be past the last (and r + step might overflow)
				}
			}
			index++
		}
	}
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
// carries them in: the manifest's output schema, when it has one.
func (o Options) WriteInputs(dir string) error {
	if len(o.Scenario.OutputSchema) == 0 {
		return nil
	}
	b, _ := json.Marshal(o.Scenario.OutputSchema)
	if err := os.WriteFile(filepath.Join(dir, outputSchemaFile), b, 0o644); err != nil {
		return fmt.Errorf("writing the output schema: %w", err)
	}
	return nil
}

// outputSchemaFile is the input file WriteInputs writes the manifest's output schema to.
const outputSchemaFile = "output-schema.json"

// Spec is what job j runs on the sweep's backend with dir its directory on this machine: the
// adapter's command and environment, and the request they carry (the proxy wrapped around the
// server, the tool and its arguments, the agent's prompt and model).
func (o Options) Spec(j Job, dir string) (backend.Spec, client.Request) {
	sc := o.Scenario
	self, work := o.Backend.Self(), o.Backend.WorkDir(dir)
	proxyCmd := []string{self, "proxy", "--fault", j.Cell.Fault.Name, "--tool", sc.Tool, "--schema", string(j.Cell.Schema),
		"--seed", strconv.FormatUint(j.Seed, 10), "--tee", filepath.Join(work, "tee.jsonl")}
	proxyCmd = append(proxyCmd, faultFlags(j.Cell.Fault)...)
	if len(sc.OutputSchema) > 0 {
		proxyCmd = append(proxyCmd, "--output-schema", filepath.Join(work, outputSchemaFile))
	}
	if p := j.Cell.Protocol; p != "" && p != scenario.ProtocolAsIs {
		proxyCmd = append(proxyCmd, "--protocol", string(p))
	}
	var env []string
	if sc.Server.Builtin == "" {
		// The values travel in the adapter's environment, never on a command line; the proxy
		// passes on only the variables named.
		for _, kv := range o.ServerEnv {
			name, _, _ := strings.Cut(kv, "=")
			proxyCmd = append(proxyCmd, "--env", name)
			env = append(env, kv)
		}
	}
	proxyCmd = append(proxyCmd, "--")
	if sc.Server.Builtin != "" {
		proxyCmd = append(proxyCmd, self, sc.Server.Builtin)
	} else {
		proxyCmd = append(proxyCmd, sc.Server.Command...)
	}
	if o.Replay != nil {
		proxyCmd, env = o.replayProxy(self, work), nil
	}
	req := client.Request{Server: proxyCmd, Tool: sc.Tool, Arguments: sc.Arguments}
	if client.IsAgent(j.Cell.Client.Name) {
		req.Prompt = sc.Prompt
	}
	network := ""
	if m := j.Cell.Client.Model; m != nil {
		req.Model, req.ModelURL, req.ModelKey = m.Name, m.URL, os.Getenv(ModelKeyEnv(j.Cell.Client))
		network = cmp.Or(m.Network, "bridge")
	}
	return backend.Spec{
		Dir:     dir,
		Client:  j.Cell.Client.ID(),
		Cell:    j.Cell.Key(),
		Run:     j.Run,
		Command: adapterCommand(self, j.Cell.Client.Name),
		Env:     append(env, req.Env()...),
		Timeout: sc.Timeout.Std(),
		Network: network,
	}, req
}

// faultFlags are the proxy's flags for the fault's settings, which follow its --tee.
func faultFlags(f scenario.Fault) []string {
	var flags []string
	if f.Probability != nil {
		flags = append(flags, "--probability", strconv.FormatFloat(*f.Probability, 'g', -1, 64))
	}
	if f.Nth > 0 {
		flags = append(flags, "--nth", strconv.Itoa(f.Nth))
	}
	if len(f.Options) > 0 {
		b, _ := json.Marshal(f.Options) // the loader checked that they marshal
		flags = append(flags, "--options", string(b))
	}
	return flags
}
