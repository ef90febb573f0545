package report

import (
	"fmt"

	"github.com/toolscore/toolscore/tally"
)

// CacheLine says what of a sweep ran and what the cell cache gave: "616 cells: 12 ran, 604
// reused, server answers verified". Cells with no run in the sweep (another shard's) are not
// counted.
//
// A merge of a shard that reused its slice of a cell with one that ran its own holds cells
// partly reused: they are counted apart, with the runs the cache gave of all the runs: "4 cells:
// 0 ran, 0 reused, 4 partly reused (4 of 8 runs from the cell cache), server answers verified".
func CacheLine(r *tally.Results) string {
	cells, reused, partly, runs, runsReused := 0, 0, 0, 0, 0
	for _, c := range r.Cells {
		if c == nil || c.Runs == 0 {
			continue
		}
		cells++
		runs += c.Runs
		runsReused += c.Reused()
		switch {
		case c.PartlyReused():
			partly++
		case c.Reused() > 0:
			reused++
		}
	}
	switch {
	case reused == 0 && partly == 0:
		return fmt.Sprintf("%d %s: %d ran, none reused", cells, Plural(cells, "cell", "cells"), cells)
	case partly == 0:
		return fmt.Sprintf("%d %s: %d ran, %d reused, server answers verified", cells, Plural(cells, "cell", "cells"), cells-reused, reused)
	}
	return fmt.Sprintf("%d %s: %d ran, %d reused, %d partly reused (%d of %d runs from the cell cache), server answers verified",
		cells, Plural(cells, "cell", "cells"), cells-reused-partly, reused, partly, runsReused, runs)
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

// reusedRuns says which of a reused cell's runs the cell cache gave: "" for all of them, else
// "2 of 4 runs " (a merge of a shard that reused its slice with one that ran its own).
func reusedRuns(c *tally.Cell) string {
	if !c.PartlyReused() {
		return ""
	}
	return fmt.Sprintf("%d of %d runs ", c.Reused(), c.Runs)
}

// VolatileHint points a user whose server answers differently at what to do when its answers
// change by design.
const VolatileHint = "A tool whose answers change by design (a timestamp, an id it makes up) names those fields in its volatile: list (docs/manifest.md), and its cells are reused again."

// cacheMiss is one reason cells ran although the sweep had a cell cache, as the reports say it:
// how many cells and why, with the first; Volatile when the server answered differently.
type cacheMiss struct {
	Text     string
	Volatile bool
}

// cacheMisses say why cells ran although the sweep had a cell cache, one line a reason, esc
// escaping the text for the format; none when the sweep reused nothing and met only cells the
// cache never held (a first sweep with it: every cell runs, as it would without).
func cacheMisses(r *tally.Results, esc func(string) string) []cacheMiss {
	show := r.RunsReused > 0
	for _, m := range r.CacheMisses {
		show = show || m.Kind != tally.MissNew
	}
	if !show {
		return nil
	}
	var out []cacheMiss
	for _, m := range r.CacheMisses {
		text := fmt.Sprintf("%d %s: %s", m.Cells, Plural(m.Cells, "cell", "cells"), m.Why)
		if m.First != "" {
			text += " (first: " + m.First + ")"
		}
		out = append(out, cacheMiss{esc(text), m.Kind == tally.MissServer})
	}
	return out
}
