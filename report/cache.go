package report

import (
	"fmt"

	"github.com/toolscore/toolscore/tally"
)

// CacheLine says what of a sweep ran and what the cell cache gave: "616 cells: 12 ran, 604
// reused, server answers verified". Cells with no run in the sweep (another shard's) are not
// counted.
func CacheLine(r *tally.Results) string {
	cells, reused := 0, 0
	for _, c := range r.Cells {
		if c == nil || c.Runs == 0 {
			continue
		}
		cells++
		if c.ReusedFrom != nil {
			reused++
		}
	}
	if reused == 0 {
		return fmt.Sprintf("%d %s: %d ran, none reused", cells, Plural(cells, "cell", "cells"), cells)
	}
	return fmt.Sprintf("%d %s: %d ran, %d reused, server answers verified", cells, Plural(cells, "cell", "cells"), cells-reused, reused)
}

// reusedAny says whether any cell of the sweep came from the cell cache.
func reusedAny(r *tally.Results) bool {
	for _, c := range r.Cells {
		if c != nil && c.ReusedFrom != nil {
			return true
		}
	}
	return false
}

// reusedWhen is when a reused cell's own sweep started, as the reports show it.
func reusedWhen(c *tally.Cell) string {
	if c.ReusedFrom == nil {
		return ""
	}
	return c.ReusedFrom.UTC().Format("2006-01-02 15:04:05 UTC")
}
