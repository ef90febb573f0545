package tally

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolscore/toolscore/record"
)

var t0 = time.Date(2026, 3, 31, 12, 0, 0, 0, time.UTC)

// cell builds a cell from "outcome:count" pairs, as a sweep read back from results.json has it.
func cell(key string, planned int, medianMs int64, counts ...string) *Cell {
	p := strings.Split(key, "|")
	c := &Cell{Cell: record.Cell{Client: p[0], Fault: p[1], Schema: p[2], Transport: p[3]}, Planned: planned, Outcome: map[string]int{}, MedianMillis: medianMs}
	for _, oc := range counts {
		o, n, _ := strings.Cut(oc, ":")
		k, _ := strconv.Atoi(n)
		c.Outcome[o] += k
		c.Runs += k
	}
	return c
}

func TestMerge(t *testing.T) {
	a := &Results{
		Scenario: "ledger", Toolscore: "v1", Backend: "docker",
		Started: t0, Finished: t0.Add(time.Minute),
		Cells: []*Cell{
			cell("raw|clean|hidden|stdio", 3, 10, "passed:3"),
			cell("go-sdk|corrupt|hidden|stdio", 3, 20, "passed:2", "hung:1"),
		},
		Expectations: []Expectation{
			{Line: 12, Client: "raw", Outcome: "passed", Status: Held, Held: true},
			{Line: 14, Fault: "corrupt", Outcome: "threw", Status: Unmet, Misses: []string{"go-sdk|corrupt|hidden|stdio: passed 2/3, hung 1/3"}},
			// Unchecked in one shard (none of its runs there), held in the other: held.
			{Line: 20, Outcome: "crashed", Status: Unchecked, Unchecked: "another shard's"},
			{Line: 22, Client: "raw", Fault: "empty", Outcome: "passed", Status: Unchecked, Unchecked: "narrowed"},
		},
		Unavailable: []Unavailable{{Client: "codex", Reason: "no docker"}},
	}
	a.Cells[0].Examples = map[string]Example{"passed": {Run: 1, Evidence: "first"}}
	a.Cells[1].Library = "go-sdk v1.8.0"
	b := &Results{
		Scenario: "ledger", Toolscore: "v1", Backend: "docker",
		Started: t0.Add(-time.Hour), Finished: t0.Add(30 * time.Second), Interrupted: true,
		Cells: []*Cell{
			cell("go-sdk|corrupt|hidden|stdio", 3, 40, "threw:1"),
			cell("raw|clean|hidden|stdio", 3, 30, "passed:3"),
			cell("raw|corrupt|hidden|stdio", 3, 5, "altered:3"),
		},
		Expectations: []Expectation{
			{Line: 12, Client: "raw", Outcome: "passed", Status: Unmet, Misses: []string{"raw|clean|hidden|stdio: hung 1/3"}},
			{Line: 14, Fault: "corrupt", Outcome: "threw", Status: Unmet, Misses: []string{"raw|corrupt|hidden|stdio: altered 3/3"}},
			{Line: 20, Outcome: "crashed", Status: Held, Held: true},
			{Line: 22, Client: "raw", Fault: "empty", Outcome: "passed", Status: Unchecked, Unchecked: "narrowed too"},
		},
		Unavailable: []Unavailable{{Client: "codex", Reason: "no docker"}, {Client: "gemini", Reason: "no key"}},
	}
	b.Cells[0].Library = "go-sdk v1.9.0"
	b.Cells[1].Examples = map[string]Example{"passed": {Run: 2, Evidence: "second"}}
	before, _ := json.Marshal([]*Results{a, b})

	m, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := json.Marshal([]*Results{a, b}); string(after) != string(before) {
		t.Error("Merge changed its inputs")
	}

	var got []string
	for _, c := range m.Cells {
		got = append(got, c.Key()+" "+c.Counts())
	}
	want := []string{
		"raw|clean|hidden|stdio passed 6/6",
		"go-sdk|corrupt|hidden|stdio passed 2/4, hung 1/4, threw 1/4 (2 of 6 not run)",
		"raw|corrupt|hidden|stdio altered 3/3",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cells:\n%q\nwant:\n%q", got, want)
	}
	if ex := m.Cells[0].Examples["passed"]; ex.Evidence != "first" {
		t.Errorf("example of passed = %+v, want the first input's", ex)
	}
	if m.Cells[0].MedianMillis != 30 || m.Cells[1].MedianMillis != 20 {
		t.Errorf("medians = %d, %d; want 30 (runs 10,10,10,30,30,30) and 20 (20,20,20,40)", m.Cells[0].MedianMillis, m.Cells[1].MedianMillis)
	}
	if m.Cells[1].Library != "go-sdk v1.8.0, go-sdk v1.9.0" {
		t.Errorf("library = %q, want both versions", m.Cells[1].Library)
	}
	if !m.Started.Equal(b.Started) || !m.Finished.Equal(a.Finished) || !m.Interrupted {
		t.Errorf("started %v finished %v interrupted %v; want the earliest start, the latest finish, interrupted", m.Started, m.Finished, m.Interrupted)
	}
	if m.Toolscore != "v1" || m.Backend != "docker" {
		t.Errorf("toolscore %q backend %q, want each once", m.Toolscore, m.Backend)
	}
	wantExp := []Expectation{
		{Line: 12, Client: "raw", Outcome: "passed", Status: Unmet, Misses: []string{"raw|clean|hidden|stdio: hung 1/3"}},
		{Line: 14, Fault: "corrupt", Outcome: "threw", Status: Unmet, Misses: []string{"go-sdk|corrupt|hidden|stdio: passed 2/3, hung 1/3", "raw|corrupt|hidden|stdio: altered 3/3"}},
		{Line: 20, Outcome: "crashed", Status: Held, Held: true},
		{Line: 22, Client: "raw", Fault: "empty", Outcome: "passed", Status: Unchecked, Unchecked: "narrowed"},
	}
	if !reflect.DeepEqual(m.Expectations, wantExp) {
		t.Errorf("expectations:\n%+v\nwant:\n%+v", m.Expectations, wantExp)
	}
	wantUn := []Unavailable{{Client: "codex", Reason: "no docker"}, {Client: "gemini", Reason: "no key"}}
	if !reflect.DeepEqual(m.Unavailable, wantUn) {
		t.Errorf("unavailable = %+v, want %+v", m.Unavailable, wantUn)
	}
}

func TestMergeErrors(t *testing.T) {
	ledger := &Results{Scenario: "ledger"}
	other := &Results{Scenario: "weather"}
	for _, tc := range []struct {
		name string
		in   []*Results
		want string
	}{
		{"none", nil, "nothing to merge"},
		{"nil", []*Results{ledger, nil}, "results 2 of 2 is missing"},
		{"different scenarios", []*Results{ledger, ledger, other}, `different scenarios: "ledger" (results 1) and "weather" (results 3)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Merge(tc.in...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestMergeOne(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   *Results
	}{
		{"empty", &Results{Scenario: "s"}},
		{"live cells", func() *Results {
			c := &Cell{Cell: record.Cell{Client: "raw", Fault: "clean", Schema: "hidden", Transport: "stdio"}, Planned: 3}
			c.Add("passed", 1, "", "", 10*time.Millisecond)
			c.Add("passed", 2, "", "", 50*time.Millisecond)
			c.Add("threw", 3, "boom", "tee/3.jsonl", 30*time.Millisecond)
			return &Results{Scenario: "s", Backend: "local", Started: t0, Finished: t0, Cells: []*Cell{c}}
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Merge(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(m)
			want, _ := json.Marshal(tc.in)
			if tc.in.Cells == nil {
				want, _ = json.Marshal(&Results{Scenario: "s", Cells: []*Cell{}})
			}
			if string(got) != string(want) {
				t.Errorf("merging one results changed it:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestMergeLiveDurations(t *testing.T) {
	// Cells still in memory keep their run durations, so the merged median is exact.
	a := &Cell{Cell: record.Cell{Client: "raw", Fault: "clean", Schema: "hidden", Transport: "stdio"}, Planned: 2}
	a.Add("passed", 1, "", "", 1*time.Millisecond)
	a.Add("passed", 2, "", "", 2*time.Millisecond)
	b := &Cell{Cell: record.Cell{Client: "raw", Fault: "clean", Schema: "hidden", Transport: "stdio"}, Planned: 2}
	b.Add("passed", 1, "", "", 100*time.Millisecond)
	b.Add("passed", 2, "", "", 200*time.Millisecond)
	m, err := Merge(&Results{Scenario: "s", Cells: []*Cell{a}}, &Results{Scenario: "s", Cells: []*Cell{b}})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Cells[0].MedianMillis; got != 100 {
		t.Errorf("median = %d ms, want 100 (of 1, 2, 100, 200)", got)
	}
}

// An agent cell's model-view and answer counts add up across shards like its outcomes.
func TestMergeAgentCounts(t *testing.T) {
	shard := func(view, answer string) *Results {
		c := cell("claude-code|corrupt|hidden|stdio", 1, 1500, "passed:1")
		c.AddAgent(view, answer, "flagged")
		return &Results{Scenario: "ledger", Cells: []*Cell{c}}
	}
	m, err := Merge(shard("structured", "fault-value"), shard("structured", "truth"), &Results{Scenario: "ledger", Cells: []*Cell{cell("claude-code|corrupt|hidden|stdio", 0, 0)}})
	if err != nil {
		t.Fatal(err)
	}
	c := m.Cells[0]
	if !reflect.DeepEqual(c.ModelView, map[string]int{"structured": 2}) || !reflect.DeepEqual(c.Answer, map[string]int{"fault-value": 1, "truth": 1, "flagged": 2}) {
		t.Errorf("model_view %v, answer %v", c.ModelView, c.Answer)
	}
}

// TestExpectationFromOlderResults: results written before expectations had a status read as
// held or unmet by what held said, and a status written now is kept, with held following it.
func TestExpectationFromOlderResults(t *testing.T) {
	var es []Expectation
	if err := json.Unmarshal([]byte(`[{"line":1,"held":true},{"line":2,"held":false},{"line":3,"held":true,"status":"unchecked"}]`), &es); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, fmt.Sprintf("%s %v", e.Status, e.Held))
	}
	if want := []string{"held true", "unmet false", "unchecked false"}; !reflect.DeepEqual(got, want) {
		t.Errorf("statuses %q, want %q", got, want)
	}
}
