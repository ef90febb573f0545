package scenario

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"

	"github.com/toolscore/toolscore/record"
)

// Scenario is one manifest: a server, one tool call with its truth, and the
// matrix of faults, schema modes and clients to run it through.
type Scenario struct {
	Name         string         `yaml:"name" json:"name" jsonschema:"required" jsonschema_description:"Name of the scenario, shown in reports."`
	Server       Server         `yaml:"server" json:"server" jsonschema:"required" jsonschema_description:"The MCP server the proxy wraps."`
	Tool         string         `yaml:"tool,omitempty" json:"tool,omitempty" jsonschema:"oneof_required=tool" jsonschema_description:"Name of the tool every run calls; faults apply to its tools/call result. For several tools, write tools instead."`
	Tools        []Tool         `yaml:"tools,omitempty" json:"tools,omitempty" jsonschema:"oneof_required=tools,minItems=1" jsonschema_description:"Several tools of the server, each a dimension of the matrix with its own arguments, prompt, truth and decoy arguments; a cell's fault targets its own tool only. Instead of tool, arguments, truth and output_schema."`
	Arguments    map[string]any `yaml:"arguments,omitempty" json:"arguments,omitempty" jsonschema_description:"Arguments of the tools/call request."`
	Prompt       string         `yaml:"prompt,omitempty" json:"prompt,omitempty" jsonschema_description:"Prompt given to agent clients; SDK clients ignore it."`
	Truth        []string       `yaml:"truth,omitempty" json:"truth,omitempty" jsonschema_description:"Values a right answer contains, e.g. [\"40718.77\", \"4071877\"]; numbers are kept as written."`
	OutputSchema map[string]any `yaml:"output_schema,omitempty" json:"output_schema,omitempty" jsonschema_description:"outputSchema to publish in the published mode when the server declares none; must have type: object."`
	SideEffects  *bool          `yaml:"side_effects,omitempty" json:"side_effects,omitempty" jsonschema_description:"Whether calling the tool changes something (a payment, a write), so that a client that calls it more than once in a run is marked duplicate: true or false says so whatever the server lists; unset, the tool's MCP annotations in the tools/list answer decide (destructiveHint: true, or readOnlyHint: false, and idempotentHint not true)."`
	Volatile     []string       `yaml:"volatile,omitempty" json:"volatile,omitempty" jsonschema_description:"JSON pointers into the tool's tools/call result of fields that change on every call (a timestamp, an id the server makes up), e.g. /structuredContent/as_of: masked when the cell cache checks the live server's answers against a cached cell's, and nowhere else."`
	Faults       []Fault        `yaml:"faults" json:"faults" jsonschema:"required,minItems=1" jsonschema_description:"Faults to inject, each a name or a mapping with a name and options."`
	SchemaModes  []SchemaMode   `yaml:"schema_modes" json:"schema_modes" jsonschema:"required,minItems=1" jsonschema_description:"How tools/list shows the tool's outputSchema."`
	Protocols    []Protocol     `yaml:"protocols,omitempty" json:"protocols,omitempty" jsonschema_description:"The newest MCP protocol version the server offers, enforced by the proxy on the wire; as-is (the default) leaves the negotiation to server and client."`
	Transports   []Transport    `yaml:"transports,omitempty" json:"transports,omitempty" jsonschema_description:"How clients reach the server: stdio (the default) or http (streamable HTTP on the cell's loopback, through the proxy)."`
	Clients      []Client       `yaml:"clients" json:"clients" jsonschema:"required,minItems=1" jsonschema_description:"Clients or agents to run, each a name or a mapping with a name and a version."`
	Runs         int            `yaml:"runs,omitempty" json:"runs,omitempty" jsonschema:"minimum=1,default=3" jsonschema_description:"Runs per cell; outcomes are counted, so a few runs are a count, not a rate."`
	Timeout      Duration       `yaml:"timeout,omitempty" json:"timeout,omitempty" jsonschema_description:"How long one run may take before its outcome is hung; default 30s."`
	Parallel     int            `yaml:"parallel,omitempty" json:"parallel,omitempty" jsonschema:"minimum=1" jsonschema_description:"How many runs execute at once; unset lets the runner decide."`
	Expect       []Expect       `yaml:"expect,omitempty" json:"expect,omitempty" jsonschema_description:"Outcomes the cells must have for the check to pass."`
	Sandbox      Sandbox        `yaml:"sandbox,omitempty" json:"sandbox,omitempty" jsonschema_description:"Relaxes the hardening of docker cells; every field unset keeps the hardened default."`

	// File is the path the manifest was loaded from, kept so reports can
	// annotate its lines.
	File string `yaml:"-" json:"-"`

	// toolAt and argsAt are where the single tool's tool and arguments keys are written.
	toolAt, argsAt position
	// serverAt is where the server command's program or its url is written, for the error when
	// the sweep finds it cannot be started or reached.
	serverAt position
	// noSchema marks the single tool as having no outputSchema (SetNoSchema).
	noSchema bool
}

// Server says how to reach the MCP server under test: Builtin, Command or URL; a Command runs
// in the client's cell or, with Image, in a container of its own from that image.
type Server struct {
	Builtin string              `yaml:"builtin,omitempty" json:"builtin,omitempty" jsonschema:"oneof_required=builtin" jsonschema_description:"A server built into toolscore, e.g. ledger; it serves both transports."`
	Command []string            `yaml:"command,omitempty" json:"command,omitempty" jsonschema:"oneof_required=command,minItems=1" jsonschema_description:"Program and arguments of the server: a stdio server, or with http set one serving streamable HTTP on the port written {port} in an argument."`
	HTTP    *HTTPServer         `yaml:"http,omitempty" json:"http,omitempty" jsonschema_description:"The command serves streamable HTTP rather than stdio: on the port its {port} argument names, at this path. Its cells run on the http transport."`
	URL     string              `yaml:"url,omitempty" json:"url,omitempty" jsonschema:"oneof_required=url" jsonschema_description:"The streamable HTTP endpoint of a remote server, e.g. https://mcp.example.com/mcp. Its cells run on the http transport, and need a network."`
	AuthEnv string              `yaml:"auth_env,omitempty" json:"auth_env,omitempty" jsonschema_description:"Environment variable of the runner whose value is sent to the url server as the Authorization header (e.g. Bearer xyz); masked in every output, never given to a client."`
	Network string              `yaml:"network,omitempty" json:"network,omitempty" jsonschema_description:"Docker network of the url server's cells, so they reach it: host, bridge or a network's name. Required with url; every other cell keeps the sandbox's."`
	Env     map[string]EnvValue `yaml:"env,omitempty" json:"env,omitempty" jsonschema_description:"Variables of the command or builtin server: it sees these, PATH, HOME, TMPDIR and the locale, nothing else of the runner's environment. A value is a string, or {from_env: NAME} to pass the runner's variable NAME on (its value is masked in every output)."`
	Image   string              `yaml:"image,omitempty" json:"image,omitempty" jsonschema_description:"An image (NAME[:TAG], already on the engine or pullable by it) the command server runs in: a container of its own beside each run's cell, hardened as cells are, with no network but the loopback it shares with the cell. Needs command (the image's entrypoint is not read); with http, the command serves streamable HTTP on the port its {port} argument names. Docker backend only."`
	Install string              `yaml:"install,omitempty" json:"install,omitempty" jsonschema_description:"Shell command that installs the command server (e.g. npm install -g some-mcp-server@1.2.3), run with network at image build time on top of each client's image; the result is cached by a hash of its inputs. Docker backend only."`

	// authLine and authCol are where AuthEnv is written, for the error when it is not set.
	authLine, authCol int
}

// HTTPServer says how a command server serves streamable HTTP.
type HTTPServer struct {
	Path string `yaml:"path,omitempty" json:"path,omitempty" jsonschema:"pattern=^/" jsonschema_description:"Path of the MCP endpoint; default /mcp."`
}

// DefaultHTTPPath is where an HTTP server serves MCP unless its manifest says otherwise.
const DefaultHTTPPath = "/mcp"

// HTTPPath is the path the command server serves MCP on over HTTP.
func (s Server) HTTPPath() string {
	if s.HTTP == nil || s.HTTP.Path == "" {
		return DefaultHTTPPath
	}
	return s.HTTP.Path
}

// Auth reads the url server's Authorization value from the runner's environment, through lookup
// (os.LookupEnv); "" when the manifest names no auth_env. A variable that is not set is an
// *Error on the line of auth_env.
func (s *Scenario) Auth(lookup func(string) (string, bool)) (string, error) {
	if s.Server.AuthEnv == "" {
		return "", nil
	}
	v, ok := lookup(s.Server.AuthEnv)
	if !ok || v == "" {
		return "", &Error{File: s.File, Line: s.Server.authLine, Col: s.Server.authCol, Field: "server.auth_env",
			Msg: s.Server.AuthEnv + " is not set in toolscore's environment, where auth_env reads the Authorization header from"}
	}
	return v, nil
}

// EnvValue is one variable of server.env: a value written in the manifest, or FromEnv, the
// variable of toolscore's own environment it is read from when the sweep starts (see
// Scenario.ServerEnv): naming it is the only way a variable of the runner reaches a server.
type EnvValue struct {
	Value   string
	FromEnv string `yaml:"from_env"`

	// line and col are where FromEnv is written, for the error when it is not set.
	line, col int
}

// envOptions is EnvValue's mapping form.
type envOptions struct {
	FromEnv string `yaml:"from_env"`
}

// UnmarshalYAML accepts a value written as a scalar or as {from_env: NAME}.
func (e *EnvValue) UnmarshalYAML(unmarshal func(any) error) error {
	var opts envOptions
	err := decodeShorthand(unmarshal, &e.Value, &opts, "a string or {from_env: NAME}")
	e.FromEnv = opts.FromEnv
	return err
}

// ServerEnv is the command server's own environment, NAME=value sorted by name, with each
// from_env value read through lookup (os.LookupEnv); secrets are the values so read, which
// every file and output of the sweep must mask. A from_env variable that is not set is an
// *Error on its line.
func (s *Scenario) ServerEnv(lookup func(string) (string, bool)) (env, secrets []string, err error) {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(s.Server.Env)) {
		v := s.Server.Env[name]
		if v.FromEnv == "" {
			env = append(env, name+"="+v.Value)
			continue
		}
		val, ok := lookup(v.FromEnv)
		if !ok {
			errs = append(errs, &Error{File: s.File, Line: v.line, Col: v.col, Field: "server.env." + name + ".from_env",
				Msg: v.FromEnv + " is not set in toolscore's environment, where from_env reads it"})
			continue
		}
		env = append(env, name+"="+val)
		if val != "" {
			secrets = append(secrets, val)
		}
	}
	return env, secrets, errors.Join(errs...)
}

// Tool is one tool of a scenario with several: the call a cell makes, and what a right answer
// to it contains. A scenario with one tool writes these at its top level instead.
type Tool struct {
	Name         string         `yaml:"name" json:"name" jsonschema:"required" jsonschema_description:"Name of the tool; faults of its cells apply to its tools/call result only."`
	Arguments    map[string]any `yaml:"arguments,omitempty" json:"arguments,omitempty" jsonschema_description:"Arguments of the tools/call request."`
	Prompt       string         `yaml:"prompt,omitempty" json:"prompt,omitempty" jsonschema_description:"Prompt given to agent clients for this tool; unset: the scenario's prompt."`
	Truth        []string       `yaml:"truth,omitempty" json:"truth,omitempty" jsonschema_description:"Values a right answer contains."`
	DecoyArgs    map[string]any `yaml:"decoy_args,omitempty" json:"decoy_args,omitempty" jsonschema_description:"Arguments of a neighbouring record, for the faults that take decoy_args (corrupt-plausible) where the fault's entry gives none."`
	OutputSchema map[string]any `yaml:"output_schema,omitempty" json:"output_schema,omitempty" jsonschema_description:"outputSchema to publish in the published mode when the server declares none; must have type: object."`
	SideEffects  *bool          `yaml:"side_effects,omitempty" json:"side_effects,omitempty" jsonschema_description:"Whether calling the tool changes something (a payment, a write), so that a client that calls it more than once in a run is marked duplicate: true or false says so whatever the server lists; unset, the tool's MCP annotations in the tools/list answer decide (destructiveHint: true, or readOnlyHint: false, and idempotentHint not true)."`
	Volatile     []string       `yaml:"volatile,omitempty" json:"volatile,omitempty" jsonschema_description:"JSON pointers into this tool's tools/call result of fields that change on every call, masked when the cell cache checks the live server's answers (see the top-level volatile)."`

	// Line is the manifest line of this entry, for annotations.
	Line int `yaml:"-" json:"-"`
	// axis marks a tool of a tools: list, which names its cells; the single tool does not.
	axis bool
	// at and argsAt are where the tool's name and its arguments key are written, for the errors
	// of the preflight, which finds them only once the server lists its tools.
	at, argsAt position
	// noSchema says the tool has no outputSchema, the server's or the manifest's: the faults
	// that need one are not applicable to it, and its cells of them are not in the matrix.
	noSchema bool
}

// SetNoSchema marks the tools named as having no outputSchema (the server lists none, and the
// manifest gives no output_schema), once the server has listed its tools: the cells of the
// faults that need one leave the matrix. It returns, for each tool marked, those faults.
func (s *Scenario) SetNoSchema(names []string) map[string][]string {
	skipped := map[string][]string{}
	var faults []string
	for _, f := range s.Faults {
		if f.needsSchema {
			faults = append(faults, f.Name)
		}
	}
	mark := func(name string, t *bool, schema map[string]any) {
		if len(schema) == 0 && slices.Contains(names, name) {
			*t = true
			if len(faults) > 0 {
				skipped[name] = faults
			}
		}
	}
	if len(s.Tools) == 0 {
		mark(s.Tool, &s.noSchema, s.OutputSchema)
	}
	for i := range s.Tools {
		mark(s.Tools[i].Name, &s.Tools[i].noSchema, s.Tools[i].OutputSchema)
	}
	return skipped
}

// applies says whether fault f applies to tool t: not one that needs an outputSchema on a tool
// with none.
func (f Fault) applies(t Tool) bool { return !f.needsSchema || !t.noSchema }

// CallError is an *Error about tool t of s, found after loading (the server does not list it,
// or its arguments fail its inputSchema): at t's arguments key when arguments is set and the
// manifest writes one, else at its name.
func (s *Scenario) CallError(t Tool, arguments bool, msg string) *Error {
	at := t.at
	if arguments && t.argsAt.field != "" {
		at = t.argsAt
	}
	if at.field == "" {
		at = position{line: max(t.Line, 1), col: 1, field: "tool"}
	}
	return &Error{File: s.File, Line: at.line, Col: at.col, Field: at.field, Msg: msg}
}

// toolOptions is Tool without its methods, for the same reason as faultOptions.
type toolOptions Tool

// UnmarshalYAML accepts a tool written as its bare name or as a mapping.
func (t *Tool) UnmarshalYAML(unmarshal func(any) error) error {
	var opts toolOptions
	err := decodeShorthand(unmarshal, &opts.Name, &opts, "a tool name or a mapping with a name")
	*t = Tool(opts)
	return err
}

// Coordinate is the tool as a coordinate of its cells: its name when the scenario has a tools:
// list, and empty for a scenario's single tool, so those cells keep the keys they always had.
func (t Tool) Coordinate() string {
	if t.axis {
		return t.Name
	}
	return ""
}

// Calls are the tools the matrix calls: the tools: list, or the single tool the top level names.
func (s *Scenario) Calls() []Tool {
	if len(s.Tools) > 0 {
		return s.Tools
	}
	return []Tool{{Name: s.Tool, Arguments: s.Arguments, Prompt: s.Prompt, Truth: s.Truth, OutputSchema: s.OutputSchema, SideEffects: s.SideEffects, Volatile: s.Volatile, at: s.toolAt, argsAt: s.argsAt, noSchema: s.noSchema}}
}

// Fault is one fault of the matrix: the settings every fault has, which decide when it fires,
// and Options, the fault's own settings. Zero options leave the choice to the fault itself;
// Known.FaultOptions checks them, so this package needs no fault.
type Fault struct {
	Name        string   `yaml:"name" json:"name" jsonschema:"required" jsonschema_description:"Name of the fault, e.g. clean, corrupt, latency."`
	Probability *float64 `yaml:"probability,omitempty" json:"probability,omitempty" jsonschema:"minimum=0,maximum=1" jsonschema_description:"Chance that the fault fires on an eligible call; unset means always."`
	Nth         int      `yaml:"nth,omitempty" json:"nth,omitempty" jsonschema:"minimum=1" jsonschema_description:"Only the nth call to the tool (from 1) is eligible; unset means every call."`
	Seed        *int64   `yaml:"seed,omitempty" json:"seed,omitempty" jsonschema_description:"Seed that decides what fires and how values are perturbed; the same seed gives the same bytes."`
	// Options are every other key of the fault's mapping (latency: 1500ms, decoy_args: {...}),
	// handed to the fault as one JSON object.
	Options map[string]any `yaml:"-" json:"-"`

	// Line is the manifest line of this entry, for annotations.
	Line int `yaml:"-" json:"-"`
	// decoys says the fault takes a decoy_args option, which a tool's decoy_args fills.
	decoys bool
	// httpOnly marks a fault of the HTTP exchange: a stdio cell has no HTTP to break.
	httpOnly bool
	// needsSchema marks a fault that breaks the result against the tool's outputSchema.
	needsSchema bool
}

// faultOptions is Fault without its methods, so decoding the mapping form
// does not recurse into Fault.UnmarshalYAML.
type faultOptions Fault

// UnmarshalYAML accepts a fault written as its bare name or as a mapping; the mapping's keys
// other than the settings every fault has are its Options.
func (f *Fault) UnmarshalYAML(unmarshal func(any) error) error {
	var opts faultOptions
	err := decodeShorthand(unmarshal, &opts.Name, &opts, "a fault name or a mapping with a name")
	// goccy/go-yaml reports unknown keys only once every known one is decoded, so this error
	// says no more than that the fault has options of its own.
	if _, ok := errors.AsType[*yaml.UnknownFieldError](err); ok {
		err = nil
	}
	if err != nil {
		*f = Fault(opts)
		return err
	}
	var all map[string]any
	if unmarshal(&all) == nil {
		for _, k := range fieldNames("faults[]") {
			delete(all, k)
		}
		if len(all) > 0 {
			opts.Options = all
		}
	}
	*f = Fault(opts)
	return nil
}

// Client is one client or agent adapter of the matrix.
type Client struct {
	Name    string `yaml:"name" json:"name" jsonschema:"required" jsonschema_description:"Name of the client adapter, e.g. go-sdk/call."`
	Version string `yaml:"version,omitempty" json:"version,omitempty" jsonschema_description:"Version of the client library or agent CLI to run (a Go client is built against it); unset uses toolscore's pin. raw takes none."`
	Image   string `yaml:"image,omitempty" json:"image,omitempty" jsonschema_description:"A ready image to run this client's cells in instead of the one toolscore builds (docker backend); toolscore's binary is layered on it, so it must hold whatever the adapter runs (nothing more for the built-in clients). For a client you define (runtime set), the base its image is built on instead of the runtime's."`
	Model   *Model `yaml:"model,omitempty" json:"model,omitempty" jsonschema_description:"A real model for an agent instead of the scripted one: its requests pass through a recording gateway in the cell, with the key from the runner's environment."`
	Retries int    `yaml:"retries,omitempty" json:"retries,omitempty" jsonschema:"minimum=0" jsonschema_description:"For an agent on the scripted model: how many times the model calls the tool again after a result that failed (one the agent marks an error, or whose text starts with error), before it answers; unset or 0, it answers from the first result. The calls an agent then makes on the wire (calls in results.json) show its own retry policy beside the model's. Not with a real model (model set), which decides for itself."`
	Cache   string `yaml:"cache,omitempty" json:"cache,omitempty" jsonschema:"enum=reuse" jsonschema_description:"reuse: this client's cells may be served from the cell cache although it talks to a real model (model set), whose answers differ from one run to the next; unset, such a client always runs. Every other client is reused whenever nothing it would see changed."`

	// Runtime, Command, Install and Agent define a client of the manifest's own (Defined).
	Runtime string   `yaml:"runtime,omitempty" json:"runtime,omitempty" jsonschema:"enum=node,enum=python,enum=binary" jsonschema_description:"Defines a client of your own under a name no built-in client takes: what its command needs to run (node, python, or binary for a program of its own). Its cells run the manifest's folder, installed."`
	Command []string `yaml:"command,omitempty" json:"command,omitempty" jsonschema:"minItems=1" jsonschema_description:"A defined client's adapter: the program and arguments that make the call on the client contract (CONTRIBUTING.md); a word with a / that is not absolute is a file of the manifest's folder, e.g. [python3, harness/acme.py]."`
	Install []string `yaml:"install,omitempty" json:"install,omitempty" jsonschema_description:"Shell commands that install a defined client, run in order with the network in a copy of the manifest's folder, once per inputs (on docker, at image build); e.g. [pip install -r harness/requirements.txt]."`
	Files   []string `yaml:"files,omitempty" json:"files,omitempty" jsonschema_description:"The files and folders of the manifest's folder a defined client's command and install use, e.g. [harness/]: only they are copied into its install and key it and its cells, with the files its command names; without it, the whole folder is (a log beside the manifest then installs the client afresh and runs its cells again)."`
	Agent   bool     `yaml:"agent,omitempty" json:"agent,omitempty" jsonschema_description:"A defined client is an agent: it gets the prompt and the scripted model's URL (TOOLSCORE_MODEL_URL, an Anthropic Messages API), and is graded on what the model was shown and its answer."`

	// Line is the manifest line of this entry, for annotations.
	Line int `yaml:"-" json:"-"`

	// installAt is where a defined client's install is written, for the error when it fails.
	installAt position
}

// position is a field's place in the manifest, and its path.
type position struct {
	line, col int
	field     string
}

// ServerError is the *Error of a server the sweep found it cannot start or reach before any run
// (a command not on PATH, a url nothing answers at): at the command's program or the url, with
// msg.
func (s *Scenario) ServerError(msg string) *Error {
	at := s.serverAt
	if at.field == "" {
		at = position{line: 1, col: 1, field: "server"}
	}
	return &Error{File: s.File, Line: at.line, Col: at.col, Field: at.field, Msg: msg}
}

// InstallError is the *Error of a defined client c whose install failed with err (an install
// runs when the sweep starts, after the manifest loaded): at c's install, with err's words (an
// install step's include its last lines of output).
func (s *Scenario) InstallError(c Client, err error) *Error {
	at := c.installAt
	if at.field == "" {
		at = position{line: c.Line, col: 1, field: "clients"}
	}
	return &Error{File: s.File, Line: at.line, Col: at.col, Field: at.field, Msg: "installing " + c.Name + ": " + err.Error()}
}

// clientOptions is Client without its methods, for the same reason as faultOptions.
type clientOptions Client

// UnmarshalYAML accepts a client written as its bare name or as a mapping.
func (c *Client) UnmarshalYAML(unmarshal func(any) error) error {
	var opts clientOptions
	err := decodeShorthand(unmarshal, &opts.Name, &opts, "a client name or a mapping with a name")
	*c = Client(opts)
	return err
}

// Model is a real model an agent talks to. The vendor is the agent's own (Anthropic Messages for
// claude-code, OpenAI Responses for codex, Gemini for gemini-cli).
type Model struct {
	Name    string `yaml:"name" json:"name" jsonschema:"required" jsonschema_description:"The vendor's name of the model, passed to the agent CLI."`
	URL     string `yaml:"url" json:"url" jsonschema:"required" jsonschema_description:"Base URL of the vendor's model API (or of a gateway of yours in front of it)."`
	KeyEnv  string `yaml:"key_env,omitempty" json:"key_env,omitempty" jsonschema_description:"Environment variable of the runner holding the API key; unset: ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY, by agent."`
	Network string `yaml:"network,omitempty" json:"network,omitempty" jsonschema:"enum=bridge,enum=host" jsonschema_description:"Docker network of this client's cells, so they can reach the model; unset: bridge. Other cells keep the sandbox's."`
}

// Defined says whether the entry defines a client of the manifest's own (it names a runtime)
// rather than naming a built-in one.
func (c Client) Defined() bool { return c.Runtime != "" }

// Runtimes a defined client may name: what its command needs on the machine or in its image.
// internal/install keeps the same list (a test there holds them equal).
var Runtimes = []string{"node", "python", "binary"}

// ID names the client in cell keys and reports: the name, with @version
// when a version is pinned, :model when a real model is and +retriesN when the scripted model
// tries again, so two versions or models of one client stay apart.
func (c Client) ID() string {
	id := c.Name
	if c.Version != "" {
		id += "@" + c.Version
	}
	if c.Model != nil {
		id += ":" + c.Model.Name
	}
	if c.Retries > 0 {
		// The same agent with a model that tries again is another column.
		id += fmt.Sprintf("+retries%d", c.Retries)
	}
	return id
}

// decodeShorthand decodes a list entry written either as a bare name, into
// name, or as a mapping, into opts. It looks at the value's shape first so
// that an error inside the mapping is reported as it is.
func decodeShorthand(unmarshal func(any) error, name *string, opts any, want string) error {
	var raw any
	if err := unmarshal(&raw); err != nil {
		return err
	}
	switch raw.(type) {
	case map[string]any:
		return unmarshal(opts)
	case []any:
		// Decoding the list as a mapping fails, and its error carries the
		// list's position.
		return wantError(unmarshal(opts), want)
	default:
		return unmarshal(name)
	}
}

// SchemaMode is how the proxy shows the target tool's outputSchema in tools/list.
type SchemaMode string

// The schema modes.
const (
	SchemaHidden    SchemaMode = "hidden"    // outputSchema removed
	SchemaPublished SchemaMode = "published" // the server's outputSchema, or the manifest's when the server has none
	SchemaAsIs      SchemaMode = "as-is"     // whatever the server sends
)

// SchemaModes returns every schema mode, in the order reports show them.
func SchemaModes() []SchemaMode {
	return []SchemaMode{SchemaHidden, SchemaPublished, SchemaAsIs}
}

// Protocol is the newest MCP protocol version the server is seen to offer: the proxy answers the
// handshake as a server whose newest version it is. It decides what some clients check (Claude
// Code validates differently against a 2026 server), so it is an axis of the matrix.
type Protocol string

// PortPlaceholder is replaced by the server's port in every argument of an HTTP server's
// command (the proxy picks the port): a command serving HTTP behind the proxy names it with it.
const PortPlaceholder = "{port}"

// ProtocolAsIs leaves the handshake to server and client: whatever they negotiate.
const ProtocolAsIs Protocol = record.ProtocolAsIs

// Protocols returns every protocol entry a manifest may name, as-is first, then the versions
// newest first.
func Protocols() []Protocol {
	return []Protocol{ProtocolAsIs, "2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
}

// Transport is how a client reaches the server through the proxy: over the stdio pipes of the
// server's process, or over streamable HTTP. Clients behave differently on each, so it is an
// axis of the matrix.
type Transport string

// The transports.
const (
	TransportStdio Transport = "stdio" // the proxy is the client's child process, on its pipes
	TransportHTTP  Transport = "http"  // the proxy listens on loopback and relays streamable HTTP
)

// Transports returns every transport, in the order reports show them.
func Transports() []Transport {
	return []Transport{TransportStdio, TransportHTTP}
}

// Outcome is an outcome an expect entry names: one of record's (record.Outcome), as a type of
// its own so the manifest's schema lists only those an expectation can ask for (Outcomes).
type Outcome record.Outcome

// Outcomes returns every outcome an expectation can name: what a client did with a run's
// result, or its server's failure to start; not those of a run that measured nothing of what
// the client does with the fault (no-call, not-ready, unavailable, unsupported, diverged).
func Outcomes() []Outcome {
	return []Outcome{Outcome(record.Passed), Outcome(record.Altered), Outcome(record.Threw), Outcome(record.RPCError), Outcome(record.Hung),
		Outcome(record.Crashed), Outcome(record.OOM), Outcome(record.ServerExited), Outcome(record.Rejected)}
}

// Expect is one expectation: the cells it selects must have its outcome.
// An empty or "*" client, fault or schema selects every value.
type Expect struct {
	Client    string  `yaml:"client,omitempty" json:"client,omitempty" jsonschema_description:"Client name (every version) or name@version; * or unset means any."`
	Fault     string  `yaml:"fault,omitempty" json:"fault,omitempty" jsonschema_description:"Fault name; * or unset means any."`
	Schema    string  `yaml:"schema,omitempty" json:"schema,omitempty" jsonschema:"enum=*,enum=hidden,enum=published,enum=as-is" jsonschema_description:"Schema mode; * or unset means any."`
	Protocol  string  `yaml:"protocol,omitempty" json:"protocol,omitempty" jsonschema_description:"Protocol entry (as-is or a version); * or unset means any."`
	Transport string  `yaml:"transport,omitempty" json:"transport,omitempty" jsonschema:"enum=*,enum=stdio,enum=http" jsonschema_description:"Transport (stdio or http); * or unset means any."`
	Tool      string  `yaml:"tool,omitempty" json:"tool,omitempty" jsonschema_description:"Tool name, in a scenario with tools:; * or unset means any."`
	Outcome   Outcome `yaml:"outcome,omitempty" json:"outcome,omitempty" jsonschema_description:"The outcome every run of the selected cells must have; an entry has an outcome or stable: true."`
	Stable    bool    `yaml:"stable,omitempty" json:"stable,omitempty" jsonschema_description:"true: the runs of each selected cell must agree, whatever their outcome (no cell mixed); instead of an outcome, which already asks that."`

	// Line is the manifest line of this entry, for annotations.
	Line int `yaml:"-" json:"-"`
}

// Known lists the names a manifest may use; the caller fills it from the
// fault and client registries so this package needs neither. A nil list
// accepts any name.
type Known struct {
	Faults   []string
	Clients  []string
	Builtins []string
	// HTTPBuiltins are the builtins that serve streamable HTTP as well as stdio (nil: every one).
	HTTPBuiltins []string
	// Agents are the clients that take a model (nil: not checked).
	Agents []string
	// Versioned are the clients a version may be pinned of (nil: not checked); any other one
	// has no library to pin.
	Versioned []string
	// FaultOptions checks options, a JSON object, as the named fault takes them (fault.Check);
	// nil accepts any. The loader hands it one option at a time, so that its error is reported
	// at that option's line. An error with a KnownOptions method (fault.OptionError) that
	// unwraps to nil is about an option the fault does not take.
	FaultOptions func(name string, options json.RawMessage) error
	// HTTPOnly says whether the named fault is a fault of the HTTP exchange (fault.Transport),
	// which has cells on the http transport alone; nil: none is.
	HTTPOnly func(name string) bool
	// NeedsSchema says whether the named fault breaks the result against the tool's
	// outputSchema (fault.NeedsSchema): not applicable to a tool with none; nil: none does.
	NeedsSchema func(name string) bool
}

// Duration is a time.Duration written as a Go duration string ("2s",
// "1m30s") in manifests and in JSON.
type Duration time.Duration

// Std returns d as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

func (d Duration) String() string { return time.Duration(d).String() }

// UnmarshalYAML reads a duration string; it takes the node so that a bad
// value is reported at its position.
func (d *Duration) UnmarshalYAML(node ast.Node) error {
	s, ok := node.(*ast.StringNode)
	if !ok {
		return &posError{tok: node.GetToken(), want: "a duration like 30s or 1m30s"}
	}
	v, err := time.ParseDuration(s.Value)
	if err != nil {
		return &posError{tok: node.GetToken(), msg: fmt.Sprintf("invalid duration %q (write a number with a unit, like 30s or 1m30s)", s.Value)}
	}
	*d = Duration(v)
	return nil
}

// MarshalText writes d as a duration string, so JSON results read like the manifest.
func (d Duration) MarshalText() ([]byte, error) {
	return []byte(d.String()), nil
}

// UnmarshalText reads a duration string, for JSON.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("invalid duration %q (write a number with a unit, like 30s or 1m30s)", b)
	}
	*d = Duration(v)
	return nil
}

// Sandbox relaxes how a docker cell is confined. The defaults: network none (loopback only),
// every capability dropped, no-new-privileges, user 1000:1000, 1 GiB of memory with no swap,
// 1 CPU, 256 processes, 1024 open files.
type Sandbox struct {
	Network          string  `yaml:"network,omitempty" json:"network,omitempty" jsonschema:"enum=none,enum=host,enum=bridge" jsonschema_description:"Docker network of the cell; none leaves loopback only."`
	Memory           int64   `yaml:"memory_mb,omitempty" json:"memory_mb,omitempty" jsonschema:"minimum=16" jsonschema_description:"Memory limit in MiB (swap is set equal: none)."`
	CPUs             float64 `yaml:"cpus,omitempty" json:"cpus,omitempty" jsonschema:"minimum=0.1" jsonschema_description:"CPU limit."`
	Pids             int64   `yaml:"pids,omitempty" json:"pids,omitempty" jsonschema:"minimum=8" jsonschema_description:"Process limit."`
	NoFile           int64   `yaml:"nofile,omitempty" json:"nofile,omitempty" jsonschema:"minimum=16" jsonschema_description:"Open-file limit."`
	User             string  `yaml:"user,omitempty" json:"user,omitempty" jsonschema_description:"uid:gid the cell runs as."`
	KeepCapabilities bool    `yaml:"keep_capabilities,omitempty" json:"keep_capabilities,omitempty" jsonschema_description:"Keep the engine's default capabilities instead of dropping all."`
}
