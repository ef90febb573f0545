package tally

import (
	"github.com/toolscore/toolscore/runner/scenario"
)

// Check evaluates every expect entry of the scenario against the counted cells: an entry holds
// when every finished run of every cell it selects had the expected outcome and at least one
// such run took place; with none, it is unchecked, not held.
func Check(sc *scenario.Scenario, r *Results) []Expectation {
	byKey := map[string]*Cell{}
	for _, c := range r.Cells {
		byKey[c.Key()] = c
	}
	var out []Expectation
	for _, e := range sc.Expect {
		x := Expectation{Line: e.Line, Client: e.Client, Fault: e.Fault, Schema: e.Schema, Protocol: e.Protocol, Transport: e.Transport, Tool: e.Tool, Outcome: string(e.Outcome)}
		selected, ran := 0, 0
		for _, cell := range sc.Cells() {
			if !e.Matches(cell) {
				continue
			}
			selected++
			c := byKey[cell.Key()]
			if c == nil {
				if e.Client == "" || e.Client == "*" {
					continue // a wildcard speaks of the clients that ran
				}
				// The named client could not run here: the expectation cannot be said to hold.
				c := &Cell{Client: cell.Client.ID(), Fault: cell.Fault.Name, Schema: string(cell.Schema), Protocol: string(cell.Protocol), Transport: string(cell.Transport), Tool: cell.Tool.Coordinate()}
				x.Misses = append(x.Misses, c.Coordinates()+": not run (client unavailable)")
				continue
			}
			if c.Runs == 0 {
				continue
			}
			ran++
			if c.Outcome[string(e.Outcome)] != c.Runs {
				x.Misses = append(x.Misses, c.Coordinates()+": "+c.Counts())
			}
		}
		switch {
		case len(x.Misses) > 0:
			x.setStatus(Unmet)
		case ran > 0:
			x.setStatus(Held)
		case selected == 0:
			x.setStatus(Unchecked)
			x.Unchecked = "it selects no cell of this sweep (the matrix was narrowed by clients, faults, schema modes, protocols or transports)"
		default:
			x.setStatus(Unchecked)
			x.Unchecked = "no run of the cells it selects took place in this sweep (another shard's, interrupted, or their clients unavailable)"
		}
		out = append(out, x)
	}
	return out
}
