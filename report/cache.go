package report

import (
	"fmt"
	"strings"

	"github.com/toolscore/toolscore/tally"
)

// CacheLine says what of a sweep ran and what the cell cache gave: "616 cells: 12 ran, 604
// reused, server answers verified". Cells with no run in the sweep (another shard's) are not
// counted.
func CacheLine(r *tally.Results) string { return cacheLine(r, Plain) }

// cacheLine is CacheLine with the clients' names escaped by esc, for the format it goes in; it
// names the clients a local sweep did not install, and then those it did.
func cacheLine(r *tally.Results, esc func(string) string) string {
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
	line := fmt.Sprintf("%d %s: %d ran, %d reused, server answers verified", cells, Plural(cells, "cell", "cells"), cells-reused, reused)
	if len(r.NotInstalled) > 0 {
		line += "; not installed, every cell in the cache: " + esc(strings.Join(r.NotInstalled, ", "))
		if len(r.Installed) > 0 {
			line += "; installed for the cells that ran: " + esc(strings.Join(r.Installed, ", "))
		}
	}
	return line
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
