package report

import (
	"strings"

	"github.com/toolscore/toolscore/tally"
)

// cacheLine is CacheLine followed, when a local sweep left clients uninstalled (every cell of
// each in the cell cache), by which, and by which it installed for the cells that ran: "8
// cells: 4 ran, 4 reused, server answers verified; not installed, every cell in the cache: one;
// installed for the cells that ran: two". esc escapes the clients' names for the format.
func cacheLine(r *tally.Results, esc func(string) string) string {
	line := CacheLine(r)
	if len(r.NotInstalled) > 0 {
		line += "; not installed, every cell in the cache: " + esc(strings.Join(r.NotInstalled, ", "))
	}
	// Said also when every client had a cell to run: a sweep that reused cells says why it
	// installed anything at all.
	if len(r.Installed) > 0 {
		line += "; installed for the cells that ran: " + esc(strings.Join(r.Installed, ", "))
	}
	return line
}
