package tally

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenario"
)

// TestCheckSelected: expectations checked from what Select lists, after a round trip through
// JSON (as sweep.json keeps them), are what Check says with the manifest: held, unmet with its
// misses, unchecked for a cell not run, and a named client that could not run.
func TestCheckSelected(t *testing.T) {
	sc, err := scenario.Load("m.yaml", []byte(`name: m
server: {builtin: ledger}
tool: t
faults: [clean, corrupt]
schema_modes: [hidden]
clients: [raw, go-sdk/call, codex]
expect:
  - {client: raw, fault: clean, outcome: passed}
  - {fault: corrupt, outcome: threw}
  - {client: go-sdk/call, fault: clean, outcome: passed}
  - {client: codex, outcome: passed}
`), scenario.Known{Faults: []string{"clean", "corrupt"}, Clients: []string{"raw", "go-sdk/call", "codex"}})
	if err != nil {
		t.Fatal(err)
	}
	r := &Results{Scenario: "m"}
	for _, c := range sc.Cells() {
		if c.Client.ID() == "codex" {
			continue // unavailable
		}
		r.Cells = append(r.Cells, &Cell{Cell: record.Cell{Client: c.Client.ID(), Fault: c.Fault.Name, Schema: string(c.Schema), Protocol: string(c.Protocol), Transport: string(c.Transport)}, Planned: 1})
	}
	r.Cells[0].Add("passed", 1, "", "", 0) // raw × clean
	r.Cells[2].Add("passed", 1, "", "", 0) // raw × corrupt
	b, err := json.Marshal(Select(sc))
	if err != nil {
		t.Fatal(err)
	}
	var sel []Selection
	if err := json.Unmarshal(b, &sel); err != nil {
		t.Fatal(err)
	}
	want := Check(sc, r)
	if got := CheckSelected(sel, r); !reflect.DeepEqual(got, want) {
		t.Errorf("from the selection:\n%+v\nfrom the manifest:\n%+v", got, want)
	}
	var states []string
	for _, e := range want {
		states = append(states, e.State())
	}
	if !reflect.DeepEqual(states, []string{Held, Unmet, Unchecked, Unmet}) {
		t.Errorf("states %v, want held, unmet, unchecked, unmet", states)
	}
}
