package runner

import (
	"cmp"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/backend/incell"
	"github.com/toolscore/toolscore/internal/proxy"
	"github.com/toolscore/toolscore/internal/replay"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenario"
)

// Source is where a sweep's server comes from. Each yields, in serve, what a job's cell starts:
// the proxy's command line (around the server's command, or relaying to its URL), the server
// container beside the cell, and the variables and network they are given.
type Source string

// The sources: the four a manifest's server may be, and the recording of a previous sweep.
const (
	// SourceBuiltin is a server built into toolscore (server.builtin), the proxy starts it.
	SourceBuiltin Source = "builtin"
	// SourceCommand is a program the proxy starts (server.command).
	SourceCommand Source = "command"
	// SourceImage is a container beside the cell (server.image), reached over the loopback
	// they share.
	SourceImage Source = "image"
	// SourceURL is a streamable HTTP endpoint the proxy relays to (server.url).
	SourceURL Source = "url"
	// SourceRecording is each run's recording in a previous sweep (toolscore run --replay),
	// played by toolscore replay behind a clean proxy, whatever the server was.
	SourceRecording Source = "recording"
)

// Source is where the sweep's servers come from: the recording when it replays one, else the
// manifest's server.
func (o Options) Source() Source {
	srv := o.Scenario.Server
	switch {
	case o.Replay != nil:
		return SourceRecording
	case srv.URL != "":
		return SourceURL
	case srv.Image != "":
		return SourceImage
	case srv.Builtin != "":
		return SourceBuiltin
	}
	return SourceCommand
}

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

// serve is what job j's server source yields, on the cell's transport, with self the toolscore
// binary and work the run's directory where it runs: the one place that says how each source is
// started. The built-in ledger on http serves as a server of the cell's protocol generation
// does: sessionless under 2026-07-28 (the go-sdk serves that revision only so), with
// Mcp-Session-Id sessions otherwise, as 2025-era servers keep them.
func (o Options) serve(j Job, self, work string) served {
	srv := o.Scenario.Server
	http := j.Cell.Transport == scenario.TransportHTTP
	var s served
	if m := j.Cell.Client.Model; m != nil {
		s.network = cmp.Or(m.Network, "bridge")
	}
	src := o.Source()
	if src == SourceRecording {
		// The recording stands in for the server, whatever it was: no server container, none
		// of its variables, and on http none of its network.
		s.proxy = o.replayFlags(work)
		recording := filepath.Join(work, recordingFile)
		s.proxy.Command = []string{self, "replay", recording}
		if http {
			s.proxy.Listen, s.proxy.Path, s.network = "127.0.0.1:0", replay.HTTPPath, ""
			s.proxy.Command = []string{self, "replay", "--listen", "127.0.0.1:" + scenario.PortPlaceholder, recording}
		}
		return s
	}
	s.proxy = proxyFlags(j, filepath.Join(work, record.TeeFile))
	if tool := j.Cell.Tool; len(tool.OutputSchema) > 0 {
		s.proxy.OutputSchema = filepath.Join(work, outputSchemaFile(tool))
	}
	if src != SourceImage {
		// An image server's variables go to its container; every other server is given them
		// by the proxy, which passes on only the variables named.
		for _, kv := range o.ServerEnv {
			name, _, _ := strings.Cut(kv, "=")
			s.proxy.Env = append(s.proxy.Env, name)
			s.env = append(s.env, kv)
			s.proxyEnv = append(s.proxyEnv, name)
		}
	}
	switch src {
	case SourceBuiltin:
		s.proxy.Command = []string{self, srv.Builtin}
		if http {
			if j.Cell.Protocol == "2026-07-28" {
				s.proxy.Command = append(s.proxy.Command, "--stateless")
			}
			s.proxy.Command = append(s.proxy.Command, "--http", "127.0.0.1:"+scenario.PortPlaceholder)
		}
	case SourceCommand:
		s.proxy.Command = srv.Command
		if o.ServerCache != "" {
			for _, kv := range ServerCacheEnv(o.ServerCache) {
				name, _, _ := strings.Cut(kv, "=")
				s.proxy.Env = append(s.proxy.Env, name)
				s.env = append(s.env, kv)
				s.proxyEnv = append(s.proxyEnv, name)
			}
		}
		if http {
			s.proxy.Path = srv.HTTPPath()
		}
	case SourceImage:
		if http {
			// The server serves HTTP itself, in its container, on the loopback the cell shares.
			s.proxy.Upstream = ImageServerHTTPUpstream(srv.HTTPPath())
			s.server, s.await = imageHTTPServer(o.Scenario, o.ServerEnv), backend.ServerAddr
		} else {
			s.proxy.Command, s.server = imageServer(self, o.Scenario, o.ServerEnv)
		}
	case SourceURL:
		s.proxy.Upstream, s.network = srv.URL, srv.Network
		if srv.AuthEnv != "" {
			s.proxy.Header = []string{"Authorization=" + AuthEnv}
		}
	}
	if http {
		s.proxy.Listen = "127.0.0.1:0"
		if o.Auth != "" {
			s.env = append(s.env, AuthEnv+"="+o.Auth)
			s.proxyEnv = append(s.proxyEnv, AuthEnv)
		}
	}
	return s
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
