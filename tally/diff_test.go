package tally

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	base := []*Cell{
		cell("raw|clean|hidden|stdio", 3, 10, "passed:3"),
		cell("go-sdk|type-swap|published|stdio", 3, 10, "passed:3"),
		cell("go-sdk|corrupt|hidden|stdio", 3, 10, "passed:2", "hung:1"),
	}
	for _, tc := range []struct {
		name string
		cur  []*Cell
		want []string // kind key before → after
	}{
		{"same counts, other timings and order", []*Cell{
			cell("go-sdk|corrupt|hidden|stdio", 3, 99, "hung:1", "passed:2"),
			cell("go-sdk|type-swap|published|stdio", 3, 1, "passed:3"),
			cell("raw|clean|hidden|stdio", 3, 5, "passed:3"),
		}, nil},
		{"one changed", []*Cell{
			cell("raw|clean|hidden|stdio", 3, 10, "passed:3"),
			cell("go-sdk|type-swap|published|stdio", 3, 10, "threw:3"),
			cell("go-sdk|corrupt|hidden|stdio", 3, 10, "passed:2", "hung:1"),
		}, []string{"changed go-sdk|type-swap|published|stdio passed 3/3 → threw 3/3"}},
		{"a share moved", []*Cell{
			cell("raw|clean|hidden|stdio", 3, 10, "passed:3"),
			cell("go-sdk|type-swap|published|stdio", 3, 10, "passed:3"),
			cell("go-sdk|corrupt|hidden|stdio", 3, 10, "passed:1", "hung:2"),
		}, []string{"changed go-sdk|corrupt|hidden|stdio passed 2/3, hung 1/3 → hung 2/3, passed 1/3"}},
		{"more runs of the same outcome", []*Cell{
			cell("raw|clean|hidden|stdio", 5, 10, "passed:5"),
			cell("go-sdk|type-swap|published|stdio", 3, 10, "passed:3"),
			cell("go-sdk|corrupt|hidden|stdio", 3, 10, "passed:2", "hung:1"),
		}, []string{"changed raw|clean|hidden|stdio passed 3/3 → passed 5/5"}},
		{"new and gone", []*Cell{
			cell("raw|clean|hidden|stdio", 3, 10, "passed:3"),
			cell("ts-sdk|clean|hidden|stdio", 3, 10, "passed:3"),
			cell("go-sdk|corrupt|hidden|stdio", 3, 10, "passed:2", "hung:1"),
		}, []string{
			"new ts-sdk|clean|hidden|stdio  → passed 3/3",
			"gone go-sdk|type-swap|published|stdio passed 3/3 → ",
		}},
		{"nothing ran", []*Cell{
			cell("raw|clean|hidden|stdio", 3, 10),
			cell("go-sdk|type-swap|published|stdio", 3, 10, "passed:3"),
			cell("go-sdk|corrupt|hidden|stdio", 3, 10, "passed:2", "hung:1"),
		}, []string{"changed raw|clean|hidden|stdio passed 3/3 → not run"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, c := range Diff(&Results{Scenario: "s", Cells: base}, &Results{Scenario: "s", Cells: tc.cur}) {
				got = append(got, c.Kind+" "+c.Key+" "+c.Before+" → "+c.After)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("changes:\n%q\nwant:\n%q", got, tc.want)
			}
		})
	}
}

func TestBaseline(t *testing.T) {
	r := &Results{Scenario: "ledger", Toolscore: "v1", Backend: "docker", Started: t0, Cells: []*Cell{
		cell("raw|type-swap|hidden|stdio", 3, 10, "passed:3"),
		cell("go-sdk|clean|published|stdio", 3, 20, "passed:2", "hung:1"),
		cell("go-sdk|clean|hidden|stdio", 3, 30, "threw:3"),
		cell("go-sdk|clean|hidden|http", 3, 30),
	}}
	r.Cells[0].Examples = map[string]Example{"passed": {Run: 1, Tee: "runs/x/tee.jsonl"}}
	r.Cells[2].Outcome["passed"] = 0 // a zero count says nothing, and must not make files differ
	b := NewBaseline(r)
	got, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"format":"toolscore-baseline/1","scenario":"ledger","cells":[` +
		`{"client":"go-sdk","fault":"clean","schema":"hidden","transport":"http","outcomes":{}},` +
		`{"client":"go-sdk","fault":"clean","schema":"hidden","transport":"stdio","outcomes":{"threw":3}},` +
		`{"client":"go-sdk","fault":"clean","schema":"published","transport":"stdio","outcomes":{"hung":1,"passed":2}},` +
		`{"client":"raw","fault":"type-swap","schema":"hidden","transport":"stdio","outcomes":{"passed":3}}]}`
	if string(got) != want {
		t.Errorf("baseline:\n%s\nwant:\n%s", got, want)
	}
	if err := b.Check(); err != nil {
		t.Errorf("Check of a fresh baseline: %v", err)
	}
	// The baseline read back has the counts of the results it came from (whose zero count
	// Diff, like Counts, would take for an outcome seen).
	delete(r.Cells[2].Outcome, "passed")
	if ch := Diff(b.Results(), r); len(ch) != 0 {
		t.Errorf("results differ from their own baseline: %+v", ch)
	}
	if c := b.Results().Cells[2]; c.Runs != 3 || c.Planned != 3 || c.Counts() != "passed 2/3, hung 1/3" {
		t.Errorf("baseline cell as results: runs %d planned %d %s", c.Runs, c.Planned, c.Counts())
	}
}

func TestBaselineCheck(t *testing.T) {
	ok := func() *Baseline {
		return &Baseline{Format: BaselineFormat, Scenario: "ledger", Cells: []BaselineCell{
			{Client: "raw", Fault: "clean", Schema: "hidden", Transport: "stdio", Outcomes: map[string]int{"passed": 3}},
		}}
	}
	for _, tc := range []struct {
		name string
		edit func(*Baseline)
		want string
	}{
		{"format", func(b *Baseline) { b.Format = "toolscore-baseline/9" }, `format "toolscore-baseline/9" is not "toolscore-baseline/1"`},
		{"scenario", func(b *Baseline) { b.Scenario = "" }, "names no scenario"},
		{"no transport", func(b *Baseline) { b.Cells[0].Transport = "" }, "cells[0]: want client, fault, schema and transport"},
		{"twice", func(b *Baseline) { b.Cells = append(b.Cells, b.Cells[0]) }, "cells[1]: raw × clean × hidden × stdio is listed twice"},
		{"negative", func(b *Baseline) { b.Cells[0].Outcomes["threw"] = -1 }, "outcome threw counted -1 times"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := ok()
			tc.edit(b)
			if err := b.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Check = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
