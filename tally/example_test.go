package tally_test

import (
	"fmt"
	"time"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// A cell counts its runs' outcomes; Counts says them as a person reads them, most frequent
// first, and says which planned runs never happened.
func ExampleCell_Counts() {
	c := &tally.Cell{Cell: record.Cell{Client: "ts-sdk/call", Fault: "truncate", Schema: "hidden", Transport: "stdio"}, Planned: 4}
	c.Add("passed", 1, "", "", time.Second)
	c.Add("hung", 2, "no answer in 30s", "", 30*time.Second)
	c.Add("passed", 3, "", "", time.Second)
	fmt.Println(c.Key(), "→", c.Counts())
	// Output:
	// ts-sdk/call|truncate|hidden|stdio → passed 2/3, hung 1/3 (1 of 4 not run)
}

// Diff lists the cells whose counts changed between two sweeps of a scenario: what a
// scheduled comparison against a baseline exists to catch.
func ExampleDiff() {
	sweep := func(outcomes ...string) *tally.Results {
		r := &tally.Results{Scenario: "ledger balance"}
		for i, o := range outcomes {
			c := &tally.Cell{Cell: record.Cell{Client: []string{"raw", "go-sdk/call"}[i], Fault: "type-swap", Schema: "published", Transport: "stdio"}, Planned: 3}
			for run := 1; run <= 3; run++ {
				c.Add(o, run, "", "", time.Second)
			}
			r.Cells = append(r.Cells, c)
		}
		return r
	}
	base, cur := sweep("passed", "threw"), sweep("passed", "passed")
	for _, ch := range tally.Diff(base, cur) {
		fmt.Printf("%s %s: %s → %s\n", ch.Kind, ch.Key, ch.Before, ch.After)
	}
	// Output:
	// changed go-sdk/call|type-swap|published|stdio: threw 3/3 → passed 3/3
}

// Merge adds up the shards of one sweep: each cell once, its runs counted together.
func ExampleMerge() {
	shard := func(client, outcome string) *tally.Results {
		c := &tally.Cell{Cell: record.Cell{Client: client, Fault: "clean", Schema: "hidden", Transport: "stdio"}, Planned: 2}
		c.Add(outcome, 1, "", "", time.Second)
		c.Add(outcome, 2, "", "", time.Second)
		return &tally.Results{Scenario: "ledger balance", Cells: []*tally.Cell{c}}
	}
	merged, err := tally.Merge(shard("raw", "passed"), shard("go-sdk/call", "passed"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range merged.Cells {
		fmt.Println(c.Key(), c.Counts())
	}
	// Output:
	// raw|clean|hidden|stdio passed 2/2
	// go-sdk/call|clean|hidden|stdio passed 2/2
}
