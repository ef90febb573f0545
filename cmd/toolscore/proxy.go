package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/toolscore/toolscore/runner/exitcode"
	"github.com/toolscore/toolscore/runner/fault"
	"github.com/toolscore/toolscore/runner/proc"
	"github.com/toolscore/toolscore/runner/proxy"
)

func proxyCmd(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: toolscore proxy [flags] -- CMD [ARGS...]
       toolscore proxy --listen ADDR [flags] (--upstream URL | [--path /mcp] -- CMD [ARGS...])

Starts CMD, relays MCP stdio both ways, and applies one fault to the target tool's results.
With --listen it relays streamable HTTP instead: to --upstream URL, or to CMD, started with
the text {port} in its arguments replaced by a free loopback port, at http://127.0.0.1:PORT
and --path. It prints its own endpoint URL on stdout once it listens (ADDR 127.0.0.1:0 picks
a free port) and runs until SIGTERM or CMD's exit.

flags:`)
		fs.PrintDefaults()
	}
	faultName := fs.String("fault", "clean", "the fault to apply: "+fmt.Sprint(fault.Names()))
	tool := fs.String("tool", "", "the target tool (default: every tool)")
	probability := fs.Float64("probability", 1, "the chance a matching call is faulted, 0..1")
	nth := fs.Int("nth", 0, "fault only the N-th matching call (0: every one)")
	seed := fs.Uint64("seed", 1, "decides which calls fire and every value a fault makes up")
	schema := fs.String("schema", "hidden", "what to do to outputSchema in tools/list: hidden, published or as-is")
	protocol := fs.String("protocol", "as-is", "the newest MCP revision the server shows the client: as-is, "+strings.Join(proxy.Revisions, ", "))
	outputSchema := fs.String("output-schema", "", "a JSON file with the outputSchema to publish when the server declares none")
	options := fs.String("options", "", "the fault's own settings as a JSON `object`, e.g. {\"latency\":\"300ms\"}")
	teePath := fs.String("tee", "", "write the transcript here, one JSON line per message")
	listen := fs.String("listen", "", "relay streamable HTTP, listening on `ADDR`, instead of stdio")
	upstream := fs.String("upstream", "", "with --listen: relay to the streamable HTTP endpoint `URL` (no CMD)")
	path := fs.String("path", "/mcp", "with --listen and CMD: the server's MCP endpoint path")
	headers := http.Header{}
	fs.Func("header", "with --upstream: add the header `NAME=ENVVAR` upstream, its value the proxy's variable ENVVAR (repeatable), masked in the transcript", func(s string) error {
		name, v, ok := strings.Cut(s, "=")
		if !ok || name == "" || v == "" {
			return fmt.Errorf("want NAME=ENVVAR, got %q", s)
		}
		val, set := os.LookupEnv(v)
		if !set {
			return fmt.Errorf("%s is not set", v)
		}
		headers.Add(name, val)
		return nil
	})
	var env []string
	fs.Func("env", "pass the proxy's variable `NAME` on to the server (repeatable); the server sees only these, PATH, HOME, TMPDIR and the locale", func(name string) error {
		v, ok := os.LookupEnv(name)
		if !ok {
			return fmt.Errorf("%s is not set", name)
		}
		env = append(env, name+"="+v)
		return nil
	})
	if err := parseFlags(fs, args); err != nil {
		return exitcode.Of(err)
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "toolscore proxy: "+format+"\n", a...)
		return 2
	}
	if !slices.Contains(fault.Names(), *faultName) {
		_, err := fault.New(*faultName, nil)
		return fail("--fault: %v", err)
	}
	f, err := fault.New(*faultName, json.RawMessage(*options))
	if err != nil {
		return fail("--options: %v", err)
	}
	if fault.Transport(*faultName) && *listen == "" {
		return fail("--fault %s is a fault of the HTTP exchange: it needs --listen (streamable HTTP); a stdio session has no HTTP to fault", *faultName)
	}
	if *probability < 0 || *probability > 1 {
		return fail("--probability must be between 0 and 1, got %g", *probability)
	}
	if *nth < 0 {
		return fail("--nth must be 0 or more, got %d", *nth)
	}
	mode, err := proxy.ParseSchemaMode(*schema)
	if err != nil {
		return fail("--schema: %v", err)
	}
	newest, err := proxy.ParseProtocol(*protocol)
	if err != nil {
		return fail("--protocol: %v", err)
	}
	cfg := proxy.Config{Fault: f, FaultName: *faultName, Tool: *tool, Probability: *probability, Nth: *nth, Seed: *seed, Schema: mode, Protocol: newest}
	if *outputSchema != "" {
		b, err := os.ReadFile(*outputSchema)
		if err != nil {
			return fail("--output-schema: %v", err)
		}
		var obj map[string]any
		if err := json.Unmarshal(b, &obj); err != nil {
			return fail("--output-schema %s: not a JSON object: %v", *outputSchema, err)
		}
		cfg.OutputSchema = b
	}
	var tee *proxy.Tee
	if *teePath != "" {
		tf, err := os.Create(*teePath)
		if err != nil {
			return fail("--tee: %v", err)
		}
		defer tf.Close()
		tee = proxy.NewTee(tf)
	}
	// A client that closes its end must be a failed write, recorded, not Go's default for a
	// broken stdout: death by SIGPIPE, with the transcript cut.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	// What the server leaves running when it goes (a helper holding its stdout, one in a
	// session of its own) is given to this process, and ended with it.
	_ = proc.Subreaper()
	defer func() {
		if pids := proc.KillOrphans(); len(pids) > 0 {
			fmt.Fprintf(os.Stderr, "toolscore proxy: killed %d process(es) the server left running: pid %v\n", len(pids), pids)
		}
	}()
	var code int
	if *listen != "" || *upstream != "" {
		hr := proxy.HTTPRun{Listen: *listen, Server: proxy.Server{Command: fs.Args(), Env: env}, Path: *path, Upstream: proxy.Upstream{Header: headers}}
		switch {
		case *listen == "":
			return fail("--upstream needs --listen ADDR")
		case *upstream != "" && len(fs.Args()) > 0:
			return fail("give --upstream URL or -- CMD, not both")
		case *upstream == "" && len(fs.Args()) == 0:
			return fail("--listen needs --upstream URL or -- CMD")
		case !strings.HasPrefix(*path, "/"):
			return fail("--path must start with /, got %q", *path)
		case len(headers) > 0 && *upstream == "":
			return fail("--header goes with --upstream")
		}
		if *upstream != "" {
			u, err := url.Parse(*upstream)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fail("--upstream: want an http or https URL, got %q", *upstream)
			}
			hr.Upstream.URL = u
		}
		code, err = proxy.RunHTTP(ctx, hr, cfg, tee, os.Stdout, os.Stderr)
	} else {
		code, err = proxy.Run(ctx, proxy.Server{Command: fs.Args(), Env: env}, cfg, tee, os.Stdin, os.Stdout, os.Stderr)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolscore proxy:", err)
	}
	if err := tee.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "toolscore proxy: the transcript is incomplete:", err)
	}
	return code
}
