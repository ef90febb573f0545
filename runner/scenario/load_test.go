package scenario

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// known is what the registries would pass; the tests use the design's catalogue.
var known = Known{
	Faults: []string{"clean", "error", "rpc-error", "empty", "truncate", "corrupt", "corrupt-plausible",
		"type-swap", "drop-required", "wrong-container", "latency"},
	Clients:  []string{"raw", "go-sdk/call", "ts-sdk/call", "python-sdk/call", "claude-code"},
	Builtins: []string{"ledger"},
	Agents:   []string{"claude-code"},
}

const knownFaults = "(known: clean, error, rpc-error, empty, truncate, corrupt, corrupt-plausible, type-swap, drop-required, wrong-container, latency)"

func TestLoadRejects(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want string
	}{
		{
			name: "empty file",
			yaml: "",
			want: "bad.yaml:1:1: the manifest is empty",
		},
		{
			name: "only comments",
			yaml: "# nothing yet\n",
			want: "bad.yaml:1:1: the manifest is empty",
		},
		{
			name: "syntax error",
			yaml: "name: t\nfaults: [clean\n",
			want: "bad.yaml:2:9: sequence end token ']' not found",
		},
		{
			name: "two documents",
			yaml: "name: t\n---\nname: u\n",
			want: "bad.yaml:2:1: a manifest holds one YAML document, and another one starts here",
		},
		{
			name: "not a mapping",
			yaml: "- clean\n- corrupt\n",
			want: "bad.yaml:1:1: expected a mapping, got a list",
		},
		{
			name: "unknown top-level field",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults: [clean]
schema_modes: [hidden]
clients: [raw]
runz: 3
`,
			want: "bad.yaml:7:1: runz: unknown field (known: name, server, tool, arguments, prompt, truth, output_schema, faults, schema_modes, clients, runs, timeout, parallel, expect, sandbox)",
		},
		{
			name: "duplicate key",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
name: u
`,
			want: "bad.yaml:4:1: name: duplicate key (already set on line 1)",
		},
		{
			name: "undefined alias",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
arguments: *args
`,
			want: "bad.yaml:4:12: arguments: alias *args refers to no anchor defined above it",
		},
		{
			name: "missing name, tool and server",
			yaml: `faults: [clean]
schema_modes: [hidden]
clients: [raw]
`,
			want: "bad.yaml:1:1: name: missing (give the scenario a name)\n" +
				"bad.yaml:1:1: server: missing (builtin: ledger, or command: [program, args...])\n" +
				"bad.yaml:1:1: tool: missing (name the tool every run calls)",
		},
		{
			name: "empty tool",
			yaml: `name: t
server: {builtin: ledger}
tool: ""
faults: [clean]
schema_modes: [hidden]
clients: [raw]
`,
			want: "bad.yaml:3:7: tool: must not be empty",
		},
		{
			name: "server with builtin and command",
			yaml: `name: t
server:
  builtin: ledger
  command: [./server]
tool: get_balance
faults: [clean]
schema_modes: [hidden]
clients: [raw]
`,
			want: "bad.yaml:2:1: server: builtin and command cannot be combined; pick one",
		},
		{
			name: "server with neither",
			yaml: `name: t
server: {}
tool: get_balance
faults: [clean]
schema_modes: [hidden]
clients: [raw]
`,
			want: "bad.yaml:2:1: server: say how to start the server (builtin: ledger, or command: [program, args...])",
		},
		{
			name: "unknown builtin",
			yaml: `name: t
server:
  builtin: ledgr
tool: get_balance
faults: [clean]
schema_modes: [hidden]
clients: [raw]
`,
			want: `bad.yaml:3:12: server.builtin: unknown builtin server "ledgr" (known: ledger)`,
		},
		{
			name: "env on a builtin",
			yaml: `name: t
server:
  builtin: ledger
  env: {DEBUG: "1"}
tool: get_balance
faults: [clean]
schema_modes: [hidden]
clients: [raw]
`,
			want: "bad.yaml:4:3: server.env: only applies to a command server",
		},
		{
			name: "env with a bad name, a reserved one, a bad from_env and a mapping without one",
			yaml: `name: t
server:
  command: [./server]
  env:
    BAD-NAME: x
    TOOLSCORE_SERVER: x
    KEY: {from_env: "not a name"}
    OTHER: {}
tool: get_balance
faults: [clean]
schema_modes: [hidden]
clients: [raw]
`,
			want: `bad.yaml:5:5: server.env.BAD-NAME: "BAD-NAME" is not an environment variable name` + "\n" +
				`bad.yaml:6:5: server.env.TOOLSCORE_SERVER: TOOLSCORE_ variables are the client contract's; give the server another name` + "\n" +
				`bad.yaml:7:21: server.env.KEY.from_env: "not a name" is not an environment variable name` + "\n" +
				`bad.yaml:8:5: server.env.OTHER: write a string, or {from_env: NAME} to pass the runner's variable NAME on`,
		},
		{
			name: "env from_env misspelt",
			yaml: `name: t
server:
  command: [./server]
  env: {KEY: {from_envv: API_KEY}}
tool: get_balance
`,
			want: "bad.yaml:4:15: server.env.KEY.from_envv: unknown field (known: from_env)",
		},
		{
			name: "env value is a list",
			yaml: `name: t
server:
  command: [./server]
  env:
    KEY: [a, b]
tool: get_balance
`,
			want: "bad.yaml:5:5: server.env.KEY: expected a string or {from_env: NAME}, got a list",
		},
		{
			name: "empty command",
			yaml: `name: t
server:
  command: []
tool: get_balance
faults: [clean]
schema_modes: [hidden]
clients: [raw]
`,
			want: "bad.yaml:3:3: server.command: must name the program to run",
		},
		{
			name: "command is a string",
			yaml: `name: t
server:
  command: ./server --stdio
tool: get_balance
`,
			want: `bad.yaml:3:12: server.command: expected a list, got the string "./server --stdio"`,
		},
		{
			name: "unknown fault",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults:
  - clean
  - error
  - corupt
schema_modes: [hidden]
clients: [raw]
`,
			want: `bad.yaml:7:5: faults[2]: unknown fault "corupt" ` + knownFaults,
		},
		{
			name: "unknown fault in the mapping form",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults:
  - name: latencyy
    latency: 2s
schema_modes: [hidden]
clients: [raw]
`,
			want: `bad.yaml:5:11: faults[0].name: unknown fault "latencyy" ` + knownFaults,
		},
		{
			name: "fault without a name",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults:
  - clean
  - latency: 2s
schema_modes: [hidden]
clients: [raw]
`,
			want: "bad.yaml:6:5: faults[1]: name is missing",
		},
		{
			name: "empty fault entry",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults:
  - clean
  -
schema_modes: [hidden]
clients: [raw]
`,
			want: "bad.yaml:6:3: faults[1]: empty entry (write a fault name)",
		},
		{
			name: "fault written as a list",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults:
  - [clean, error]
schema_modes: [hidden]
clients: [raw]
`,
			want: "bad.yaml:5:5: faults[0]: expected a fault name or a mapping with a name, got a list",
		},
		{
			name: "misspelt fault option",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults:
  - clean
  - name: error
    probabilty: 0.5
schema_modes: [hidden]
clients: [raw]
`,
			want: "bad.yaml:7:5: faults[1].probabilty: unknown field (known: name, probability, nth, seed, latency, decoy_args)",
		},
		{
			name: "probability above 1",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults:
  - name: error
    probability: 1.5
schema_modes: [hidden]
clients: [raw]
`,
			want: "bad.yaml:6:18: faults[0].probability: must be between 0 and 1, got 1.5",
		},
		{
			name: "probability as a word",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults:
  - name: error
    probability: often
schema_modes: [hidden]
clients: [raw]
`,
			want: `bad.yaml:6:18: faults[0].probability: expected a number, got the string "often"`,
		},
		{
			name: "nth zero and seed fractional",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults:
  - {name: error, nth: 0, seed: 1.5}
schema_modes: [hidden]
clients: [raw]
`,
			want: "bad.yaml:5:24: faults[0].nth: must be 1 or more, got 0\n" +
				"bad.yaml:5:33: faults[0].seed: expected a whole number, got the number 1.5",
		},
		{
			name: "bad latency",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults:
  - name: latency
    latency: 2 seconds
schema_modes: [hidden]
clients: [raw]
`,
			want: `bad.yaml:6:14: faults[0].latency: invalid duration "2 seconds" (write a number with a unit, like 30s or 1m30s)`,
		},
		{
			name: "duplicate fault",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults:
  - clean
  - corrupt
  - name: clean
    seed: 3
schema_modes: [hidden]
clients: [raw]
`,
			want: `bad.yaml:7:11: faults[2].name: duplicate fault "clean" (first at faults[0])`,
		},
		{
			name: "no faults",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults: []
schema_modes: [hidden]
clients: [raw]
`,
			want: "bad.yaml:4:1: faults: the matrix needs at least one fault " + knownFaults,
		},
		{
			name: "schema modes is a string",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults: [clean]
schema_modes: hidden
clients: [raw]
`,
			want: `bad.yaml:5:15: schema_modes: expected a list, got the string "hidden"`,
		},
		{
			name: "unknown and duplicate schema modes",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults: [clean]
schema_modes: [hidden, hiden, hidden]
clients: [raw]
`,
			want: `bad.yaml:5:24: schema_modes[1]: unknown schema mode "hiden" (known: hidden, published, as-is)` + "\n" +
				`bad.yaml:5:31: schema_modes[2]: duplicate schema mode "hidden" (first at schema_modes[0])`,
		},
		{
			name: "no schema modes",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults: [clean]
clients: [raw]
`,
			want: "bad.yaml:1:1: schema_modes: the matrix needs at least one schema mode (known: hidden, published, as-is)",
		},
		{
			name: "unknown client",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults: [clean]
schema_modes: [hidden]
clients:
  - raw
  - name: go-sdk
    version: 1.8.0
`,
			want: `bad.yaml:8:11: clients[1].name: unknown client "go-sdk" (known: raw, go-sdk/call, ts-sdk/call, python-sdk/call, claude-code)`,
		},
		{
			name: "duplicate client",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults: [clean]
schema_modes: [hidden]
clients:
  - raw
  - go-sdk/call
  - name: raw
`,
			want: `bad.yaml:9:11: clients[2].name: duplicate client "raw" (first at clients[0])`,
		},
		{
			name: "misspelt client field",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults: [clean]
schema_modes: [hidden]
clients:
  - {name: go-sdk/call, versoin: 1.8.0}
`,
			want: "bad.yaml:7:25: clients[0].versoin: unknown field (known: name, version, image, model)",
		},
		{
			name: "model on an SDK client",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults: [clean]
schema_modes: [hidden]
clients:
  - name: go-sdk/call
    model: {name: m, url: "http://127.0.0.1:9"}
`,
			want: `bad.yaml:8:5: clients[0].model: only an agent takes a model; "go-sdk/call" is not one (agents: claude-code)`,
		},
		{
			name: "model without a usable url or key variable",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults: [clean]
schema_modes: [hidden]
clients:
  - name: claude-code
    model:
      name: some-model
      url: "vendor.example/v1"
      key_env: "MY-KEY"
`,
			want: `bad.yaml:10:12: clients[0].model.url: the model needs the base URL of the vendor's API (http or https), got "vendor.example/v1"` + "\n" +
				`bad.yaml:11:16: clients[0].model.key_env: "MY-KEY" is not an environment variable name`,
		},
		{
			name: "install on a builtin server",
			yaml: `name: t
server: {builtin: ledger, install: "npm i -g x"}
tool: get_balance
faults: [clean]
schema_modes: [hidden]
clients: [raw]
`,
			want: `bad.yaml:2:36: server.install: only applies to a command server`,
		},
		{
			name: "runs below one",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults: [clean]
schema_modes: [hidden]
clients: [raw]
runs: 0
`,
			want: "bad.yaml:7:7: runs: must be 1 or more, got 0",
		},
		{
			name: "runs as a word",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults: [clean]
schema_modes: [hidden]
clients: [raw]
runs: three
`,
			want: `bad.yaml:7:7: runs: expected a whole number, got the string "three"`,
		},
		{
			name: "runs fractional",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults: [clean]
schema_modes: [hidden]
clients: [raw]
runs: 2.5
`,
			want: "bad.yaml:7:7: runs: expected a whole number, got the number 2.5",
		},
		{
			name: "timeout without a unit",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults: [clean]
schema_modes: [hidden]
clients: [raw]
timeout: 30
`,
			want: "bad.yaml:7:10: timeout: expected a duration like 30s or 1m30s, got the number 30",
		},
		{
			name: "zero timeout and parallel",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults: [clean]
schema_modes: [hidden]
clients: [raw]
timeout: 0s
parallel: 0
`,
			want: "bad.yaml:7:10: timeout: must be more than zero, got 0s\n" +
				"bad.yaml:8:11: parallel: must be 1 or more, got 0",
		},
		{
			name: "empty and duplicate truth",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
truth: ["40718.77", "", 40718.77]
faults: [clean]
schema_modes: [hidden]
clients: [raw]
`,
			want: "bad.yaml:4:21: truth[1]: must not be empty (every answer would contain it)\n" +
				`bad.yaml:4:25: truth[2]: duplicate value "40718.77" (first at truth[0])`,
		},
		{
			name: "output schema not an object",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
output_schema:
  type: array
faults: [clean]
schema_modes: [hidden]
clients: [raw]
`,
			want: `bad.yaml:5:9: output_schema.type: must be "object" (MCP requires an object schema), got the string "array"`,
		},
		{
			name: "unknown outcome",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults: [clean]
schema_modes: [hidden]
clients: [raw]
expect:
  - client: raw
    outcome: pass
`,
			want: `bad.yaml:9:14: expect[0].outcome: unknown outcome "pass" (known: passed, altered, threw, rpc-error, hung, crashed, oom-killed, rejected)`,
		},
		{
			name: "missing outcome",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults: [clean]
schema_modes: [hidden]
clients: [raw]
expect:
  - {client: raw}
`,
			want: "bad.yaml:8:5: expect[0]: outcome is missing (known: passed, altered, threw, rpc-error, hung, crashed, oom-killed, rejected)",
		},
		{
			name: "expectation outside the matrix",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults: [clean, corrupt]
schema_modes: [hidden]
clients: [raw, go-sdk/call]
expect:
  - {client: ts-sdk/call, fault: "*", outcome: passed}
  - {fault: latency, outcome: hung}
  - {schema: published, outcome: threw}
`,
			want: `bad.yaml:8:14: expect[0].client: "ts-sdk/call" is not among the scenario's clients (raw, go-sdk/call)` + "\n" +
				`bad.yaml:9:13: expect[1].fault: "latency" is not among the scenario's faults (clean, corrupt)` + "\n" +
				`bad.yaml:10:14: expect[2].schema: "published" is not among the scenario's schema modes (hidden)`,
		},
		{
			name: "duplicate expectation",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults: [clean, corrupt]
schema_modes: [hidden]
clients: [raw]
expect:
  - {fault: corrupt, outcome: threw}
  - {client: "*", fault: corrupt, outcome: passed}
`,
			want: "bad.yaml:9:5: expect[1]: duplicate of expect[0] (same client, fault and schema)",
		},
		{
			name: "several problems, in file order",
			yaml: `name: t
server: {builtin: ledger}
tool: get_balance
faults: [clean, corupt]
schema_modes: [hiden]
clients: [rav]
runs: 0
`,
			want: `bad.yaml:4:17: faults[1]: unknown fault "corupt" ` + knownFaults + "\n" +
				`bad.yaml:5:16: schema_modes[0]: unknown schema mode "hiden" (known: hidden, published, as-is)` + "\n" +
				`bad.yaml:6:11: clients[0]: unknown client "rav" (known: raw, go-sdk/call, ts-sdk/call, python-sdk/call, claude-code)` + "\n" +
				"bad.yaml:7:7: runs: must be 1 or more, got 0",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Load("bad.yaml", []byte(tt.yaml), known)
			if err == nil {
				t.Fatalf("Load succeeded with %+v, want error:\n%s", s, tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("Load error:\n%s\nwant:\n%s", got, tt.want)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("Load error %T is not an *Error", err)
			}
		})
	}
}

func TestErrorsSplitsJoined(t *testing.T) {
	_, err := Load("bad.yaml", []byte("faults: [clean]\nschema_modes: [hidden]\nclients: [raw]\n"), known)
	errs := Errors(err)
	if len(errs) != 3 {
		t.Fatalf("Errors returned %d errors, want 3: %v", len(errs), err)
	}
	for i, field := range []string{"name", "server", "tool"} {
		if errs[i].Field != field || errs[i].File != "bad.yaml" || errs[i].Line != 1 {
			t.Errorf("errs[%d] = %+v, want field %s at bad.yaml line 1", i, errs[i], field)
		}
	}
}

func TestLoadShorthand(t *testing.T) {
	data := []byte(`name: t
server: {builtin: ledger}
tool: get_balance
faults:
  - clean
  - {name: corrupt}
  - name: latency
    latency: 1500ms
    probability: 0.25
    nth: 2
    seed: -7
    decoy_args: {account_id: ACC-4476, page: 2}
schema_modes: [as-is]
clients:
  - raw
  - {name: go-sdk/call, version: "1.8.0"}
`)
	s, err := Load("short.yaml", data, known)
	if err != nil {
		t.Fatal(err)
	}
	quarter, seed := 0.25, int64(-7)
	wantFaults := []Fault{
		{Name: "clean", Line: 5},
		{Name: "corrupt", Line: 6},
		{Name: "latency", Latency: Duration(1500 * time.Millisecond), Probability: &quarter, Nth: 2, Seed: &seed,
			DecoyArgs: map[string]any{"account_id": "ACC-4476", "page": uint64(2)}, Line: 7},
	}
	if !reflect.DeepEqual(s.Faults, wantFaults) {
		t.Errorf("Faults = %+v\nwant %+v", s.Faults, wantFaults)
	}
	wantClients := []Client{{Name: "raw", Line: 15}, {Name: "go-sdk/call", Version: "1.8.0", Line: 16}}
	if !reflect.DeepEqual(s.Clients, wantClients) {
		t.Errorf("Clients = %+v, want %+v", s.Clients, wantClients)
	}
	if got := s.Clients[1].ID(); got != "go-sdk/call@1.8.0" {
		t.Errorf("ID() = %q, want go-sdk/call@1.8.0", got)
	}
}

func TestLoadDefaults(t *testing.T) {
	tests := []struct {
		file     string
		runs     int
		timeout  time.Duration
		parallel int
	}{
		{"testdata/ledger.yaml", DefaultRuns, DefaultTimeout, 0},
		{"testdata/command.yaml", 1, 90 * time.Second, 4},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			s, err := Load(tt.file, data, known)
			if err != nil {
				t.Fatal(err)
			}
			if s.Runs != tt.runs || s.Timeout.Std() != tt.timeout || s.Parallel != tt.parallel {
				t.Errorf("runs, timeout, parallel = %d, %s, %d; want %d, %s, %d",
					s.Runs, s.Timeout, s.Parallel, tt.runs, tt.timeout, tt.parallel)
			}
			if s.File != tt.file {
				t.Errorf("File = %q, want %q", s.File, tt.file)
			}
		})
	}
}

func TestLoadLedger(t *testing.T) {
	data, err := os.ReadFile("testdata/ledger.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load("testdata/ledger.yaml", data, known)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "ledger balance" || s.Server.Builtin != "ledger" || s.Tool != "get_balance" {
		t.Errorf("name, builtin, tool = %q, %q, %q", s.Name, s.Server.Builtin, s.Tool)
	}
	if got := s.Arguments["account_id"]; got != "ACC-4471" {
		t.Errorf("arguments.account_id = %v, want ACC-4471", got)
	}
	// The second truth value is an unquoted number; it must stay as written.
	if want := []string{"40718.77", "4071877"}; !reflect.DeepEqual(s.Truth, want) {
		t.Errorf("Truth = %q, want %q", s.Truth, want)
	}
	var faultLines, expectLines []int
	for _, f := range s.Faults {
		faultLines = append(faultLines, f.Line)
	}
	for _, e := range s.Expect {
		expectLines = append(expectLines, e.Line)
	}
	if want := []int{12, 13, 14, 19}; !reflect.DeepEqual(faultLines, want) {
		t.Errorf("fault lines = %v, want %v", faultLines, want)
	}
	if want := []int{27, 28, 29}; !reflect.DeepEqual(expectLines, want) {
		t.Errorf("expect lines = %v, want %v", expectLines, want)
	}
}

func TestLoadCommandServer(t *testing.T) {
	data, err := os.ReadFile("testdata/command.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load("testdata/command.yaml", data, known)
	if err != nil {
		t.Fatal(err)
	}
	want := Server{Command: []string{"node", "server.js", "--stdio"}, Env: map[string]EnvValue{"LOG_LEVEL": {Value: "debug"}}}
	if !reflect.DeepEqual(s.Server, want) {
		t.Errorf("Server = %+v, want %+v", s.Server, want)
	}
	if s.OutputSchema["type"] != "object" {
		t.Errorf("output_schema.type = %v, want object", s.OutputSchema["type"])
	}
}

// TestLoadAliases shows that anchors and aliases work and that the checks
// look through an alias to the value it names.
func TestLoadAliases(t *testing.T) {
	data := []byte(`name: &tool get_balance
server: {builtin: ledger}
tool: *tool
faults: [{name: latency, seed: &seed 7}, {name: corrupt, seed: *seed}]
schema_modes: [hidden]
clients: [raw]
runs: *seed
truth: [*seed]
`)
	s, err := Load("alias.yaml", data, known)
	if err != nil {
		t.Fatal(err)
	}
	if s.Tool != "get_balance" || s.Runs != 7 || *s.Faults[1].Seed != 7 || s.Truth[0] != "7" {
		t.Errorf("tool, runs, seed, truth = %q, %d, %d, %q; want get_balance, 7, 7, 7", s.Tool, s.Runs, *s.Faults[1].Seed, s.Truth)
	}
}

// TestLoadAcceptsAnyNameWhenUnknown shows that a nil list in Known skips
// the name check, for callers that have no registry at hand.
func TestLoadAcceptsAnyNameWhenUnknown(t *testing.T) {
	data := []byte("name: t\nserver: {builtin: other}\ntool: x\nfaults: [made-up]\nschema_modes: [hidden]\nclients: [mine]\n")
	if _, err := Load("any.yaml", data, Known{}); err != nil {
		t.Fatal(err)
	}
}

// TestLoadModelAndImage: a real model and a ready image load as written, and the model joins the
// client's ID, so the scripted and the real-model cells of one agent stay apart.
func TestLoadModelAndImage(t *testing.T) {
	s, err := Load("ok.yaml", []byte(`name: t
server: {command: [my-server], install: "npm install -g my-server@1.0.0"}
tool: get_balance
faults: [clean]
schema_modes: [hidden]
clients:
  - claude-code
  - {name: claude-code, model: {name: big-model, url: "https://models.example/api"}}
  - {name: raw, image: "registry.example/team/client:1"}
`), known)
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{s.Clients[0].ID(), s.Clients[1].ID(), s.Clients[2].ID()}; !slices.Equal(got, []string{"claude-code", "claude-code:big-model", "raw"}) {
		t.Errorf("IDs %v", got)
	}
	if s.Clients[2].Image != "registry.example/team/client:1" || s.Server.Install != "npm install -g my-server@1.0.0" {
		t.Errorf("image %q, install %q", s.Clients[2].Image, s.Server.Install)
	}
}

// aliasBomb is a manifest whose arguments hold the billion laughs: levels lists of ten, each
// entry an alias of the level below, so the last level expands to 10^levels strings.
func aliasBomb(levels int) []byte {
	var b strings.Builder
	b.WriteString("name: t\nserver: {builtin: ledger}\ntool: get_balance\nfaults: [clean]\nschema_modes: [hidden]\nclients: [raw]\narguments:\n")
	b.WriteString("  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < levels; i++ {
		fmt.Fprintf(&b, "  l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 10), ", "))
	}
	return []byte(b.String())
}

// TestLoadRefusesAliasBomb: an alias bomb in arguments is refused at load, at the alias that
// crosses the budget and naming its field, and refusing it costs little memory: nothing is
// expanded (before the limit it loaded, and its arguments expanded when sent to a run).
func TestLoadRefusesAliasBomb(t *testing.T) {
	data := aliasBomb(9) // 10^9 strings once expanded
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Load("bomb.yaml", data, known)
	runtime.ReadMemStats(&after)
	want := "bomb.yaml:12:12: arguments.l4[0]: aliases expand the manifest by more than 64 KiB here (an alias bomb?); write the values out instead"
	if err == nil || err.Error() != want {
		t.Fatalf("error:\n%v\nwant:\n%s", err, want)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("refusing a %d-byte bomb allocated %d MiB", len(data), alloc>>20)
	}
	// Aliases that add a little load as before.
	if _, err := Load("small.yaml", aliasBomb(3), known); err != nil {
		t.Errorf("100 values through aliases: %v", err)
	}
}

// TestLoadSizeLimits: a manifest file over MaxFileSize is refused without being read whole, and
// arguments or decoy_args over MaxArgumentsSize as JSON are refused at their field.
func TestLoadSizeLimits(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	f, _ := os.Create(big)
	f.Truncate(50 << 20) // 50 MiB of NUL bytes, sparse: cheap to make, costly to read whole
	f.Close()
	_, err := ReadFile(big)
	if want := big + ":1:1: the manifest is 50 MiB, over the limit of 128 KiB (a manifest is a few KiB; is this the right file?)"; err == nil || err.Error() != want {
		t.Errorf("ReadFile: %v\nwant %s", err, want)
	}
	if _, err := Load("big.yaml", make([]byte, MaxFileSize+1), known); err == nil || !strings.Contains(err.Error(), "big.yaml:1:1: the manifest is 128 KiB, over the limit") {
		t.Errorf("Load: %v", err)
	}
	head := "name: t\nserver: {builtin: ledger}\ntool: get_balance\nschema_modes: [hidden]\nclients: [raw]\n"
	blob := strings.Repeat("x", MaxArgumentsSize)
	for _, tc := range []struct{ name, yaml, want string }{
		{"arguments", head + "faults: [clean]\narguments: {account_id: " + blob + "}\n",
			"args.yaml:7:1: arguments: is 64 KiB as JSON, over the limit of 64 KiB (it reaches every run in an environment variable or an argument, which Linux caps at 128 KiB)"},
		{"decoy_args", head + "faults:\n  - name: corrupt-plausible\n    decoy_args: {account_id: " + blob + "}\n",
			"args.yaml:8:5: faults[0].decoy_args: is 64 KiB as JSON, over the limit of 64 KiB"},
	} {
		_, err := Load("args.yaml", []byte(tc.yaml), known)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant %s", tc.name, err, tc.want)
		}
	}
	if data, err := ReadFile(filepath.Join("..", "..", "scenarios", "ledger.yaml")); err != nil || len(data) > MaxFileSize/32 {
		t.Errorf("the embedded scenario: %d bytes, %v; want far under the limit", len(data), err)
	}
}

// TestLoadRefusesDeepNesting: brackets, or block entries, nested past MaxNesting are refused
// where they cross it, before the parser (whose cost grows with the square of the depth) sees
// them; nesting up to it loads, and brackets inside a quoted string are text.
func TestLoadRefusesDeepNesting(t *testing.T) {
	head := "name: t\nserver: {builtin: ledger}\ntool: get_balance\nfaults: [clean]\nschema_modes: [hidden]\nclients: [raw]\n"
	deep := head + "arguments: {a: " + strings.Repeat("[", 60000) + strings.Repeat("]", 60000) + "}\n"
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Load("deep.yaml", []byte(deep), known)
	runtime.ReadMemStats(&after)
	if want := "deep.yaml:7:79: collections nested more than 64 deep; a manifest needs a few levels"; err == nil || err.Error() != want {
		t.Errorf("error: %v\nwant %s", err, want)
	}
	dashes := head + "arguments:\n  a:\n    " + strings.Repeat("- ", 60000) + "x\n"
	if _, err := Load("dashes.yaml", []byte(dashes), known); err == nil || err.Error() != "dashes.yaml:9:129: collections nested more than 64 deep; a manifest needs a few levels" {
		t.Errorf("block nesting: %v", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("refusing %d KiB of brackets allocated %d MiB", len(deep)>>10, alloc>>20)
	}
	ok := head + "arguments: {a: " + strings.Repeat("[", MaxNesting-1) + strings.Repeat("]", MaxNesting-1) + `, b: "` + strings.Repeat("[", 100) + `"}` + "\n"
	if _, err := Load("ok.yaml", []byte(ok), known); err != nil {
		t.Errorf("nesting of %d: %v", MaxNesting, err)
	}
	var block strings.Builder
	block.WriteString(head + "arguments:\n")
	for i := range MaxNesting - 3 { // with arguments and the two entries below: MaxNesting
		block.WriteString(strings.Repeat(" ", i+1) + "k:\n")
	}
	block.WriteString(strings.Repeat(" ", MaxNesting) + "- - x\n")
	if _, err := Load("block.yaml", []byte(block.String()), known); err != nil {
		t.Errorf("block nesting of %d: %v", MaxNesting, err)
	}
}
