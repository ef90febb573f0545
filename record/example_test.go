package record_test

import (
	"fmt"
	"strings"

	"github.com/toolscore/toolscore/record"
)

// A cell's key names it in results, baselines and diffs; its slug is the one path element its
// runs' directories take.
func ExampleCell_Key() {
	c := record.Cell{Client: "go-sdk/call", Fault: "type-swap", Schema: "published", Protocol: record.ProtocolAsIs, Transport: "stdio"}
	fmt.Println(c.Key())
	fmt.Println(record.Slug(c.Key()))
	c.Protocol = "2025-06-18"
	fmt.Println(c.Key())
	// Output:
	// go-sdk/call|type-swap|published|stdio
	// go-sdk_call__type-swap__published__stdio
	// go-sdk/call|type-swap|published|stdio|2025-06-18
}

// Line writes a run's record as runs.jsonl holds it, and ReadRuns reads the file back: a last
// line cut short, as a sweep killed while writing it leaves, is not read, and good ends
// before it, where the resumed sweep writes on.
func ExampleReadRuns() {
	var runs strings.Builder
	for n, outcome := range []record.Outcome{record.Passed, record.Threw} {
		line, err := record.Line(record.Run{
			Cell: record.Cell{Client: "raw", Fault: "truncate", Schema: "hidden", Transport: "stdio"},
			Run:  n + 1, Grade: record.Grade{Outcome: outcome},
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		runs.WriteString(string(line))
	}
	whole := runs.Len()
	runs.WriteString(`{"client":"raw","fault":"trunc`) // the kill
	good, err := record.ReadRuns(strings.NewReader(runs.String()), record.RunsFile, func(line int, r *record.Run) error {
		fmt.Printf("line %d: %s run %d %s\n", line, r.Key(), r.Run, r.Outcome)
		return nil
	})
	fmt.Println(good == int64(whole), err)
	// Output:
	// line 1: raw|truncate|hidden|stdio run 1 passed
	// line 2: raw|truncate|hidden|stdio run 2 threw
	// true <nil>
}

// A line of runs.jsonl that is not a run's record, anywhere but at the end, is an error naming
// the file and the line.
func ExampleReadRuns_notARecord() {
	runs := "{\"client\":\"raw\",\"run\":1}\n{\"client\":\"raw\",\"run\":2,\"outcome\":\"passed\"}\n"
	_, err := record.ReadRuns(strings.NewReader(runs), record.RunsFile, func(int, *record.Run) error { return nil })
	fmt.Println(err)
	// Output:
	// runs.jsonl:1: not a run's record: it has no outcome
}
