package tally

import (
	"fmt"

	"github.com/toolscore/toolscore/runner/scenario"
)

// Check evaluates every expect entry of the scenario against the counted cells: an entry holds
// when every finished run of every cell it selects had the expected outcome.
func Check(sc *scenario.Scenario, r *Results) []Expectation {
	byKey := map[string]*Cell{}
	for _, c := range r.Cells {
		byKey[c.Key()] = c
	}
	var out []Expectation
	for _, e := range sc.Expect {
		x := Expectation{Line: e.Line, Client: e.Client, Fault: e.Fault, Schema: e.Schema, Outcome: string(e.Outcome), Held: true}
		for _, cell := range sc.Cells() {
			if !e.Matches(cell) {
				continue
			}
			c := byKey[cell.Key()]
			if c == nil {
				if e.Client == "" || e.Client == "*" {
					continue // a wildcard speaks of the clients that ran
				}
				// The named client could not run here: the expectation cannot be said to hold.
				x.Held = false
				x.Misses = append(x.Misses, fmt.Sprintf("%s × %s × %s: not run (client unavailable)", cell.Client.ID(), cell.Fault.Name, cell.Schema))
				continue
			}
			if c.Runs == 0 {
				continue
			}
			if c.Outcome[string(e.Outcome)] != c.Runs {
				x.Held = false
				x.Misses = append(x.Misses, fmt.Sprintf("%s × %s × %s: %s", c.Client, c.Fault, c.Schema, c.Counts()))
			}
		}
		out = append(out, x)
	}
	return out
}
