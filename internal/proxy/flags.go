package proxy

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/toolscore/toolscore/fault"
)

// Flags are toolscore proxy's command-line flags, typed. The runner writes a proxy's command
// line with Args and toolscore proxy reads it with Register (ParseArgs for a reader without a
// usage text of its own), so the two ends of the command line cannot drift apart.
//
// A Flags holds what the proxy runs with: start from DefaultFlags, whose values are the flags'
// defaults, and set what differs.
type Flags struct {
	// Listen relays streamable HTTP on this address instead of stdio.
	Listen string
	// Fault, Tool, Schema and Seed say what the run is, so Args always writes them.
	Fault  string
	Tool   string
	Schema string
	Seed   uint64
	// Tee is where the transcript is written.
	Tee         string
	Probability float64
	Nth         int
	// Options are the fault's own settings, a JSON object.
	Options string
	// OutputSchema is a JSON file with the outputSchema to publish when the server declares none.
	OutputSchema string
	Protocol     string
	// Env names the proxy's variables passed on to the server.
	Env []string
	// Upstream is the streamable HTTP endpoint relayed to, with Listen (no Command).
	Upstream string
	// Header is NAME=ENVVAR: a header sent upstream, its value the proxy's variable ENVVAR.
	Header []string
	// Path is the MCP endpoint path of a Command serving HTTP.
	Path string
	// Command is the server the proxy starts, after --.
	Command []string
}

// DefaultFlags are the flags' defaults, what toolscore proxy runs with when given none.
func DefaultFlags() Flags {
	return Flags{Fault: "clean", Schema: string(Hidden), Seed: 1, Probability: 1, Protocol: string(AsIsProtocol), Path: "/mcp"}
}

// Args is the command line of toolscore proxy that runs with f (the words after "proxy"): the
// fault, tool, schema and seed always, every other flag that is not its default, then -- and
// the server's command.
func (f Flags) Args() []string {
	d := DefaultFlags()
	var a []string
	add := func(name, v string) { a = append(a, "--"+name, v) }
	if f.Listen != d.Listen {
		add("listen", f.Listen)
	}
	add("fault", f.Fault)
	add("tool", f.Tool)
	add("schema", f.Schema)
	add("seed", strconv.FormatUint(f.Seed, 10))
	if f.Tee != d.Tee {
		add("tee", f.Tee)
	}
	if f.Probability != d.Probability {
		add("probability", strconv.FormatFloat(f.Probability, 'g', -1, 64))
	}
	if f.Nth != d.Nth {
		add("nth", strconv.Itoa(f.Nth))
	}
	if f.Options != d.Options {
		add("options", f.Options)
	}
	if f.OutputSchema != d.OutputSchema {
		add("output-schema", f.OutputSchema)
	}
	if f.Protocol != d.Protocol {
		add("protocol", f.Protocol)
	}
	for _, name := range f.Env {
		add("env", name)
	}
	if f.Upstream != d.Upstream {
		add("upstream", f.Upstream)
	}
	for _, h := range f.Header {
		add("header", h)
	}
	if f.Path != d.Path {
		add("path", f.Path)
	}
	if len(f.Command) > 0 {
		a = append(append(a, "--"), f.Command...)
	}
	return a
}

// Register defines toolscore proxy's flags on fs, each read into f when fs parses (Command
// aside: it is fs.Args()). The variables --env and --header name must be set, as the proxy
// reads their values.
func (f *Flags) Register(fs *flag.FlagSet) {
	d := DefaultFlags()
	fs.StringVar(&f.Fault, "fault", d.Fault, "the fault to apply: "+fmt.Sprint(fault.Names()))
	fs.StringVar(&f.Tool, "tool", d.Tool, "the target tool (default: every tool)")
	fs.Float64Var(&f.Probability, "probability", d.Probability, "the chance a matching call is faulted, 0..1")
	fs.IntVar(&f.Nth, "nth", d.Nth, "fault only the N-th matching call (0: every one)")
	fs.Uint64Var(&f.Seed, "seed", d.Seed, "decides which calls fire and every value a fault makes up")
	fs.StringVar(&f.Schema, "schema", d.Schema, "what to do to outputSchema in tools/list: hidden, published or as-is")
	fs.StringVar(&f.Protocol, "protocol", d.Protocol, "the newest MCP revision the server shows the client: as-is, "+strings.Join(Revisions, ", "))
	fs.StringVar(&f.OutputSchema, "output-schema", d.OutputSchema, "a JSON file with the outputSchema to publish when the server declares none")
	fs.StringVar(&f.Options, "options", d.Options, "the fault's own settings as a JSON `object`, e.g. {\"latency\":\"300ms\"}")
	fs.StringVar(&f.Tee, "tee", d.Tee, "write the transcript here, one JSON line per message (a later session given the same path writes beside it: tee.2.jsonl, ...)")
	fs.StringVar(&f.Listen, "listen", d.Listen, "relay streamable HTTP, listening on `ADDR`, instead of stdio")
	fs.StringVar(&f.Upstream, "upstream", d.Upstream, "with --listen: relay to the streamable HTTP endpoint `URL` (no CMD)")
	fs.StringVar(&f.Path, "path", d.Path, "with --listen and CMD: the server's MCP endpoint path")
	fs.Func("header", "with --upstream: add the header `NAME=ENVVAR` upstream, its value the proxy's variable ENVVAR (repeatable), masked in the transcript", func(s string) error {
		name, v, ok := strings.Cut(s, "=")
		if !ok || name == "" || v == "" {
			return fmt.Errorf("want NAME=ENVVAR, got %q", s)
		}
		if _, set := os.LookupEnv(v); !set {
			return fmt.Errorf("%s is not set", v)
		}
		f.Header = append(f.Header, s)
		return nil
	})
	fs.Func("env", "pass the proxy's variable `NAME` on to the server (repeatable); the server sees only these, PATH, HOME, TMPDIR and the locale", func(name string) error {
		if _, ok := os.LookupEnv(name); !ok {
			return fmt.Errorf("%s is not set", name)
		}
		f.Env = append(f.Env, name)
		return nil
	})
}

// ParseArgs reads toolscore proxy's command line (the words after "proxy"), as toolscore
// proxy does.
func ParseArgs(args []string) (Flags, error) {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var f Flags
	f.Register(fs)
	if err := fs.Parse(args); err != nil {
		return Flags{}, err
	}
	if fs.NArg() > 0 {
		f.Command = fs.Args()
	}
	return f, nil
}
