package tally

import (
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenario"
)

// Selection is an expect entry with the cells of the matrix it selects: all that checking it
// needs of the scenario, so a sweep's plan (sweep.json) can check it again without the manifest.
type Selection struct {
	// Expectation is the entry, not yet checked (a field, not embedded: its UnmarshalJSON
	// would read the whole selection).
	Expectation Expectation   `json:"expectation"`
	Cells       []record.Cell `json:"cells"`
}

// Check evaluates every expect entry of the scenario against the counted cells: an entry holds
// when every finished run of every cell it selects had the expected outcome (for a stable
// one, when no cell it selects is mixed) and at least one such run took place; with none, it
// is unchecked, not held.
func Check(sc *scenario.Scenario, r *Results) []Expectation {
	return CheckSelected(Select(sc), r)
}

// Select lists the scenario's expect entries with the cells each selects.
func Select(sc *scenario.Scenario) []Selection {
	var out []Selection
	for _, e := range sc.Expect {
		s := Selection{Expectation: Expectation{Line: e.Line, Client: e.Client, Fault: e.Fault, Schema: e.Schema, Protocol: e.Protocol, Transport: e.Transport, Tool: e.Tool, Outcome: string(e.Outcome), Stable: e.Stable}}
		for _, cell := range sc.Cells() {
			if e.Matches(cell) {
				s.Cells = append(s.Cells, cell.Coordinates())
			}
		}
		out = append(out, s)
	}
	return out
}

// CheckSelected is Check over expect entries that Select listed.
func CheckSelected(sel []Selection, r *Results) []Expectation {
	byKey := map[string]*Cell{}
	for _, c := range r.Cells {
		byKey[c.Key()] = c
	}
	var out []Expectation
	for _, s := range sel {
		x := s.Expectation
		x.Misses, x.Unchecked = nil, ""
		ran := 0
		for _, sc := range s.Cells {
			c := byKey[sc.Key()]
			if c == nil {
				if x.Client == "" || x.Client == "*" {
					continue // a wildcard speaks of the clients that ran
				}
				// The named client could not run here: the expectation cannot be said to hold.
				x.Misses = append(x.Misses, (&Cell{Cell: sc}).Coordinates()+": not run (client unavailable)")
				continue
			}
			if c.Runs == 0 {
				continue
			}
			ran++
			if x.Breaks(c) {
				x.Misses = append(x.Misses, c.Coordinates()+": "+c.Counts())
			}
		}
		switch {
		case len(x.Misses) > 0:
			x.setStatus(Unmet)
		case ran > 0:
			x.setStatus(Held)
		case len(s.Cells) == 0:
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
