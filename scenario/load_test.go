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

	"github.com/toolscore/toolscore/fault"
)

// known is what the registries would pass; the tests use the design's catalogue.
var known = Known{
	Faults: []string{"clean", "error", "rpc-error", "empty", "truncate", "corrupt", "corrupt-plausible",
		"type-swap", "drop-required", "wrong-container", "latency"},
	Clients:  []string{"raw", "go-sdk/call", "ts-sdk/call", "python-sdk/call", "claude-code"},
	Builtins: []string{"ledger"},
	Agents:   []string{"claude-code"},
	// The real faults check their options, as toolscore run has them do.
	FaultOptions: fault.Check,
}

const knownFaults = "(known: clean, error, rpc-error, empty, truncate, corrupt, corrupt-plausible, type-swap, drop-required, wrong-container, latency)"

// TestLoadRejects loads each malformed manifest in testdata/reject under the name bad.yaml, the
// way a user's file would be named in the message, and checks every line:col it reports.
func TestLoadRejects(t *testing.T) {
	tests := []struct {
		file string // in testdata/reject
		want string
	}{
		{
			file: "empty-file.yaml",
			want: "bad.yaml:1:1: the manifest is empty",
		},
		{
			file: "only-comments.yaml",
			want: "bad.yaml:1:1: the manifest is empty",
		},
		{
			file: "syntax-error.yaml",
			want: "bad.yaml:2:9: sequence end token ']' not found",
		},
		{
			file: "two-documents.yaml",
			want: "bad.yaml:2:1: a manifest holds one YAML document, and another one starts here",
		},
		{
			file: "not-a-mapping.yaml",
			want: "bad.yaml:1:1: expected a mapping, got a list",
		},
		{
			file: "unknown-top-level-field.yaml",
			want: "bad.yaml:7:1: runz: unknown field (known: name, server, tool, tools, arguments, prompt, truth, output_schema, side_effects, volatile, faults, schema_modes, protocols, transports, clients, runs, timeout, parallel, expect, sandbox)",
		},
		{
			file: "duplicate-key.yaml",
			want: "bad.yaml:4:1: name: duplicate key (already set on line 1)",
		},
		{
			file: "undefined-alias.yaml",
			want: "bad.yaml:4:12: arguments: alias *args refers to no anchor defined above it",
		},
		{
			file: "missing-name-tool-and-server.yaml",
			want: "bad.yaml:1:1: name: missing (give the scenario a name)\n" +
				"bad.yaml:1:1: server: missing (builtin: ledger, command: [program, args...], or url: https://...)\n" +
				"bad.yaml:1:1: tool: missing (name the tool every run calls)",
		},
		{
			file: "empty-tool.yaml",
			want: "bad.yaml:3:7: tool: must not be empty",
		},
		{
			file: "server-with-builtin-and-command.yaml",
			want: "bad.yaml:2:1: server: builtin and command cannot be combined; pick one",
		},
		{
			file: "server-with-neither.yaml",
			want: "bad.yaml:2:1: server: say how to start the server (builtin: ledger, command: [program, args...], or url: https://...)",
		},
		{
			file: "unknown-builtin.yaml",
			want: `bad.yaml:3:12: server.builtin: unknown builtin server "ledgr"; did you mean "ledger"? (known: ledger)`,
		},
		{
			file: "env-on-a-url.yaml",
			want: "bad.yaml:4:3: server.env: only applies to a command or builtin server",
		},
		{
			file: "env-with-a-bad-name-a-reserved-one-a-bad-from-env-and-a-mapping-without-one.yaml",
			want: `bad.yaml:5:5: server.env.BAD-NAME: "BAD-NAME" is not an environment variable name` + "\n" +
				`bad.yaml:6:5: server.env.TOOLSCORE_SERVER: TOOLSCORE_ variables are the client contract's; give the server another name` + "\n" +
				`bad.yaml:7:21: server.env.KEY.from_env: "not a name" is not an environment variable name` + "\n" +
				`bad.yaml:8:5: server.env.OTHER: write a string, or {from_env: NAME} to pass the runner's variable NAME on`,
		},
		{
			file: "env-from-env-misspelt.yaml",
			want: "bad.yaml:4:15: server.env.KEY.from_envv: unknown field (known: from_env)",
		},
		{
			file: "env-value-is-a-list.yaml",
			want: "bad.yaml:5:5: server.env.KEY: expected a string or {from_env: NAME}, got a list",
		},
		{
			file: "empty-command.yaml",
			want: "bad.yaml:3:3: server.command: must name the program to run",
		},
		{
			file: "command-is-a-string.yaml",
			want: `bad.yaml:3:12: server.command: expected a list, got the string "./server --stdio"`,
		},
		{
			file: "unknown-fault.yaml",
			want: `bad.yaml:7:5: faults[2]: unknown fault "corupt"; did you mean "corrupt"? ` + knownFaults,
		},
		{
			file: "unknown-fault-in-the-mapping-form.yaml",
			want: `bad.yaml:5:11: faults[0].name: unknown fault "latencyy"; did you mean "latency"? ` + knownFaults,
		},
		{
			file: "fault-without-a-name.yaml",
			want: "bad.yaml:6:5: faults[1]: name is missing",
		},
		{
			file: "empty-fault-entry.yaml",
			want: "bad.yaml:6:3: faults[1]: empty entry (write a fault name)",
		},
		{
			file: "fault-written-as-a-list.yaml",
			want: "bad.yaml:5:5: faults[0]: expected a fault name or a mapping with a name, got a list",
		},
		{
			file: "misspelt-fault-option.yaml",
			want: "bad.yaml:7:5: faults[1].probabilty: unknown field (known: name, probability, nth, seed, message)",
		},
		{
			file: "probability-above-1.yaml",
			want: "bad.yaml:6:18: faults[0].probability: must be between 0 and 1, got 1.5",
		},
		{
			file: "probability-as-a-word.yaml",
			want: `bad.yaml:6:18: faults[0].probability: expected a number, got the string "often"`,
		},
		{
			file: "nth-zero-and-seed-fractional.yaml",
			want: "bad.yaml:5:24: faults[0].nth: must be 1 or more, got 0\n" +
				"bad.yaml:5:33: faults[0].seed: expected a whole number, got the number 1.5",
		},
		{
			file: "bad-latency.yaml",
			want: `bad.yaml:6:14: faults[0].latency: want a duration like 2s or 150ms, got "2 seconds"`,
		},
		{
			file: "negative-latency.yaml",
			want: `bad.yaml:6:14: faults[0].latency: must not be negative, got -1s`,
		},
		{
			file: "option-on-a-fault-without-options.yaml",
			want: `bad.yaml:7:5: faults[1].latency: unknown field (known: name, probability, nth, seed)`,
		},
		{
			file: "decoy-args-not-a-mapping.yaml",
			want: `bad.yaml:6:17: faults[0].decoy_args: want the tool's arguments as an object, like {"account_id": "ACC-4476"}` + "\n" +
				`bad.yaml:7:5: faults[0].latency: unknown field (known: name, probability, nth, seed, decoy_args)`,
		},
		{
			file: "duplicate-fault.yaml",
			want: `bad.yaml:7:11: faults[2].name: duplicate fault "clean" (first at faults[0])`,
		},
		{
			file: "no-faults.yaml",
			want: "bad.yaml:4:1: faults: the matrix needs at least one fault " + knownFaults,
		},
		{
			file: "schema-modes-is-a-string.yaml",
			want: `bad.yaml:5:15: schema_modes: expected a list, got the string "hidden"`,
		},
		{
			file: "unknown-and-duplicate-protocols.yaml",
			want: `bad.yaml:6:25: protocols[1]: unknown protocol "2025-11-26" (known: as-is, 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)` + "\n" +
				`bad.yaml:6:37: protocols[2]: duplicate protocol "2025-11-25" (first at protocols[0])`,
		},
		{
			file: "expectation-outside-the-protocols.yaml",
			want: `bad.yaml:9:16: expect[0].protocol: "2025-06-18" is not among the scenario's protocols (2026-07-28)`,
		},
		{
			file: "unknown-and-duplicate-transports.yaml",
			want: `bad.yaml:6:20: transports[1]: unknown transport "sse" (known: stdio, http)` + "\n" +
				`bad.yaml:6:25: transports[2]: duplicate transport "http" (first at transports[0])`,
		},
		{
			file: "expectation-outside-the-transports.yaml",
			want: `bad.yaml:8:17: expect[0].transport: "http" is not among the scenario's transports (stdio)`,
		},
		{
			file: "http-on-a-stdio-command.yaml",
			want: `bad.yaml:6:21: transports[1]: the command server serves stdio; to run it on http, give server.http (e.g. http: {path: /mcp}) and {port} in the argument naming its port`,
		},
		{
			file: "http-command-without-a-port-run-on-stdio.yaml",
			want: `bad.yaml:3:3: server.command: the server serves HTTP (server.http), so an argument must carry {port}, where the proxy writes the loopback port it picked (e.g. --port, "{port}")` + "\n" +
				`bad.yaml:4:16: server.http.path: must start with / (the path of the MCP endpoint, e.g. /mcp), got "mcp"` + "\n" +
				`bad.yaml:8:14: transports[0]: the command server serves HTTP (server.http), so its cells run on http alone`,
		},
		{
			file: "url-server-with-credentials-no-network-and-stdio.yaml",
			want: `bad.yaml:2:1: server: a url server's cells need a network to reach it (network: host, bridge or a Docker network's name); the other cells keep none` + "\n" +
				`bad.yaml:3:8: server.url: must not carry credentials (name the variable holding the Authorization header in auth_env)` + "\n" +
				`bad.yaml:4:13: server.auth_env: "MCP-TOKEN" is not an environment variable name` + "\n" +
				`bad.yaml:8:20: transports[1]: a url server is reached over http alone`,
		},
		{
			file: "remote-settings-on-a-builtin.yaml",
			want: `bad.yaml:4:3: server.http: only applies to a command server` + "\n" +
				`bad.yaml:5:12: server.network: only applies to a url server` + "\n" +
				`bad.yaml:6:13: server.auth_env: only applies to a url server`,
		},
		{
			file: "no-protocols.yaml",
			want: `bad.yaml:6:1: protocols: the matrix needs at least one protocol (known: as-is, 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)`,
		},
		{
			file: "unknown-and-duplicate-schema-modes.yaml",
			want: `bad.yaml:5:24: schema_modes[1]: unknown schema mode "hiden"; did you mean "hidden"? (known: hidden, published, as-is)` + "\n" +
				`bad.yaml:5:31: schema_modes[2]: duplicate schema mode "hidden" (first at schema_modes[0])`,
		},
		{
			file: "no-schema-modes.yaml",
			want: "bad.yaml:1:1: schema_modes: the matrix needs at least one schema mode (known: hidden, published, as-is)",
		},
		{
			file: "unknown-client.yaml",
			want: `bad.yaml:8:11: clients[1].name: unknown client "go-sdk" (known: raw, go-sdk/call, ts-sdk/call, python-sdk/call, claude-code)`,
		},
		{
			file: "duplicate-client.yaml",
			want: `bad.yaml:9:11: clients[2].name: duplicate client "raw" (first at clients[0])`,
		},
		{
			file: "misspelt-client-field.yaml",
			want: "bad.yaml:7:25: clients[0].versoin: unknown field (known: name, version, image, model, retries, cache, runtime, command, install, files, agent)",
		},
		{
			file: "model-on-an-sdk-client.yaml",
			want: `bad.yaml:8:5: clients[0].model: only an agent takes a model; "go-sdk/call" is not one (agents: claude-code)`,
		},
		{
			file: "model-without-a-usable-url-or-key-variable.yaml",
			want: `bad.yaml:10:12: clients[0].model.url: the model needs the base URL of the vendor's API (http or https), got "vendor.example/v1"` + "\n" +
				`bad.yaml:11:16: clients[0].model.key_env: "MY-KEY" is not an environment variable name`,
		},
		{
			file: "image-on-a-builtin-server.yaml",
			want: `bad.yaml:2:1: server: builtin and image cannot be combined; pick one` + "\n" +
				`bad.yaml:2:34: server.image: only applies to a command server`,
		},
		{
			file: "image-without-a-command-with-an-install.yaml",
			want: `bad.yaml:3:10: server.image: give server.command too: the server's program and arguments in the image (its entrypoint is not read)` + "\n" +
				`bad.yaml:4:12: server.install: does not apply to an image server: install the server in its image`,
		},
		{
			file: "image-not-a-reference.yaml",
			want: `bad.yaml:3:10: server.image: "my server" is not an image reference (NAME[:TAG] or NAME@DIGEST): invalid reference format`,
		},
		{
			file: "install-on-a-builtin-server.yaml",
			want: `bad.yaml:2:36: server.install: only applies to a command server`,
		},
		{
			file: "unknown-fields-everywhere.yaml",
			want: "bad.yaml:2:1: sever: unknown field (known: name, server, tool, tools, arguments, prompt, truth, output_schema, side_effects, volatile, faults, schema_modes, protocols, transports, clients, runs, timeout, parallel, expect, sandbox)\n" +
				"bad.yaml:3:27: server.instal: unknown field (known: builtin, command, http, url, auth_env, network, env, image, install)\n" +
				"bad.yaml:8:17: clients[0].verison: unknown field (known: name, version, image, model, retries, cache, runtime, command, install, files, agent)\n" +
				"bad.yaml:10:49: clients[1].model.keyenv: unknown field (known: name, url, key_env, network)\n" +
				"bad.yaml:11:11: sandbox.memory: unknown field (known: network, memory_mb, cpus, pids, nofile, user, keep_capabilities)\n" +
				"bad.yaml:13:33: expect[0].outcom: unknown field (known: client, fault, schema, protocol, transport, tool, outcome, stable)",
		},
		{
			file: "timeout-below-a-second.yaml",
			want: "bad.yaml:7:10: timeout: must be 1s or more (a run starts a proxy, a server and a client), got 1ns",
		},
		{
			file: "runs-below-one.yaml",
			want: "bad.yaml:7:7: runs: must be 1 or more, got 0",
		},
		{
			file: "runs-as-a-word.yaml",
			want: `bad.yaml:7:7: runs: expected a whole number, got the string "three"`,
		},
		{
			file: "runs-fractional.yaml",
			want: "bad.yaml:7:7: runs: expected a whole number, got the number 2.5",
		},
		{
			file: "timeout-without-a-unit.yaml",
			want: "bad.yaml:7:10: timeout: expected a duration like 30s or 1m30s, got the number 30",
		},
		{
			file: "zero-timeout-and-parallel.yaml",
			want: "bad.yaml:7:10: timeout: must be 1s or more (a run starts a proxy, a server and a client), got 0s\n" +
				"bad.yaml:8:11: parallel: must be 1 or more, got 0",
		},
		{
			file: "empty-and-duplicate-truth.yaml",
			want: "bad.yaml:4:21: truth[1]: must not be empty (every answer would contain it)\n" +
				`bad.yaml:4:25: truth[2]: duplicate value "40718.77" (first at truth[0])`,
		},
		{
			file: "output-schema-not-an-object.yaml",
			want: `bad.yaml:5:9: output_schema.type: must be "object" (MCP requires an object schema), got the string "array"`,
		},
		{
			file: "unknown-outcome.yaml",
			want: `bad.yaml:9:14: expect[0].outcome: unknown outcome "pass"; did you mean "passed"? (known: passed, altered, threw, rpc-error, hung, crashed, oom-killed, server-exited, rejected)`,
		},
		{
			file: "missing-outcome.yaml",
			want: "bad.yaml:8:5: expect[0]: outcome is missing: write one, or stable: true (known: passed, altered, threw, rpc-error, hung, crashed, oom-killed, server-exited, rejected)",
		},
		{
			file: "stable-misused.yaml",
			want: "bad.yaml:8:58: expect[0].stable: an outcome already asks that every run agree: write the outcome or stable: true, not both\n" +
				"bad.yaml:9:43: expect[1].stable: false asks nothing: write stable: true, or leave it out\n" +
				"bad.yaml:11:5: expect[3]: duplicate of expect[2] (same client, fault, schema, protocol and transport)",
		},
		{
			file: "stable-not-a-boolean.yaml",
			want: `bad.yaml:8:27: expect[0].stable: expected true or false, got the string "yes"`,
		},
		{
			file: "expectation-outside-the-matrix.yaml",
			want: `bad.yaml:8:14: expect[0].client: "ts-sdk/call" is not among the scenario's clients (raw, go-sdk/call)` + "\n" +
				`bad.yaml:9:13: expect[1].fault: "latency" is not among the scenario's faults (clean, corrupt)` + "\n" +
				`bad.yaml:10:14: expect[2].schema: "published" is not among the scenario's schema modes (hidden)`,
		},
		{
			file: "duplicate-expectation.yaml",
			want: "bad.yaml:9:5: expect[1]: duplicate of expect[0] (same client, fault, schema, protocol and transport)",
		},
		{
			file: "defined-client-shadowing-a-built-in.yaml",
			want: "bad.yaml:7:11: clients[0].name: shadows the built-in client raw; pick another name",
		},
		{
			// Two defined clients of one name would be one column whose runs share directories.
			file: "defined-client-twice.yaml",
			want: `bad.yaml:8:12: clients[1].name: duplicate client "acme" (first at clients[0])`,
		},
		{
			file: "built-in-client-with-agent.yaml",
			want: "bad.yaml:8:5: clients[0].agent: agent defines a client: pick a name not taken by a built-in (without it, go-sdk/call is toolscore's own)",
		},
		{
			file: "defined-client-with-an-unknown-runtime-and-none.yaml",
			want: `bad.yaml:8:14: clients[0].runtime: unknown runtime "ruby" (known: node, python, binary)` + "\n" +
				"bad.yaml:10:5: clients[1]: runtime is missing: a client you define says what it needs to run (known: node, python, binary)\n" +
				"bad.yaml:11:15: clients[1].command[0]: ./other does not exist in the manifest's folder (a path in command is from there)",
		},
		{
			file: "defined-client-command-files.yaml",
			want: "bad.yaml:9:24: clients[0].command[1]: harness/nope.py does not exist in the manifest's folder (a path in command is from there)\n" +
				`bad.yaml:9:41: clients[0].command[2]: "../outside.py" leaves the manifest's folder: a command's files are the folder's own, which is what the client's install copies` + "\n" +
				"bad.yaml:9:56: clients[0].command[3]: ./testdata is a folder; command names a file of the manifest's folder\n" +
				"bad.yaml:10:32: clients[0].install[1]: must not be empty\n" +
				"bad.yaml:11:13: clients[0].files[0]: nope/ does not exist in the manifest's folder (a path in files is from there)\n" +
				`bad.yaml:11:20: clients[0].files[1]: "../up.txt" leaves the manifest's folder: the client's files are the folder's own, which is what its install copies` + "\n" +
				"bad.yaml:11:31: clients[0].files[2]: must not be empty",
		},
		{
			file: "defined-client-without-a-command-and-with-a-built-ins-settings.yaml",
			want: "bad.yaml:7:5: clients[0]: command is missing: a client you define needs the command that runs its adapter, e.g. [python3, harness/acme.py]\n" +
				"bad.yaml:9:5: clients[0].version: not for a client you define: a version pins a built-in client's library; your client installs what its install steps say\n" +
				"bad.yaml:11:5: clients[0].model: not for a client you define: a real model is for a built-in agent; a defined agent talks to the scripted model at TOOLSCORE_MODEL_URL\n" +
				"bad.yaml:12:5: clients[1]: command is missing: a client you define needs the command that runs its adapter, e.g. [python3, harness/acme.py]\n" +
				`bad.yaml:12:11: clients[1].name: "a/b" cannot name a client you define: use letters, digits, '.', '_' and '-' (no '/', '@' or ':')`,
		},
		{
			file: "several-problems-in-file-order.yaml",
			want: `bad.yaml:4:17: faults[1]: unknown fault "corupt"; did you mean "corrupt"? ` + knownFaults + "\n" +
				`bad.yaml:5:16: schema_modes[0]: unknown schema mode "hiden"; did you mean "hidden"? (known: hidden, published, as-is)` + "\n" +
				`bad.yaml:6:11: clients[0]: unknown client "rav"; did you mean "raw"? (known: raw, go-sdk/call, ts-sdk/call, python-sdk/call, claude-code)` + "\n" +
				"bad.yaml:7:7: runs: must be 1 or more, got 0",
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "reject", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			s, err := Load("bad.yaml", data, known)
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
  - {name: corrupt-plausible, decoy_args: {account_id: ACC-4476, page: 2}}
  - name: latency
    latency: 1500ms
    probability: 0.25
    nth: 2
    seed: -7
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
		{Name: "corrupt-plausible", Options: map[string]any{"decoy_args": map[string]any{"account_id": "ACC-4476", "page": uint64(2)}}, Line: 6},
		{Name: "latency", Options: map[string]any{"latency": "1500ms"}, Probability: &quarter, Nth: 2, Seed: &seed, Line: 7},
	}
	if !reflect.DeepEqual(s.Faults, wantFaults) {
		t.Errorf("Faults = %+v\nwant %+v", s.Faults, wantFaults)
	}
	wantClients := []Client{{Name: "raw", Line: 14}, {Name: "go-sdk/call", Version: "1.8.0", Line: 15}}
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
	if _, err := Load("big.yaml", make([]byte, MaxFileSize+1), known); err == nil || !strings.Contains(err.Error(), "big.yaml:1:1: the manifest is over the limit of 128 KiB (") {
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
	if data, err := ReadFile(filepath.Join("..", "scenarios", "ledger.yaml")); err != nil || len(data) > MaxFileSize/32 {
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

// TestLoadDefinedClientLinks: a command file the install would not copy, a link out of the
// manifest's folder or a file in a linked folder, is refused at its line:col; a link to a file
// inside the folder is fine (the install copies it as that file).
func TestLoadDefinedClientLinks(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	for _, p := range []string{filepath.Join(outside, "acme.py"), filepath.Join(dir, "real.py")} {
		if err := os.WriteFile(p, []byte("print()\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{"out.py": filepath.Join(outside, "acme.py"), "in.py": "real.py", "harness": outside} {
		if err := os.Symlink(to, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	head := "name: t\nserver: {builtin: ledger}\ntool: get_balance\nfaults: [clean]\nschema_modes: [hidden]\nclients:\n  - name: acme\n    runtime: python\n"
	for command, want := range map[string]string{
		"[python3, ./in.py]":         "",
		"[python3, ./out.py]":        "m.yaml:9:24: clients[0].command[1]: ./out.py is a link to " + filepath.Join(outside, "acme.py") + ", outside the manifest's folder: the client's install copies the folder's own files, and links to files in it; copy the file in",
		"[python3, harness/acme.py]": "m.yaml:9:24: clients[0].command[1]: harness/acme.py is in a folder that is a link: the client's install copies the folder's own files, and links to files in it; copy the file in",
	} {
		_, err := Load(filepath.Join(dir, "m.yaml"), []byte(head+"    command: "+command+"\n"), known)
		if got := fmt.Sprint(err); (want == "" && err != nil) || (want != "" && !strings.HasSuffix(got, want)) {
			t.Errorf("command %s: %v\nwant %q", command, err, want)
		}
	}
}

// TestLoadDefinedClient loads a manifest beside the files its own client's command names: the
// client is defined, its name is known to the expectations, and a built-in beside it is not.
func TestLoadDefinedClient(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "harness"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "harness", "acme.py"), []byte("print()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := []byte(`name: t
server: {builtin: ledger}
tool: get_balance
faults: [clean]
schema_modes: [hidden]
clients:
  - raw
  - name: acme-agent
    runtime: python
    command: [python3, harness/acme.py, --flag]
    install: [pip install nothing]
    agent: true
expect:
  - {client: acme-agent, outcome: passed}
`)
	s, err := Load(filepath.Join(dir, "m.yaml"), data, known)
	if err != nil {
		t.Fatal(err)
	}
	if s.Clients[0].Defined() {
		t.Errorf("raw is Defined")
	}
	c := s.Clients[1]
	want := Client{Name: "acme-agent", Runtime: "python", Command: []string{"python3", "harness/acme.py", "--flag"},
		Install: []string{"pip install nothing"}, Agent: true, Line: 8}
	c.installAt = position{}
	if !c.Defined() || !reflect.DeepEqual(c, want) {
		t.Errorf("clients[1] = %+v, want %+v, defined", c, want)
	}
	if err := s.InstallError(s.Clients[1], errors.New("install step \"x\" failed")).Error(); err != filepath.Join(dir, "m.yaml")+`:11:5: clients[1].install: installing acme-agent: install step "x" failed` {
		t.Errorf("InstallError = %s", err)
	}
	if !IsManifestFile("harness/acme.py") || !IsManifestFile("./acme") || IsManifestFile("python3") || IsManifestFile("/usr/bin/env") {
		t.Errorf("IsManifestFile tells files of the folder wrongly")
	}
}

// TestErrorsAfterLoadAtTheValue places the errors the sweep finds after loading (issue 52, item
// 3): a tool the server does not list at its name's column (4:7, not the key's 4:1), in either
// form; a server command that cannot start at its program, a url nothing answers at at the url.
func TestErrorsAfterLoadAtTheValue(t *testing.T) {
	load := func(body string) *Scenario {
		t.Helper()
		s, err := Load("m.yaml", []byte(body), known)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	rest := "faults: [clean]\nschema_modes: [hidden]\nclients: [raw]\n"
	s := load("name: x\nserver:\n  command: [no-such-server, --stdio]\ntool: get_balanse\n" + rest)
	for _, c := range []struct{ got, want string }{
		{s.CallError(s.Calls()[0], false, "not listed").Error(), "m.yaml:4:7: tool: not listed"},
		{s.CallError(s.Calls()[0], true, "misfit").Error(), "m.yaml:4:7: tool: misfit"},
		{s.ServerError("cannot start").Error(), "m.yaml:3:13: server.command[0]: cannot start"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	s = load("name: x\nserver: {url: 'http://127.0.0.1:9/mcp', network: host}\ntools:\n  - name: get_sum\n    arguments: {a: 1}\n  - echo\n" + rest)
	for _, c := range []struct{ got, want string }{
		{s.CallError(s.Calls()[0], false, "not listed").Error(), "m.yaml:4:11: tools[0].name: not listed"},
		{s.CallError(s.Calls()[0], true, "misfit").Error(), "m.yaml:5:5: tools[0].arguments: misfit"},
		{s.CallError(s.Calls()[1], false, "not listed").Error(), "m.yaml:6:5: tools[1]: not listed"},
		{s.ServerError("unreachable").Error(), "m.yaml:2:15: server.url: unreachable"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
