package report

import (
	"strings"
	"testing"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// TestModelViewTable: agent cells get a table of their own, what the model was shown and how the
// answer graded, beside the SDK clients' outcomes; results without agents get none.
func TestModelViewTable(t *testing.T) {
	r := &tally.Results{Scenario: "ledger", Cells: []*tally.Cell{
		{Cell: record.Cell{Client: "ts-sdk/call", Fault: "type-swap", Schema: "published", Transport: "stdio"}, Runs: 1, Planned: 1, Outcome: map[string]int{"passed": 1}},
		{Cell: record.Cell{Client: "claude-code", Fault: "type-swap", Schema: "published", Transport: "stdio"}, Runs: 2, Planned: 2, Outcome: map[string]int{"rejected": 2},
			ModelView: map[string]int{"error": 2}, Answer: map[string]int{"no-value": 2, "flagged": 1}},
		{Cell: record.Cell{Client: "claude-code", Fault: "corrupt", Schema: "published", Transport: "stdio"}, Runs: 2, Planned: 2, Outcome: map[string]int{"passed": 2},
			ModelView: map[string]int{"structured": 2}, Answer: map[string]int{"fault-value": 2}},
	}}
	var b strings.Builder
	if err := Markdown(&b, r); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"## The model's view, schema published",
		"| fault | claude-code |",
		"| type-swap | error 2/2; no-value 2/2, flagged 1/2 |",
		"| corrupt | structured 2/2; fault-value 2/2 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "| fault | ts-sdk/call | claude-code |\n|---|---|---|\n| type-swap | passed 1/1 | rejected 2/2 |") == false {
		t.Errorf("the outcome table should still hold both clients:\n%s", md)
	}
	r.Cells = r.Cells[:1]
	b.Reset()
	_ = Markdown(&b, r)
	if strings.Contains(b.String(), "model's view") {
		t.Errorf("a sweep without agents got a model's view table:\n%s", b.String())
	}
}
