package scenario

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/goccy/go-yaml"
)

// Placeholder starts every value toolscore init could not fill in; the loader refuses a
// manifest that still holds one, at its line, so a starter cannot run until it is filled.
const Placeholder = "FILL IN"

// StarterTool is one tool as a server lists it, for a starter manifest.
type StarterTool struct {
	Name         string
	Description  string
	InputSchema  map[string]any
	OutputSchema map[string]any
}

// Starter is what a starter manifest is written from: the server as a manifest names it, its
// tools as it listed them, and the tool to call (empty: the first that publishes an output
// schema, else the first).
type Starter struct {
	Name   string
	Server Server
	Tools  []StarterTool
	Tool   string
	// Calls are the tools to call, each a dimension of the matrix (toolscore init --tools);
	// empty: every tool of a server that lists at most StarterMaxTools, else one.
	Calls []string
}

// StarterMaxTools is how many tools a starter calls by default: each multiplies the runs
// (840 a tool with the default faults and clients), so a server that lists more gets one
// tool, and the others in comments.
const StarterMaxTools = 3

// EnvName says whether name is an environment variable name a manifest takes.
func EnvName(name string) bool { return envName.MatchString(name) }

// schemaFaults need an outputSchema to mean anything: they break the structured result against it.
var schemaFaults = []string{"type-swap", "drop-required", "wrong-container"}

// starterFaults are the faults a starter manifest runs, in the balance study's order.
var starterFaults = []string{"clean", "error", "rpc-error", "empty", "truncate", "corrupt", "type-swap", "drop-required", "wrong-container", "latency"}

// starterClients are the clients a starter manifest runs: every SDK path and the agents.
var starterClients = []string{"raw", "go-sdk/call", "go-sdk/list-then-call", "mcp-go/call", "mcp-go/list-then-call",
	"ts-sdk/call", "ts-sdk/list-then-call", "ts-client-v2/call", "ts-client-v2/list-then-call",
	"python-sdk/call", "python-sdk/list-then-call", "claude-code", "codex", "gemini-cli"}

// OwnClientExample is the commented client of the user's own a starter manifest ends its
// clients with: uncommented, with its adapter beside the manifest, it loads.
const OwnClientExample = `  # Your own client or agent (docs/manifest.md, "Your own client"): an adapter on the client
  # contract; a path in command or install is from this file's folder.
  # - name: my-client
  #   runtime: python                    # node | python | binary: what it needs to run
  #   command: [python3, ./my_adapter.py]
  #   install: [pip install -r requirements.txt]   # optional, run once per inputs
  #   agent: false                       # true: it gets the prompt and the scripted model
`

// Write renders the starter manifest: valid against the manifest's JSON Schema, and loadable
// once every Placeholder is replaced. A server with one tool (or a Tool named) gets the
// single-tool form; one with several gets every tool under tools:. Everything the server said
// (names, descriptions, schemas) is quoted as YAML or folded into single comment lines, so it
// cannot add keys.
func (st Starter) Write() ([]byte, error) {
	if len(st.Tools) == 0 {
		return nil, fmt.Errorf("the server lists no tools, so there is nothing to call")
	}
	pick, err := st.pick()
	if err != nil {
		return nil, err
	}
	calls := st.Tools
	switch {
	case len(st.Calls) > 0:
		if calls, err = st.named(); err != nil {
			return nil, err
		}
		pick = calls[0]
	case st.Tool != "" || len(st.Tools) == 1 || len(st.Tools) > StarterMaxTools:
		calls = []StarterTool{pick}
	}
	var b bytes.Buffer
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	comment := func(indent, text string) { line("%s# %s", indent, oneLine(text)) }

	line("# Written by toolscore init. Fill in every %q value, then run: toolscore run THIS_FILE", Placeholder)
	line("# The manifest's JSON Schema, for an editor: schema/scenario.schema.json in toolscore's repository.")
	line("name: %s", quote(cmp.Or(st.Name, pick.Name)))
	line("server:")
	switch st.Server.Kind() {
	case ServerBuiltin:
		line("  builtin: %s", quote(st.Server.Builtin))
	case ServerURL:
		line("  url: %s", quote(st.Server.URL))
		comment("  ", "The Docker network its cells reach it on: host for a server on this machine's loopback, else bridge or a network's name.")
		line("  network: %s", quote(st.Server.Network))
		if st.Server.AuthEnv != "" {
			comment("  ", "The runner's variable whose value is sent as the Authorization header, by the proxy alone.")
			line("  auth_env: %s", quote(st.Server.AuthEnv))
		}
	case ServerImage:
		line("  image: %s", quote(st.Server.Image))
		line("  command: %s", flow(st.Server.Command))
	default:
		line("  command: %s", flow(st.Server.Command))
	}
	if len(st.Server.Env) > 0 {
		comment("  ", "Each read from toolscore's environment when the sweep starts, its value never written here and masked in every output.")
		line("  env:")
		for _, name := range slices.Sorted(maps.Keys(st.Server.Env)) {
			line("    %s: {from_env: %s}", quote(name), quote(st.Server.Env[name].FromEnv))
		}
	}
	line("")
	anySchema := false
	for _, t := range calls {
		anySchema = anySchema || len(t.OutputSchema) > 0
	}
	if len(calls) == 1 {
		if len(st.Tools) > 1 {
			comment("", "The server's other tools (toolscore init --tools A,B writes a tools: list, each a dimension of the matrix):")
			for _, t := range st.Tools {
				if t.Name != pick.Name {
					comment("", fmt.Sprintf("  %s (%s): %s", t.Name, schemaNote(t), t.Description))
				}
			}
		}
		comment("", pick.Description)
		line("tool: %s", quote(pick.Name))
		if err := writeArguments(&b, pick, ""); err != nil {
			return nil, err
		}
		line("prompt: %s", quote(prompt(pick)))
		comment("", "truth: the values a right answer contains, so agents' answers can be graded, e.g. [\"40718.77\"].")
		writeVolatile(&b, "")
		if !anySchema {
			comment("", fmt.Sprintf("%s publishes no output schema: the schema faults (%s) and the published mode need one.", pick.Name, strings.Join(schemaFaults, ", ")))
			comment("", "Write the shape of its structuredContent here to publish it, then uncomment them:")
			comment("", "output_schema: {type: object, properties: {...}, required: [...]}")
		}
	} else {
		comment("", fmt.Sprintf("Every tool the server lists (%d) is a dimension of the matrix, and each multiplies the runs:", len(calls)))
		comment("", "narrow a run with --tools NAME,NAME, or delete the entries you do not want.")
		line("tools:")
		for _, t := range calls {
			line("  - name: %s", quote(t.Name))
			comment("    ", fmt.Sprintf("%s. %s", upperFirst(schemaNote(t)), t.Description))
			if len(t.OutputSchema) == 0 {
				comment("    ", "The faults that need an output schema (type-swap, drop-required) are not applicable to it: a sweep does not run them. To publish one, add output_schema: {type: object, ...}")
			}
			if err := writeArguments(&b, t, "    "); err != nil {
				return nil, err
			}
			line("    prompt: %s", quote(prompt(t)))
			comment("    ", "truth: [...] the values a right answer contains, so agents' answers can be graded")
			writeVolatile(&b, "    ")
		}
	}
	line("faults:")
	for _, f := range starterFaults {
		switch {
		case !anySchema && slices.Contains(schemaFaults, f):
			line("  # - %s", f)
		case f == "latency":
			line("  - {name: latency, latency: 1s}")
		default:
			line("  - %s", f)
		}
	}
	if anySchema {
		line("schema_modes: [hidden, published]")
	} else {
		line("schema_modes: [hidden]  # add published with an output_schema")
	}
	line("clients:")
	for _, c := range starterClients {
		line("  - %s", c)
	}
	b.WriteString(OwnClientExample)
	line("runs: 3")
	line("timeout: 30s")
	return b.Bytes(), nil
}

// VolatileExample is the commented volatile key a starter writes by each tool: the cell cache
// reruns every cell of a tool whose answers differ from those it recorded, which a timestamp
// does at every call.
const VolatileExample = "# volatile: [/structuredContent/as_of]"

// writeVolatile writes the commented volatile key at indent, with what it is for.
func writeVolatile(b *bytes.Buffer, indent string) {
	fmt.Fprintf(b, "%s# Fields of its answer that change on every call (a timestamp, an id it makes up): without them\n", indent)
	fmt.Fprintf(b, "%s# here the cell cache finds the server answering differently and runs its cells again each sweep.\n", indent)
	fmt.Fprintf(b, "%s%s\n", indent, VolatileExample)
}

// writeArguments writes a tool's arguments key at indent, filled from its input schema.
func writeArguments(b *bytes.Buffer, t StarterTool, indent string) error {
	args := arguments(t.InputSchema)
	if len(args) == 0 {
		fmt.Fprintf(b, "%s# The tool requires no arguments; add them under arguments: if a call needs some.\n", indent)
		return nil
	}
	fmt.Fprintf(b, "%sarguments:\n", indent)
	return nested(b, args, indent+"  ")
}

func prompt(t StarterTool) string {
	return fmt.Sprintf("Use the %s tool and tell me exactly what it returned.", t.Name)
}

func schemaNote(t StarterTool) string {
	if len(t.OutputSchema) > 0 {
		return "publishes an output schema"
	}
	return "no output schema"
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// named are the tools st.Calls names, in that order.
func (st Starter) named() ([]StarterTool, error) {
	var out []StarterTool
	for _, n := range st.Calls {
		i := slices.IndexFunc(st.Tools, func(t StarterTool) bool { return t.Name == n })
		if i < 0 {
			return nil, fmt.Errorf("the server lists no tool %q; it lists %s", n, strings.Join(st.names(), ", "))
		}
		if !slices.ContainsFunc(out, func(t StarterTool) bool { return t.Name == n }) {
			out = append(out, st.Tools[i])
		}
	}
	return out, nil
}

func (st Starter) names() []string {
	names := make([]string, len(st.Tools))
	for i, t := range st.Tools {
		names[i] = t.Name
	}
	return names
}

func (st Starter) pick() (StarterTool, error) {
	if st.Tool != "" {
		for _, t := range st.Tools {
			if t.Name == st.Tool {
				return t, nil
			}
		}
		return StarterTool{}, fmt.Errorf("the server lists no tool %q; it lists %s", st.Tool, strings.Join(st.names(), ", "))
	}
	for _, t := range st.Tools {
		if len(t.OutputSchema) > 0 {
			return t, nil
		}
	}
	return st.Tools[0], nil
}

// arguments fills the required properties of an input schema: from its examples, default,
// const or enum, an object's own required properties, else a Placeholder naming what is asked.
func arguments(schema map[string]any) map[string]any {
	props, _ := schema["properties"].(map[string]any)
	out := map[string]any{}
	for _, r := range asList(schema["required"]) {
		name, ok := r.(string)
		if !ok {
			continue
		}
		p, _ := props[name].(map[string]any)
		out[name] = value(name, p)
	}
	return out
}

func value(name string, p map[string]any) any {
	if ex := asList(p["examples"]); len(ex) > 0 {
		return ex[0]
	}
	for _, k := range []string{"example", "default", "const"} {
		if v, ok := p[k]; ok {
			return v
		}
	}
	if e := asList(p["enum"]); len(e) > 0 {
		return e[0]
	}
	if p["type"] == "object" {
		if _, ok := p["required"]; ok {
			return arguments(p)
		}
	}
	what := name
	if d, ok := p["description"].(string); ok && d != "" {
		what += ", " + d
	}
	if t, ok := p["type"].(string); ok {
		what += " (" + t + ")"
	}
	return Placeholder + ": " + oneLine(what)
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// nested writes a mapping in block style, one key a line, each value as YAML flow.
func nested(b *bytes.Buffer, m map[string]any, indent string) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v, err := flowValue(m[k])
		if err != nil {
			return fmt.Errorf("argument %s: %w", k, err)
		}
		fmt.Fprintf(b, "%s%s: %s\n", indent, quote(k), v)
	}
	return nil
}

// flowValue renders a JSON value as one line of YAML: JSON is YAML, and keeps every string quoted.
func flowValue(v any) (string, error) {
	j, err := json.Marshal(v)
	return string(j), err
}

func flow(list []string) string {
	s, _ := flowValue(list)
	return s
}

// quote renders a string as a YAML scalar that reads back as the same string.
func quote(s string) string {
	out, err := yaml.Marshal(s)
	if err != nil || strings.ContainsAny(s, "\n\r") || strings.Count(string(out), "\n") > 1 {
		j, _ := json.Marshal(s)
		return string(j)
	}
	return strings.TrimSuffix(string(out), "\n")
}

// oneLine folds text from a server into one printable line for a comment: control and
// format characters (newlines, bidi controls) become spaces, and it is cut at 160 runes.
func oneLine(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			r = ' '
		}
		if n == 160 {
			b.WriteString("...")
			break
		}
		b.WriteRune(r)
		n++
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
