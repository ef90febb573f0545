package tally

import (
	"encoding/json"
	"reflect"
	"strings"
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

// TestStable: a cell whose runs had more than one outcome is mixed (in memory, in results.json
// and after a merge), and a stable expectation holds where the cells it selects are not mixed,
// whatever their outcome, and is unmet, naming the cell, where one is.
func TestStable(t *testing.T) {
	sc, err := scenario.Load("m.yaml", []byte(`name: m
server: {builtin: ledger}
tool: t
faults: [clean, latency]
schema_modes: [hidden]
clients: [raw, go-sdk/call]
expect:
  - {client: raw, stable: true}
  - {client: go-sdk/call, stable: true}
  - {fault: clean, stable: true}
`), scenario.Known{Faults: []string{"clean", "latency"}, Clients: []string{"raw", "go-sdk/call"}})
	if err != nil {
		t.Fatal(err)
	}
	r := &Results{Scenario: "m"}
	for _, c := range sc.Cells() {
		r.Cells = append(r.Cells, &Cell{Cell: record.Cell{Client: c.Client.ID(), Fault: c.Fault.Name, Schema: string(c.Schema), Protocol: string(c.Protocol), Transport: string(c.Transport)}, Planned: 2})
	}
	// raw: threw twice on clean, hung twice on latency: stable; go-sdk/call's latency is mixed.
	for _, add := range []struct {
		cell    int
		outcome string
	}{{0, "threw"}, {0, "threw"}, {1, "hung"}, {1, "hung"}, {2, "passed"}, {2, "passed"}, {3, "passed"}, {3, "hung"}} {
		r.Cells[add.cell].Add(add.outcome, 1, "", "", 0)
	}
	var mixed []bool
	for _, c := range r.Cells {
		mixed = append(mixed, c.Mixed)
	}
	if !reflect.DeepEqual(mixed, []bool{false, false, false, true}) {
		t.Errorf("mixed %v, want only go-sdk/call × latency", mixed)
	}
	got := Check(sc, r)
	var states []string
	for _, e := range got {
		states = append(states, e.State())
	}
	if !reflect.DeepEqual(states, []string{Held, Unmet, Held}) {
		t.Errorf("states %v, want held, unmet, held", states)
	}
	if want := []string{"go-sdk/call × latency × hidden: hung 1/2, passed 1/2"}; !reflect.DeepEqual(got[1].Misses, want) {
		t.Errorf("misses %q, want %q", got[1].Misses, want)
	}
	if got[1].Want() != "stable" || got[1].Outcome != "" {
		t.Errorf("a stable expectation wants %q, outcome %q", got[1].Want(), got[1].Outcome)
	}

	// results.json says mixed, and a cell read back or merged from two agreeing halves that
	// disagree with each other is mixed too.
	b, err := json.Marshal(r.Cells[3])
	if err != nil {
		t.Fatal(err)
	}
	var back Cell
	if err := json.Unmarshal([]byte(`{"client":"raw","outcomes":{"passed":1,"hung":1},"runs":2}`), &back); err != nil || !back.Mixed {
		t.Errorf("a cell read from older results: mixed %v, err %v", back.Mixed, err)
	}
	if !json.Valid(b) || !bytesContain(b, `"mixed":true`) {
		t.Errorf("the mixed cell's JSON: %s", b)
	}
	half := func(o string) *Results {
		c := &Cell{Cell: r.Cells[0].Cell, Planned: 1}
		c.Add(o, 1, "", "", 0)
		return &Results{Scenario: "m", Cells: []*Cell{c}}
	}
	m, err := Merge(half("passed"), half("threw"))
	if err != nil {
		t.Fatal(err)
	}
	if !m.Cells[0].Mixed {
		t.Errorf("merged cell %s is not mixed", m.Cells[0].Counts())
	}
}

func bytesContain(b []byte, s string) bool { return strings.Contains(string(b), s) }
