package report_test

import (
	"os"
	"time"

	"github.com/toolscore/toolscore/runner/report"
	"github.com/toolscore/toolscore/runner/tally"
)

func ExampleMarkdown() {
	start := time.Date(2026, 3, 31, 12, 0, 0, 0, time.UTC)
	r := &tally.Results{
		Scenario: "ledger balance", Toolscore: "v0.1.0", Backend: "local",
		Started: start, Finished: start.Add(4 * time.Second),
		Expectations: []tally.Expectation{
			{Line: 18, Client: "go-sdk/call", Fault: "type-swap", Outcome: "passed", Held: false,
				Misses: []string{"go-sdk/call|type-swap|published|stdio: threw 3/3"}},
		},
	}
	for _, schema := range []string{"hidden", "published"} {
		for _, fault := range []string{"clean", "type-swap"} {
			for _, client := range []string{"raw", "go-sdk/call"} {
				c := &tally.Cell{Client: client, Fault: fault, Schema: schema, Transport: "stdio", Planned: 3}
				outcome, evidence := "passed", ""
				if schema == "published" && fault == "type-swap" && client == "go-sdk/call" {
					outcome, evidence = "threw", "validating tool output: balance_minor: got string, want integer"
				}
				for run := 1; run <= 3; run++ {
					c.Add(outcome, run, evidence, "", time.Second)
				}
				r.Cells = append(r.Cells, c)
			}
		}
	}
	report.Markdown(os.Stdout, r)
	// Output:
	// # toolscore: ledger balance
	//
	// **24 of 24 runs** in 8 cells · backend local · toolscore v0.1.0 · started 2026-03-31 12:00:00 UTC · took 4s
	//
	// ## Schema hidden
	//
	// | fault | raw | go-sdk/call |
	// |---|---|---|
	// | clean | passed 3/3 | passed 3/3 |
	// | type-swap | passed 3/3 | passed 3/3 |
	//
	// ## Schema published
	//
	// | fault | raw | go-sdk/call |
	// |---|---|---|
	// | clean | passed 3/3 | passed 3/3 |
	// | type-swap | passed 3/3 | threw 3/3 |
	//
	// ## Where publishing the schema changed the outcome
	//
	// - **go-sdk/call** × type-swap: passed 3/3 (hidden) → threw 3/3 (published)
	//
	// ## Unmet expectations
	//
	// 1 of 1 expectations did not hold.
	//
	// - **line 18**: client go-sdk/call, fault type-swap, schema \* → want **passed**; got: go-sdk/call\|type-swap\|published\|stdio: threw 3/3
	//   - go-sdk/call × type-swap × published: threw 3/3, first in run 1: validating tool output: balance\_minor: got string, want integer
}
