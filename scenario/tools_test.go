package scenario

import (
	"reflect"
	"strings"
	"testing"
)

const twoTools = `name: two tools
server: {builtin: ledger}
prompt: What does the ledger say?
tools:
  - name: get_account_balance
    arguments: {account_id: ACC-4471}
    truth: [40718.77]
    decoy_args: {account_id: ACC-4476}
  - list_accounts
faults:
  - clean
  - corrupt-plausible
  - {name: corrupt-plausible, decoy_args: {account_id: ACC-9471}, seed: 2}
schema_modes: [hidden]
clients: [raw, claude-code]
expect:
  - {tool: list_accounts, fault: clean, outcome: passed}
`

// TestTools: a tools: list is the outermost axis of the matrix; its cells carry the tool in
// their key, each tool's own arguments, truth and prompt (the scenario's when it has none), and
// its decoy_args where the fault takes them and its entry gives none.
func TestTools(t *testing.T) {
	s, err := Load("two.yaml", []byte(strings.Replace(twoTools, "  - {name: corrupt-plausible, decoy_args: {account_id: ACC-9471}, seed: 2}\n", "", 1)), known)
	if err != nil {
		t.Fatal(err)
	}
	cells := s.Cells()
	if len(cells) != 8 || s.CellCount() != 8 {
		t.Fatalf("%d cells (CellCount %d); want 2 tools x 2 faults x 2 clients", len(cells), s.CellCount())
	}
	if k := cells[0].Key(); k != "raw|clean|hidden|stdio|tool:get_account_balance" {
		t.Errorf("first key %q", k)
	}
	if k := cells[7].Key(); k != "claude-code|corrupt-plausible|hidden|stdio|tool:list_accounts" {
		t.Errorf("last key %q", k)
	}
	balance, list := cells[2], cells[6] // raw × corrupt-plausible under each tool
	if got := balance.Fault.Options["decoy_args"]; !reflect.DeepEqual(got, map[string]any{"account_id": "ACC-4476"}) {
		t.Errorf("the balance tool's corrupt-plausible has decoy_args %v; want the tool's", got)
	}
	if list.Fault.Options != nil {
		t.Errorf("list_accounts' corrupt-plausible has options %v; want none", list.Fault.Options)
	}
	if balance.Tool.Prompt != "What does the ledger say?" || !reflect.DeepEqual(balance.Tool.Truth, []string{"40718.77"}) || list.Tool.Line != 9 {
		t.Errorf("tool entries %+v and %+v", balance.Tool, list.Tool)
	}
	e := s.Expect[0]
	if !e.Matches(cells[4]) || e.Matches(cells[0]) {
		t.Errorf("expect.tool selects %v of list_accounts and %v of the balance", e.Matches(cells[4]), e.Matches(cells[0]))
	}
	if err := s.FilterTools([]string{"list_accounts"}); err != nil || s.CellCount() != 4 {
		t.Errorf("FilterTools: %v, %d cells", err, s.CellCount())
	}
	if err := s.FilterTools([]string{"nope"}); err == nil || !strings.Contains(err.Error(), `--tools "nope": not in the scenario (tools: list_accounts)`) {
		t.Errorf("FilterTools of an unknown tool: %v", err)
	}

	// A fault entry's own decoy_args wins over the tool's.
	s, err = Load("two.yaml", []byte(strings.Replace(twoTools, "  - corrupt-plausible\n", "", 1)), known)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Cells()[2].Fault.Options["decoy_args"]; !reflect.DeepEqual(got, map[string]any{"account_id": "ACC-9471"}) {
		t.Errorf("the fault entry's decoy_args became %v", got)
	}

	// The single-tool form keeps its keys: no tool in them.
	single, err := Load("one.yaml", []byte("name: one\nserver: {builtin: ledger}\ntool: get_account_balance\nfaults: [clean]\nschema_modes: [hidden]\nclients: [raw]\n"), known)
	if err != nil {
		t.Fatal(err)
	}
	if c := single.Cells()[0]; c.Key() != "raw|clean|hidden|stdio" || c.Tool.Name != "get_account_balance" || c.Tool.Coordinate() != "" {
		t.Errorf("single-tool cell %q, tool %+v", c.Key(), c.Tool)
	}
}

// TestToolsRejects: a tools: list's problems are refused at their line, like every other field.
func TestToolsRejects(t *testing.T) {
	head := "name: x\nserver: {builtin: ledger}\n"
	tail := "faults: [clean]\nschema_modes: [hidden]\nclients: [raw]\n"
	tests := []struct{ body, want string }{
		{"tool: a\ntools: [b]\n", "bad.yaml:3:1: tool: a scenario with tools: says this for each tool, under tools[]"},
		{"tools: [b]\ntruth: [1]\n", "bad.yaml:4:1: truth: a scenario with tools: says this for each tool, under tools[]"},
		{"tools: []\n", "bad.yaml:3:1: tools: list at least one tool (each a name, or a mapping with name, arguments and truth)"},
		{"tools: [a, {name: a}]\n", `bad.yaml:3:19: tools[1].name: duplicate tool "a" (first at tools[0])`},
		{"tools:\n  - {arguments: {x: 1}}\n", "bad.yaml:4:5: tools[0].name: name the tool"},
		{"tools:\n  - {name: a, decoy_args: {x: 1}}\n", "bad.yaml:4:15: tools[0].decoy_args: no fault of the scenario takes decoy_args (corrupt-plausible does)"},
		{"tools:\n  - {name: a, output_schema: {type: array}}\n", `bad.yaml:4:37: tools[0].output_schema.type: must be "object" (MCP requires an object schema), got the string "array"`},
		{"tools:\n  - {name: a, colour: red}\n", "bad.yaml:4:15: tools[0].colour: unknown field (known: name, arguments, prompt, truth, decoy_args, output_schema, side_effects, volatile)"},
		{"tools:\n  - {name: a, volatile: [structuredContent/at]}\n", `bad.yaml:4:26: tools[0].volatile[0]: must be a JSON pointer into the tools/call result, starting with / (e.g. /structuredContent/as_of), got "structuredContent/at"`},
		{"tools: [b]\nvolatile: [/x]\n", "bad.yaml:4:1: volatile: a scenario with tools: says this for each tool, under tools[]"},
		{"tools: [a]\nexpect:\n  - {tool: b, outcome: passed}\n", `bad.yaml:8:12: expect[0].tool: "b" is not among the scenario's tools (a)`},
		{"tool: a\nexpect:\n  - {tool: a, outcome: passed}\n", "bad.yaml:8:12: expect[0].tool: the scenario calls one tool, so there is no tool to select (tool selects one of tools:)"},
	}
	for _, tt := range tests {
		body := tt.body
		var expect string
		if i := strings.Index(body, "expect:"); i >= 0 {
			body, expect = body[:i], body[i:]
		}
		_, err := Load("bad.yaml", []byte(head+body+tail+expect), known)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q:\n got %v\nwant %s", tt.body, err, tt.want)
		}
	}
}

// TestHTTPOnlyFaults: a fault of the HTTP exchange has cells on the http transport alone, and
// CellCount counts them so; a scenario with no http cell is refused at the fault's line.
func TestHTTPOnlyFaults(t *testing.T) {
	k := known
	k.Faults = append(k.Faults, "http-500")
	k.HTTPOnly = func(name string) bool { return name == "http-500" }
	k.HTTPBuiltins = []string{"ledger"}
	text := "name: x\nserver: {builtin: ledger}\ntool: t\nfaults: [clean, http-500]\nschema_modes: [hidden]\nclients: [raw, go-sdk/call]\ntransports: [stdio, http]\n"
	s, err := Load("x.yaml", []byte(text), k)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, c := range s.Cells() {
		keys = append(keys, c.Key())
	}
	want := []string{"raw|clean|hidden|stdio", "go-sdk/call|clean|hidden|stdio", "raw|clean|hidden|http", "go-sdk/call|clean|hidden|http", "raw|http-500|hidden|http", "go-sdk/call|http-500|hidden|http"}
	if !reflect.DeepEqual(keys, want) || s.CellCount() != len(want) {
		t.Errorf("cells %v (CellCount %d); want %v", keys, s.CellCount(), want)
	}
	_, err = Load("x.yaml", []byte(strings.Replace(text, "transports: [stdio, http]\n", "", 1)), k)
	if want := "x.yaml:4:17: faults[1]: http-500 is a fault of the HTTP exchange"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a stdio-only scenario with an HTTP fault: %v; want %s...", err, want)
	}
}
