package runner

import (
	"cmp"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/backend/incell"
	"github.com/toolscore/toolscore/internal/proxy"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenario"
)

// Source is where a sweep's server comes from: a kind of the manifest's server
// (scenario.ServerKind), or the recording of a previous sweep. Each is a serverSource of its
// own, in a file of its own (source_*.go), registered under its name as faults are.
type Source string

// serverSource is one kind of server: what a cell starts of it, how the sweep checks it before
// any run, what of it keys the folder its package managers keep, and whether a cell of it can be
// taken from the cell cache.
type serverSource interface {
	// serve sets in s what job j's cell starts of the server, after the proxy's flags are set
	// (on s.proxy), with self the toolscore binary and work the run's directory where it runs.
	serve(o Options, j Job, self, work string, s *served)
	// check makes sure, before any run, that the server can be reached where the runs will
	// reach it: setup says it cannot (a setup error, exit 2); otherwise err means the check
	// itself could not run.
	check(ctx context.Context, c ServerCheck) (setup bool, err error)
	// fingerprint is what of the manifest's server keys the folder its package managers share
	// across runs and sweeps (ServerCache); nil for a server that keeps none.
	fingerprint(srv scenario.Server) []any
	// uncacheable says why a cell of this server is never taken from the cell cache (its
	// answers cannot be checked against the live server); "" when it can be.
	uncacheable() string
	// preflighted says whether the preflight's clean stdio proxy can start the server to list
	// its tools; the runs find out about those it cannot.
	preflighted() bool
}

// sources are the server sources by name, each registered by its file.
var sources = map[Source]serverSource{}

// registerSource adds src under name; a name registered twice is a programming error.
func registerSource(name Source, src serverSource) {
	if _, dup := sources[name]; dup {
		panic("runner: server source registered twice: " + string(name))
	}
	sources[name] = src
}

// Source is where the sweep's servers come from: the recording when it replays one, else the
// kind of the manifest's server.
func (o Options) Source() Source {
	if o.Replay != nil {
		return SourceRecording
	}
	return Source(o.Scenario.Server.Kind())
}

// source is the serverSource the sweep's servers come from.
func (o Options) source() serverSource { return sources[o.Source()] }

// served is what a job's server source yields for its cell to start.
type served struct {
	// proxy is the proxy's flags: its Command the server it starts, or its Upstream the URL it
	// relays to.
	proxy proxy.Flags
	// server is the container started beside the cell, if any.
	server *backend.ServerSpec
	// await is, on http, the address the cell waits on before it starts the proxy
	// (incell.Serve.Await).
	await string
	// env are the server's variables (and a url server's Authorization), carried in the
	// adapter's environment, never on a command line; proxyEnv names those the proxy passes on
	// to the server or upstream.
	env, proxyEnv []string
	network       string
}

// pass has the proxy pass the variables env on to the server it starts or relays to: they are
// carried in the adapter's environment, and the proxy passes on only those it is told.
func (s *served) pass(env []string) {
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		s.proxy.Env = append(s.proxy.Env, name)
		s.env = append(s.env, kv)
		s.proxyEnv = append(s.proxyEnv, name)
	}
}

// serve is what job j's server source yields, on the cell's transport, with self the toolscore
// binary and work the run's directory where it runs: the proxy's flags for the cell, then what
// the source adds (serverSource.serve), then on http where the proxy listens and the url
// server's Authorization.
func (o Options) serve(j Job, self, work string) served {
	var s served
	if m := j.Cell.Client.Model; m != nil {
		s.network = cmp.Or(m.Network, "bridge")
	}
	if o.Replay == nil {
		s.proxy = proxyFlags(j, filepath.Join(work, record.TeeFile))
		if tool := j.Cell.Tool; len(tool.OutputSchema) > 0 {
			s.proxy.OutputSchema = filepath.Join(work, outputSchemaFile(tool))
		}
	}
	o.source().serve(o, j, self, work, &s)
	if o.Replay == nil && j.Cell.Transport == scenario.TransportHTTP {
		s.proxy.Listen = "127.0.0.1:0"
		if o.Auth != "" {
			s.env = append(s.env, AuthEnv+"="+o.Auth)
			s.proxyEnv = append(s.proxyEnv, AuthEnv)
		}
	}
	return s
}

// ServerCheck is what a server source's pre-run check is given: the chosen backend and what it
// provisioned, and the checks made so far (each image is checked once whatever the calls).
type ServerCheck struct {
	Backend  Backend
	Scenario *scenario.Scenario
	// Auth is a url server's Authorization value.
	Auth string
	// Unavailable are the clients that cannot run here, with why.
	Unavailable map[string]string
	// Made says whether a client's install (on docker its cell image) is made; Image is its
	// cell image, "" on a backend that runs none.
	Made  func(id string) bool
	Image func(id string) string
	// CheckImage starts an image server once as its runs will, with env its variables and
	// secrets its values to mask: setup when it exits before it listens.
	CheckImage func(ctx context.Context, env, secrets []string) (setup bool, err error)
	// Checked holds the checks done, by image (or the source's own name).
	Checked map[string]bool
}

// PrecheckServer runs the pre-run check of the sweep's server source (serverSource.check).
func (o Options) PrecheckServer(ctx context.Context, c ServerCheck) (setup bool, err error) {
	return o.source().check(ctx, c)
}

// serveCommand is the command of an http cell: toolscore cell, which serves the proxy of s on
// loopback (printing its endpoint's URL as its first stdout line) before it starts the adapter.
func serveCommand(self string, s served, adapter []string) []string {
	b, _ := json.Marshal(incell.Serve{Command: proxyCommand(self, s.proxy), ProxyEnv: s.proxyEnv, Await: s.await})
	return append([]string{self, "cell", "--serve", string(b), "--"}, adapter...)
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
