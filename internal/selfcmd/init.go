package selfcmd

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/runenv"
	"github.com/toolscore/toolscore/internal/runner"
	"github.com/toolscore/toolscore/scenario"
)

// initTimeout bounds how long init waits for a server to start and list its tools.
const initTimeout = 60 * time.Second

func initCmd(ctx context.Context, args []string) error {
	fls := flag.NewFlagSet("init", flag.ContinueOnError)
	fls.Usage = func() {
		fmt.Fprintln(fls.Output(), "usage: toolscore init [--out FILE] [--tool NAME | --tools NAME,...] [--env NAME]... (--builtin ledger | --url URL [--header Authorization=ENVVAR] | [--image NAME[:TAG]] -- CMD [ARGS...])\n\nStarts the MCP server (in a container of its image, beside a cell, as a run would; or connects to it by URL), lists its tools and writes a commented starter manifest: the tool to\ncall with its required arguments (every tool of a server that lists at most "+strconv.Itoa(scenario.StarterMaxTools)+", else one,\nthe others listed in comments), the default faults, schema modes and clients. Values it\ncannot fill in say "+scenario.Placeholder+", and the manifest does not run until they are filled.\n\nflags:")
		fls.PrintDefaults()
	}
	out := fls.String("out", "scenario.yaml", "where to write the manifest (- for stdout); an existing file is never overwritten")
	var st scenario.Starter
	fls.StringVar(&st.Tool, "tool", "", "the tool to call (default: the first that publishes an output schema, else the first)")
	fls.Func("tools", "the tools to call, comma-separated `NAME,...`, each a dimension of the matrix (default: every tool of a server that lists at most "+strconv.Itoa(scenario.StarterMaxTools)+")", func(s string) error {
		for _, n := range strings.Split(s, ",") {
			if n = strings.TrimSpace(n); n != "" {
				st.Calls = append(st.Calls, n)
			}
		}
		return nil
	})
	var pass []string
	fls.Func("env", "give the server the variable `NAME` of toolscore's environment (repeatable); the manifest reads it at run time (server.env NAME: {from_env: NAME}), its value never written", func(name string) error {
		if !scenario.EnvName(name) {
			return fmt.Errorf("%q is not an environment variable name", name)
		}
		if st.Server.Env == nil {
			st.Server.Env = map[string]scenario.EnvValue{}
		}
		st.Server.Env[name] = scenario.EnvValue{FromEnv: name}
		pass = append(pass, name)
		return nil
	})
	builtin := fls.String("builtin", "", "a server built into toolscore (ledger) instead of CMD")
	endpoint := fls.String("url", "", "the streamable HTTP endpoint `URL` of a running server instead of CMD")
	image := fls.String("image", "", "run CMD in a container of the image `NAME[:TAG]`, as a run of a server image does (docker backend)")
	listJSON := fls.Bool("json", false, "print the server's name and tools as JSON, not a manifest (what init --image reads from its cell)")
	var header http.Header
	fls.Func("header", "with --url: send the header `Authorization=ENVVAR`, its value the variable ENVVAR's, which the manifest reads it from too (auth_env)", func(s string) error {
		name, env, ok := strings.Cut(s, "=")
		switch {
		case !ok || env == "":
			return fmt.Errorf("want Authorization=ENVVAR, got %q", s)
		case !strings.EqualFold(name, "Authorization"):
			return fmt.Errorf("%s: a manifest sends the Authorization header alone (auth_env), so a run could not send %s", name, name)
		}
		header = http.Header{"Authorization": {""}}
		st.Server.AuthEnv = env
		return nil
	})
	if err := ParseFlags(fls, args); err != nil {
		return err
	}
	fail := func(format string, a ...any) error {
		err := fmt.Errorf(format, a...)
		fmt.Fprintln(os.Stderr, "toolscore init:", err)
		return exitcode.UsageError(err)
	}
	// A variable not set is no misuse of the flags: one line says which, not the whole usage.
	for _, name := range pass {
		if _, set := os.LookupEnv(name); !set {
			return fail("--env %s: %s is not set in toolscore's environment, where the server would get it from (export it first)", name, name)
		}
	}
	if header != nil {
		v, set := os.LookupEnv(st.Server.AuthEnv)
		if !set || v == "" {
			return fail("--header Authorization=%s: %s is not set in toolscore's environment (export it first)", st.Server.AuthEnv, st.Server.AuthEnv)
		}
		header.Set("Authorization", v)
	}
	var command []string
	switch {
	case *builtin != "" && fls.NArg() > 0, *endpoint != "" && (*builtin != "" || fls.NArg() > 0):
		return fail("name one server: --builtin, --url or a server command after --")
	case header != nil && *endpoint == "":
		return fail("--header goes with --url")
	case len(pass) > 0 && *endpoint != "":
		return fail("--env gives a variable to a server toolscore starts; a url server runs elsewhere (--header sends it Authorization)")
	case st.Tool != "" && len(st.Calls) > 0:
		return fail("--tool or --tools, not both")
	case *image != "" && (*builtin != "" || *endpoint != "" || fls.NArg() == 0):
		return fail("--image needs the server's command after -- (the image's entrypoint is not read), and no --builtin or --url")
	case *endpoint != "":
		u, err := url.Parse(*endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			return fail("--url: want the server's streamable HTTP endpoint, an http or https URL without credentials, got %q", *endpoint)
		}
		st.Server.URL, st.Server.Network = *endpoint, "bridge"
		if ip := net.ParseIP(u.Hostname()); u.Hostname() == "localhost" || ip != nil && ip.IsLoopback() {
			// A cell reaches this machine's loopback only on the host's network.
			st.Server.Network = "host"
		}
	case *builtin == "ledger":
		self, err := os.Executable()
		if err != nil {
			return fail("finding toolscore's own binary: %v", err)
		}
		command, st.Server.Builtin, st.Name = []string{self, "ledger"}, "ledger", "ledger"
	case *builtin != "":
		return fail("--builtin: no server %q is built in (ledger is)", *builtin)
	case fls.NArg() == 0:
		return fail("name the server: --builtin ledger, or -- CMD [ARGS...] (the command that starts it on stdio)")
	default:
		command = fls.Args()
		st.Server.Command = command
	}
	if *out != "-" && !*listJSON {
		if _, err := os.Stat(*out); err == nil {
			return fail("%s exists; init never overwrites a manifest (give --out another file)", *out)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fail("%s: %v", *out, err)
		}
	}
	// Building the layered image may take longer than listing: the cell has a timeout of its own.
	lctx, cancel := context.WithTimeout(ctx, initTimeout)
	defer cancel()
	var listed listing
	var err error
	switch {
	case *image != "":
		st.Server.Image = *image
		listed, err = listInImage(ctx, *image, command, passed(pass))
	case st.Server.Kind() == scenario.ServerURL:
		listed, err = listTools(lctx, &mcp.StreamableClientTransport{Endpoint: st.Server.URL, HTTPClient: &http.Client{Transport: initHeaders(header)}, MaxRetries: -1, DisableStandaloneSSE: true})
		err = wrapIf(err, "the server at %s: %w", st.Server.URL)
	default:
		listed, err = listTools(lctx, commandTransport(lctx, command, passed(pass)))
		err = wrapIf(err, "the server %q: %w", command)
		if err != nil && !*listJSON {
			// Its stderr, above, says why; a variable it needs is the usual reason.
			err = fmt.Errorf("%w\nif the server needs a variable of your environment, name it: toolscore init --env NAME (the manifest then reads it with from_env)", err)
		}
	}
	if err != nil {
		return fail("%v", err)
	}
	if *listJSON {
		if err := json.NewEncoder(os.Stdout).Encode(listed); err != nil {
			return fail("%v", err)
		}
		return nil
	}
	tools, server := listed.Tools, listed.Server
	st.Tools = tools
	if st.Name == "" {
		st.Name = server
	}
	text, err := st.Write()
	if err != nil {
		return fail("%v", err)
	}
	if *out == "-" {
		_, _ = os.Stdout.Write(text)
		return nil
	}
	// O_EXCL: a file made since the check above is not overwritten either.
	f, err := os.OpenFile(*out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err == nil {
		_, err = f.Write(text)
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		return fail("writing %s: %v", *out, err)
	}
	fmt.Fprintf(os.Stderr, "toolscore init: wrote %s (%d tools listed); fill in every %s, then: toolscore run %s\n", *out, len(tools), scenario.Placeholder, *out)
	return nil
}

// passed is NAME=value of each variable --env names, from toolscore's environment.
func passed(names []string) []string {
	var env []string
	for _, n := range names {
		if v, ok := os.LookupEnv(n); ok {
			env = append(env, n+"="+v)
		}
	}
	return env
}

// commandTransport starts the server command on stdio, as a run would: with the run's
// allowlisted environment and the variables of env only.
func commandTransport(ctx context.Context, command, env []string) mcp.Transport {
	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	cmd.Env = append(runenv.Allowed(os.Environ()), env...)
	cmd.Stderr = os.Stderr
	return &mcp.CommandTransport{Command: cmd}
}

// initHeaders adds its header to every request init sends a url server.
type initHeaders http.Header

func (h initHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h) > 0 {
		r = r.Clone(r.Context())
		for k, v := range h {
			r.Header[k] = v
		}
	}
	return http.DefaultTransport.RoundTrip(r)
}

// listing is what init learns of a server: its name and its tools.
type listing struct {
	Server string                 `json:"server"`
	Tools  []scenario.StarterTool `json:"tools"`
}

func wrapIf(err error, format string, what any) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf(format, what, err)
}

// listInImage lists the tools of a server that runs in a container of image, as a run reaches
// it: the cell beside it runs init --json against the bridge, and its output is read back.
func listInImage(ctx context.Context, image string, command, env []string) (listing, error) {
	self, err := os.Executable()
	if err != nil {
		return listing{}, fmt.Errorf("finding toolscore's own binary: %w", err)
	}
	inner := []string{backend.CellBinary, "init", "--json", "--", backend.CellBinary, "connect", backend.ServerAddr}
	out, err := runner.BesideImageServer(ctx, self, image, command, env, inner, initTimeout, os.Stderr)
	if err != nil {
		return listing{}, fmt.Errorf("the server %q in %s: %w", command, image, err)
	}
	var l listing
	if err := json.Unmarshal(out, &l); err != nil {
		return listing{}, fmt.Errorf("the server %q in %s: reading the tools its cell listed: %w", command, image, err)
	}
	return l, nil
}

// listTools connects to the server, initializes a session and lists its tools, every page of them.
func listTools(ctx context.Context, transport mcp.Transport) (listing, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "toolscore-init", Version: Version}, nil)
	cs, err := c.Connect(ctx, transport, nil)
	if err != nil {
		return listing{}, fmt.Errorf("connecting to the server and initializing a session: %w", err)
	}
	defer cs.Close()
	name := ""
	if r := cs.InitializeResult(); r != nil && r.ServerInfo != nil {
		name = r.ServerInfo.Name
	}
	var tools []scenario.StarterTool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return listing{}, fmt.Errorf("listing the server's tools: %w", err)
		}
		st := scenario.StarterTool{Name: t.Name, Description: t.Description}
		st.InputSchema, st.OutputSchema = asObject(t.InputSchema), asObject(t.OutputSchema)
		tools = append(tools, st)
	}
	return listing{name, tools}, nil
}

// asObject turns a schema as the SDK holds it (any) into a plain JSON object.
func asObject(schema any) map[string]any {
	if schema == nil {
		return nil
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return nil
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}
