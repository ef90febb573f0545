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
		if c.Runs == 0 {
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
