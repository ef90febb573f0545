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
	"github.com/toolscore/toolscore/runner/record"
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
	return filepath.Join(record.RunsDir, slug(j.Cell.Key()), "run-"+strconv.Itoa(j.Run))
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
	return "output-schema-" + slug(t.Name) + ".json"
}

// Spec is what job j runs on the sweep's backend with dir its directory on this machine: the
// adapter's command and environment, and the request they carry (the proxy wrapped around the
// server, the tool and its arguments, the agent's prompt and model). On the http transport the
// command is toolscore cell, which serves the proxy on loopback before it starts the adapter.
func (o Options) Spec(j Job, dir string) (backend.Spec, client.Request) {
	sc := o.Scenario
	self, work := o.Backend.Self(), o.Backend.WorkDir(dir)
	tool := j.Cell.Tool
	flags := []string{"--fault", j.Cell.Fault.Name, "--tool", tool.Name, "--schema", string(j.Cell.Schema),
		"--seed", strconv.FormatUint(j.Seed, 10), "--tee", filepath.Join(work, record.TeeFile)}
	flags = append(flags, faultFlags(j.Cell.Fault)...)
	if len(tool.OutputSchema) > 0 {
		flags = append(flags, "--output-schema", filepath.Join(work, outputSchemaFile(tool)))
	}
	if p := j.Cell.Protocol; p != "" && p != scenario.ProtocolAsIs {
		flags = append(flags, "--protocol", string(p))
	}
	var env, proxyEnv []string
	if sc.Server.Image == "" {
		// The values travel in the adapter's environment, never on a command line; the proxy
		// passes on only the variables named.
		for _, kv := range o.ServerEnv {
			name, _, _ := strings.Cut(kv, "=")
			flags = append(flags, "--env", name)
			env = append(env, kv)
			proxyEnv = append(proxyEnv, name)
		}
	}
	req := client.Request{Tool: tool.Name, Arguments: tool.Arguments}
	if client.IsAgent(j.Cell.Client.Name) {
		req.Prompt = tool.Prompt
	}
	network := ""
	if m := j.Cell.Client.Model; m != nil {
		req.Model, req.ModelURL, req.ModelKey = m.Name, m.URL, os.Getenv(ModelKeyEnv(j.Cell.Client))
		network = cmp.Or(m.Network, "bridge")
	}
	command := o.adapterCommand(self, j.Cell.Client)
	var server *backend.ServerSpec
	if j.Cell.Transport == scenario.TransportHTTP {
		if o.Auth != "" {
			env = append(env, AuthEnv+"="+o.Auth)
			proxyEnv = append(proxyEnv, AuthEnv)
		}
		s := backend.Serve{Command: HTTPProxyCommand(self, flags, sc.Server, j.Cell.Protocol), ProxyEnv: proxyEnv}
		if sc.Server.Image != "" {
			server, s.Await = imageHTTPServer(sc, o.ServerEnv), backend.ServerAddr
		}
		if o.Replay != nil {
			// The recording stands in for the server, whatever it was: no server container.
			s, env, network, server = backend.Serve{Command: o.replayHTTPProxy(self, work)}, nil, "", nil
		}
		serve, _ := json.Marshal(s)
		command = append([]string{self, "cell", "--serve", string(serve), "--"}, command...)
		if sc.Server.URL != "" && o.Replay == nil {
			network = sc.Server.Network
		}
	} else {
		req.Server = append(append([]string{self, "proxy"}, flags...), "--")
		switch {
		case sc.Server.Builtin != "":
			req.Server = append(req.Server, self, sc.Server.Builtin)
		case sc.Server.Image != "":
			var connect []string
			connect, server = imageServer(self, sc, o.ServerEnv)
			req.Server = append(req.Server, connect...)
		default:
			req.Server = append(req.Server, sc.Server.Command...)
		}
		if o.Replay != nil {
			req.Server, env, server = o.replayProxy(self, work), nil, nil
		}
	}
	return backend.Spec{
		Dir:     dir,
		Client:  j.Cell.Client.ID(),
		Cell:    j.Cell.Key(),
		Run:     j.Run,
		Command: command,
		Env:     append(env, req.Env()...),
		Timeout: sc.Timeout.Std(),
		Network: network,
		Server:  server,
	}, req
}

// AuthEnv is the variable of an http cell's environment that holds a url server's
// Authorization header, for the proxy alone (see backend.Serve.ProxyEnv).
const AuthEnv = "TOOLSCORE_UPSTREAM_AUTHORIZATION"

// HTTPProxyCommand is the command an http cell starts first, with flags the proxy's fault,
// schema, protocol, seed, tee and --env flags (as on stdio): it serves the server over
// streamable HTTP on loopback and prints its endpoint's URL as its first stdout line. The one
// place that says how the proxy is started on HTTP. The built-in ledger serves as a server of
// the cell's protocol generation does: sessionless under 2026-07-28 (the go-sdk serves that
// revision only so), with Mcp-Session-Id sessions otherwise, as 2025-era servers keep them.
func HTTPProxyCommand(self string, flags []string, srv scenario.Server, p scenario.Protocol) []string {
	cmd := append([]string{self, "proxy", "--listen", "127.0.0.1:0"}, flags...)
	switch {
	case srv.URL != "":
		cmd = append(cmd, "--upstream", srv.URL)
		if srv.AuthEnv != "" {
			cmd = append(cmd, "--header", "Authorization="+AuthEnv)
		}
		return cmd
	case srv.Image != "":
		// The server serves HTTP itself, in its container, on the loopback the cell shares.
		return append(cmd, "--upstream", ImageServerHTTPUpstream(srv.HTTPPath()))
	case srv.Builtin != "":
		cmd = append(cmd, "--", self, srv.Builtin)
		if p == "2026-07-28" {
			cmd = append(cmd, "--stateless")
		}
		return append(cmd, "--http", "127.0.0.1:"+scenario.PortPlaceholder)
	}
	return append(append(cmd, "--path", srv.HTTPPath(), "--"), srv.Command...)
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
