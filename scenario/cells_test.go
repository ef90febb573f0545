package scenario

import (
	"os"
	"reflect"
	"testing"

	"github.com/toolscore/toolscore/record"
)

// loadLedger loads testdata/ledger.yaml: faults clean, corrupt, latency,
// corrupt-plausible; schema modes hidden, published; clients raw and
// go-sdk/call@1.2.3.
func loadLedger(t *testing.T) *Scenario {
	t.Helper()
	data, err := os.ReadFile("testdata/ledger.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load("testdata/ledger.yaml", data, known)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func keys(cells []Cell) []string {
	var out []string
	for _, c := range cells {
		out = append(out, c.Key())
	}
	return out
}

func TestCells(t *testing.T) {
	s := loadLedger(t)
	cells := s.Cells()
	if len(cells) != 2*4*2 {
		t.Fatalf("got %d cells, want 16", len(cells))
	}
	want := []string{
		"raw|clean|hidden|stdio",
		"go-sdk/call@1.2.3|clean|hidden|stdio",
		"raw|corrupt|hidden|stdio",
		"go-sdk/call@1.2.3|corrupt|hidden|stdio",
		"raw|latency|hidden|stdio",
		"go-sdk/call@1.2.3|latency|hidden|stdio",
		"raw|corrupt-plausible|hidden|stdio",
		"go-sdk/call@1.2.3|corrupt-plausible|hidden|stdio",
		"raw|clean|published|stdio",
		"go-sdk/call@1.2.3|clean|published|stdio",
		"raw|corrupt|published|stdio",
		"go-sdk/call@1.2.3|corrupt|published|stdio",
		"raw|latency|published|stdio",
		"go-sdk/call@1.2.3|latency|published|stdio",
		"raw|corrupt-plausible|published|stdio",
		"go-sdk/call@1.2.3|corrupt-plausible|published|stdio",
	}
	if got := keys(cells); !reflect.DeepEqual(got, want) {
		t.Errorf("cell keys:\n%q\nwant:\n%q", got, want)
	}
	// A cell carries the whole fault, options included.
	if f := cells[4].Fault; f.Name != "latency" || f.Options["latency"] != "2s" || *f.Seed != 7 {
		t.Errorf("cells[4].Fault = %+v, want latency with its options", f)
	}
}

func TestFilter(t *testing.T) {
	tests := []struct {
		name                    string
		clients, faults, schema []string
		want                    []string
	}{
		{
			name: "no flags keeps everything",
			want: keys(loadLedger(t).Cells()),
		},
		{
			name:    "by client name, fault and schema",
			clients: []string{"go-sdk/call"},
			faults:  []string{"corrupt", "clean"},
			schema:  []string{"published"},
			want:    []string{"go-sdk/call@1.2.3|clean|published|stdio", "go-sdk/call@1.2.3|corrupt|published|stdio"},
		},
		{
			name:    "by client name@version",
			clients: []string{"go-sdk/call@1.2.3"},
			faults:  []string{"latency"},
			want:    []string{"go-sdk/call@1.2.3|latency|hidden|stdio", "go-sdk/call@1.2.3|latency|published|stdio"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := loadLedger(t)
			if err := s.Filter(tt.clients, tt.faults, tt.schema, nil, nil); err != nil {
				t.Fatal(err)
			}
			if got := keys(s.Cells()); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("cells after Filter:\n%q\nwant:\n%q", got, tt.want)
			}
		})
	}
}

func TestFilterRejects(t *testing.T) {
	tests := []struct {
		name                    string
		clients, faults, schema []string
		want                    string
	}{
		{
			name:    "unknown client",
			clients: []string{"ts-sdk/call"},
			want:    `--clients "ts-sdk/call": not in the scenario (clients: raw, go-sdk/call@1.2.3)`,
		},
		{
			name:   "unknown fault",
			faults: []string{"clean", "corupt"},
			want:   `--faults "corupt": not in the scenario; did you mean "corrupt"? (faults: clean, corrupt, latency, corrupt-plausible)`,
		},
		{
			name:   "schema mode not in the scenario",
			schema: []string{"as-is"},
			want:   `--schema "as-is": not in the scenario (schema modes: hidden, published)`,
		},
		{
			name:    "several at once",
			clients: []string{"go-sdk/call@1.0.0"},
			schema:  []string{"hiden"},
			want: `--clients "go-sdk/call@1.0.0": not in the scenario; did you mean "go-sdk/call@1.2.3"? (clients: raw, go-sdk/call@1.2.3)` + "\n" +
				`--schema "hiden": not in the scenario; did you mean "hidden"? (schema modes: hidden, published)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := loadLedger(t)
			before := keys(s.Cells())
			err := s.Filter(tt.clients, tt.faults, tt.schema, nil, nil)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("Filter error = %v, want:\n%s", err, tt.want)
			}
			if after := keys(s.Cells()); !reflect.DeepEqual(after, before) {
				t.Errorf("a failed Filter narrowed the matrix to %q", after)
			}
		})
	}
}

func TestExpectMatches(t *testing.T) {
	cell := Cell{
		Client:    Client{Name: "go-sdk/call", Version: "1.2.3"},
		Fault:     Fault{Name: "corrupt"},
		Schema:    SchemaPublished,
		Transport: TransportStdio,
	}
	tests := []struct {
		expect Expect
		want   bool
	}{
		{Expect{Outcome: Outcome(record.Threw)}, true},
		{Expect{Client: "*", Fault: "*", Schema: "*", Outcome: Outcome(record.Threw)}, true},
		{Expect{Client: "go-sdk/call", Outcome: Outcome(record.Threw)}, true},
		{Expect{Client: "go-sdk/call@1.2.3", Fault: "corrupt", Schema: "published", Outcome: Outcome(record.Threw)}, true},
		{Expect{Client: "go-sdk/call@1.0.0", Outcome: Outcome(record.Threw)}, false},
		{Expect{Client: "raw", Outcome: Outcome(record.Threw)}, false},
		{Expect{Fault: "clean", Outcome: Outcome(record.Threw)}, false},
		{Expect{Schema: "hidden", Outcome: Outcome(record.Threw)}, false},
	}
	for _, tt := range tests {
		if got := tt.expect.Matches(cell); got != tt.want {
			t.Errorf("%+v.Matches(%s) = %v, want %v", tt.expect, cell.Key(), got, tt.want)
		}
	}
}

func TestProtocolAxis(t *testing.T) {
	const manifest = `name: t
server: {builtin: ledger}
tool: get_balance
faults: [clean]
schema_modes: [hidden]
protocols: [as-is, 2025-11-25]
clients: [raw]
expect:
  - {protocol: 2025-11-25, outcome: passed}
`
	s, err := Load("p.yaml", []byte(manifest), known)
	if err != nil {
		t.Fatal(err)
	}
	// As-is keeps the key it had before there was a protocol axis, so old baselines still match.
	want := []string{"raw|clean|hidden|stdio", "raw|clean|hidden|stdio|2025-11-25"}
	if got := keys(s.Cells()); !reflect.DeepEqual(got, want) {
		t.Errorf("cell keys %q, want %q", got, want)
	}
	cells := s.Cells()
	if e := s.Expect[0]; e.Matches(cells[0]) || !e.Matches(cells[1]) {
		t.Errorf("expect protocol 2025-11-25 matches as-is %v, 2025-11-25 %v; want false, true", e.Matches(cells[0]), e.Matches(cells[1]))
	}
	if err := s.Filter(nil, nil, nil, []string{"2025-11-25"}, nil); err != nil {
		t.Fatal(err)
	}
	if got := keys(s.Cells()); !reflect.DeepEqual(got, want[1:]) {
		t.Errorf("after --protocols 2025-11-25: %q, want %q", got, want[1:])
	}
	err = s.Filter(nil, nil, nil, []string{"2024-11-05"}, nil)
	if wantErr := `--protocols "2024-11-05": not in the scenario (protocols: 2025-11-25)`; err == nil || err.Error() != wantErr {
		t.Errorf("Filter error %v, want %s", err, wantErr)
	}

	// A manifest without the key runs as-is alone, as before the axis.
	s = loadLedger(t)
	if !reflect.DeepEqual(s.Protocols, []Protocol{ProtocolAsIs}) {
		t.Errorf("default protocols %q, want [as-is]", s.Protocols)
	}
}

func TestTransportAxis(t *testing.T) {
	const manifest = `name: t
server: {builtin: ledger}
tool: get_balance
faults: [clean]
schema_modes: [hidden]
protocols: [as-is, 2025-11-25]
transports: [stdio, http]
clients: [raw]
expect:
  - {transport: http, outcome: passed}
`
	s, err := Load("t.yaml", []byte(manifest), known)
	if err != nil {
		t.Fatal(err)
	}
	// Stdio keeps the key it had before there was a transport axis, so old baselines still match.
	want := []string{"raw|clean|hidden|stdio", "raw|clean|hidden|http", "raw|clean|hidden|stdio|2025-11-25", "raw|clean|hidden|http|2025-11-25"}
	if got := keys(s.Cells()); !reflect.DeepEqual(got, want) {
		t.Errorf("cell keys %q, want %q", got, want)
	}
	if s.CellCount() != len(want) {
		t.Errorf("CellCount %d, want %d", s.CellCount(), len(want))
	}
	cells := s.Cells()
	if e := s.Expect[0]; e.Matches(cells[0]) || !e.Matches(cells[1]) || !e.Matches(cells[3]) {
		t.Errorf("expect transport http matches stdio %v, http %v; want false, true", e.Matches(cells[0]), e.Matches(cells[1]))
	}
	if err := s.Filter(nil, nil, nil, nil, []string{"http"}); err != nil {
		t.Fatal(err)
	}
	if got := keys(s.Cells()); !reflect.DeepEqual(got, []string{want[1], want[3]}) {
		t.Errorf("after --transports http: %q, want %q", got, []string{want[1], want[3]})
	}
	err = s.Filter(nil, nil, nil, nil, []string{"stdio"})
	if wantErr := `--transports "stdio": not in the scenario (transports: http)`; err == nil || err.Error() != wantErr {
		t.Errorf("Filter error %v, want %s", err, wantErr)
	}

	// A manifest without the key runs on stdio alone, as before the axis.
	s = loadLedger(t)
	if !reflect.DeepEqual(s.Transports, []Transport{TransportStdio}) {
		t.Errorf("default transports %q, want [stdio]", s.Transports)
	}
}

// TestServerTransports: a command server serving HTTP runs on http by default, at /mcp unless
// it says otherwise; a url server's Authorization value is read from the environment, and a
// variable that is not set is an error on the line of auth_env.
func TestServerTransports(t *testing.T) {
	s, err := Load("h.yaml", []byte(`name: t
server:
  command: [my-server, --port, "{port}"]
  http: {}
tool: get_balance
faults: [clean]
schema_modes: [hidden]
clients: [raw]
`), known)
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(s.Cells()); !reflect.DeepEqual(got, []string{"raw|clean|hidden|http"}) || s.Server.HTTPPath() != "/mcp" {
		t.Errorf("cells %q at %s, want [raw|clean|hidden|http] at /mcp", got, s.Server.HTTPPath())
	}

	s, err = Load("u.yaml", []byte(`name: t
server:
  url: https://mcp.example.com/v1/mcp
  network: host
  auth_env: MCP_TOKEN
tool: get_balance
faults: [clean]
schema_modes: [hidden]
clients: [raw]
`), known)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Transports, []Transport{TransportHTTP}) {
		t.Errorf("url server transports %q, want [http]", s.Transports)
	}
	env := map[string]string{"MCP_TOKEN": "Bearer s3cret"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	if v, err := s.Auth(lookup); v != "Bearer s3cret" || err != nil {
		t.Errorf("Auth = %q, %v; want the variable's value", v, err)
	}
	delete(env, "MCP_TOKEN")
	if _, err := s.Auth(lookup); err == nil || err.Error() != "u.yaml:5:13: server.auth_env: MCP_TOKEN is not set in toolscore's environment, where auth_env reads the Authorization header from" {
		t.Errorf("Auth without the variable: %v", err)
	}
}
