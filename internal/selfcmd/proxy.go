package selfcmd

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

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/fault"
	"github.com/toolscore/toolscore/internal/proc"
	"github.com/toolscore/toolscore/internal/proxy"
	"github.com/toolscore/toolscore/internal/transcript"
)

func proxyCmd(ctx context.Context, args []string) error {
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
	var pf proxy.Flags
	pf.Register(fs)
	if err := ParseFlags(fs, args); err != nil {
		return err
	}
	fail := func(format string, a ...any) error {
		err := fmt.Errorf(format, a...)
		fmt.Fprintln(os.Stderr, "toolscore proxy:", err)
		return exitcode.UsageError(err)
	}
	if !slices.Contains(fault.Names(), pf.Fault) {
		_, err := fault.New(pf.Fault, nil)
		return fail("--fault: %v", err)
	}
	f, err := fault.New(pf.Fault, json.RawMessage(pf.Options))
	if err != nil {
		return fail("--options: %v", err)
	}
	if fault.Transport(pf.Fault) && pf.Listen == "" {
		return fail("--fault %s is a fault of the HTTP exchange: it needs --listen (streamable HTTP); a stdio session has no HTTP to fault", pf.Fault)
	}
	if pf.Probability < 0 || pf.Probability > 1 {
		return fail("--probability must be between 0 and 1, got %g", pf.Probability)
	}
	if pf.Nth < 0 {
		return fail("--nth must be 0 or more, got %d", pf.Nth)
	}
	mode, err := proxy.ParseSchemaMode(pf.Schema)
	if err != nil {
		return fail("--schema: %v", err)
	}
	newest, err := proxy.ParseProtocol(pf.Protocol)
	if err != nil {
		return fail("--protocol: %v", err)
	}
	cfg := proxy.Config{Fault: f, FaultName: pf.Fault, Tool: pf.Tool, Probability: pf.Probability, Nth: pf.Nth, Seed: pf.Seed, Schema: mode, Protocol: newest}
	if outputSchema := pf.OutputSchema; outputSchema != "" {
		b, err := os.ReadFile(outputSchema)
		if err != nil {
			return fail("--output-schema: %v", err)
		}
		var obj map[string]any
		if err := json.Unmarshal(b, &obj); err != nil {
			return fail("--output-schema %s: not a JSON object: %v", outputSchema, err)
		}
		cfg.OutputSchema = b
	}
	var tee *transcript.Tee
	if pf.Tee != "" {
		tf, err := transcript.CreateSession(pf.Tee)
		if err != nil {
			return fail("--tee: %v", err)
		}
		defer tf.Close()
		tee = transcript.NewTee(tf)
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
	// The variables named were checked when the flags were parsed.
	var env []string
	for _, name := range pf.Env {
		env = append(env, name+"="+os.Getenv(name))
	}
	headers := http.Header{}
	for _, h := range pf.Header {
		name, v, _ := strings.Cut(h, "=")
		headers.Add(name, os.Getenv(v))
	}
	var code int
	if pf.Listen != "" || pf.Upstream != "" {
		hr := proxy.HTTPRun{Listen: pf.Listen, Server: proxy.Server{Command: fs.Args(), Env: env}, Path: pf.Path, Upstream: proxy.Upstream{Header: headers}}
		switch {
		case pf.Listen == "":
			return fail("--upstream needs --listen ADDR")
		case pf.Upstream != "" && len(fs.Args()) > 0:
			return fail("give --upstream URL or -- CMD, not both")
		case pf.Upstream == "" && len(fs.Args()) == 0:
			return fail("--listen needs --upstream URL or -- CMD")
		case !strings.HasPrefix(pf.Path, "/"):
			return fail("--path must start with /, got %q", pf.Path)
		case len(headers) > 0 && pf.Upstream == "":
			return fail("--header goes with --upstream")
		}
		if pf.Upstream != "" {
			u, err := url.Parse(pf.Upstream)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fail("--upstream: want an http or https URL, got %q", pf.Upstream)
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
	return exitcode.Status(code)
}
