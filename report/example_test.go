package report_test

import (
	"fmt"
	"os"
	"time"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/tally"
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
				c := &tally.Cell{Cell: record.Cell{Client: client, Fault: fault, Schema: schema, Transport: "stdio"}, Planned: 3}
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
	// The 1 expectation did not hold.
	//
	// - **line 18**: client go-sdk/call, fault type-swap, schema \* → want **passed**; got: go-sdk/call\|type-swap\|published\|stdio: threw 3/3
	//   - go-sdk/call × type-swap × published: threw 3/3, first in run 1: validating tool output: balance\_minor: got string, want integer
}

func ExampleEscapeMarkdown() {
	// What a hostile tool result might put in an exception message, as a table cell shows it.
	fmt.Printf("%q\n", report.EscapeMarkdown("bad | <b>cell</b>\ncc @maintainer, see [docs](https://evil.example)"))
	// Output:
	// "bad \\| &lt;b&gt;cell&lt;/b&gt; cc @\u200dmaintainer, see \\[docs\\](https:\u200d//evil.example)"
}

func ExampleText() {
	r := &tally.Results{Scenario: "ledger balance", Backend: "local"}
	for _, client := range []string{"raw", "go-sdk/call"} {
		c := &tally.Cell{Cell: record.Cell{Client: client, Fault: "latency", Schema: "hidden", Transport: "stdio"}, Planned: 3}
		c.Add("passed", 1, "", "", time.Second)
		c.Add("passed", 2, "", "", time.Second)
		if client == "raw" {
			c.Add("hung", 3, "no answer in 30s", "", 30*time.Second)
		}
		r.Cells = append(r.Cells, c)
	}
	report.Text(os.Stdout, r)
	// Output:
	// ledger balance: 5 of 6 runs in 2 cells, backend local
	//
	// Mixed: the runs of 1 cell disagree (on a busy machine that may be the load, not the client):
	//   raw × latency × hidden
	//
	// Outcomes, schema hidden
	// fault    raw                           go-sdk/call
	// -------  ----------------------------  ---------------------------
	// latency  passed 2/3, hung 1/3 (mixed)  passed 2/2 (1 of 3 not run)
}
