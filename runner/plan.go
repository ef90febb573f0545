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
	"github.com/toolscore/toolscore/runner/proxy"
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
	pf := proxyFlags(j, filepath.Join(work, "tee.jsonl"))
	if len(tool.OutputSchema) > 0 {
		pf.OutputSchema = filepath.Join(work, outputSchemaFile(tool))
	}
	var env, proxyEnv []string
	if sc.Server.Image == "" {
		// The values travel in the adapter's environment, never on a command line; the proxy
		// passes on only the variables named.
		for _, kv := range o.ServerEnv {
			name, _, _ := strings.Cut(kv, "=")
			pf.Env = append(pf.Env, name)
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
		s := backend.Serve{Command: HTTPProxyCommand(self, pf, sc.Server, j.Cell.Protocol), ProxyEnv: proxyEnv}
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
		switch {
		case sc.Server.Builtin != "":
			pf.Command = []string{self, sc.Server.Builtin}
		case sc.Server.Image != "":
			pf.Command, server = imageServer(self, sc, o.ServerEnv)
		default:
			pf.Command = sc.Server.Command
		}
		req.Server = proxyCommand(self, pf)
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

// HTTPProxyCommand is the command an http cell starts first, with pf the proxy's fault,
// schema, protocol, seed, tee and --env flags (as on stdio): it serves the server over
// streamable HTTP on loopback and prints its endpoint's URL as its first stdout line. The one
// place that says how the proxy is started on HTTP. The built-in ledger serves as a server of
// the cell's protocol generation does: sessionless under 2026-07-28 (the go-sdk serves that
// revision only so), with Mcp-Session-Id sessions otherwise, as 2025-era servers keep them.
func HTTPProxyCommand(self string, pf proxy.Flags, srv scenario.Server, p scenario.Protocol) []string {
	pf.Listen = "127.0.0.1:0"
	switch {
	case srv.URL != "":
		pf.Upstream = srv.URL
		if srv.AuthEnv != "" {
			pf.Header = []string{"Authorization=" + AuthEnv}
		}
	case srv.Image != "":
		// The server serves HTTP itself, in its container, on the loopback the cell shares.
		pf.Upstream = ImageServerHTTPUpstream(srv.HTTPPath())
	case srv.Builtin != "":
		pf.Command = []string{self, srv.Builtin}
		if p == "2026-07-28" {
			pf.Command = append(pf.Command, "--stateless")
		}
		pf.Command = append(pf.Command, "--http", "127.0.0.1:"+proxy.PortPlaceholder)
	default:
		pf.Path, pf.Command = srv.HTTPPath(), srv.Command
	}
	return proxyCommand(self, pf)
}

// proxyCommand is the command that starts toolscore proxy with pf.
func proxyCommand(self string, pf proxy.Flags) []string {
	return append([]string{self, "proxy"}, pf.Args()...)
}

// proxyFlags are the flags of job j's proxy, which writes its transcript to tee: the cell's
// fault with its settings, tool, schema and protocol, and the run's seed.
func proxyFlags(j Job, tee string) proxy.Flags {
	f := j.Cell.Fault
	pf := proxy.DefaultFlags()
	pf.Fault, pf.Tool, pf.Schema, pf.Seed, pf.Tee = f.Name, j.Cell.Tool.Name, string(j.Cell.Schema), j.Seed, tee
	if f.Probability != nil {
		pf.Probability = *f.Probability
	}
	pf.Nth = f.Nth
	if len(f.Options) > 0 {
		b, _ := json.Marshal(f.Options) // the loader checked that they marshal
		pf.Options = string(b)
	}
	if p := j.Cell.Protocol; p != "" && p != scenario.ProtocolAsIs {
		pf.Protocol = string(p)
	}
	return pf
}
