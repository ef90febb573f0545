package tally

import (
	"maps"

	"github.com/toolscore/toolscore/record"
)

// Change is a cell whose counts differ between a baseline and new results: the news a
// scheduled comparison exists to catch ("this client started validating outputSchema").
type Change struct {
	Key string `json:"key"`
	record.Cell
	// Kind is "changed", "new" (not in the baseline) or "gone" (not in the new results).
	Kind   string `json:"kind"`
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
}

// Diff lists the cells whose outcome counts differ, in the new results' order, then the gone.
func Diff(base, cur *Results) []Change {
	old := map[string]*Cell{}
	for _, c := range base.Cells {
		old[c.Key()] = c
	}
	var out []Change
	seen := map[string]bool{}
	for _, c := range cur.Cells {
		seen[c.Key()] = true
		ch := Change{Key: c.Key(), Cell: c.Cell, After: c.Counts()}
		b, ok := old[c.Key()]
		switch {
		case !ok:
			ch.Kind = "new"
		case !maps.Equal(b.Outcome, c.Outcome):
			ch.Kind, ch.Before = "changed", b.Counts()
		default:
			continue
		}
		out = append(out, ch)
	}
	for _, b := range base.Cells {
		if !seen[b.Key()] {
			out = append(out, Change{Key: b.Key(), Cell: b.Cell, Kind: "gone", Before: b.Counts()})
		}
	}
	return out
}
