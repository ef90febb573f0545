package report

import (
	"strings"

	"github.com/toolscore/toolscore/tally"
)

// cacheLine is CacheLine followed, when a sweep left clients uninstalled (every cell of each in
// the cell cache), by which, and by which it installed for the cells that ran: "8 cells: 4
// ran, 4 reused, server answers verified; not installed, every cell in the cache: one;
// installed for the cells that ran: two"; on docker it says the same of cell images. esc escapes the clients' names for the format.
func cacheLine(r *tally.Results, esc func(string) string) string {
	line := CacheLine(r)
	// On docker what is made for a client is its cell image.
	not, made := "not installed", "installed for the cells that ran"
	if r.Backend == "docker" {
		not, made = "no cell image built", "cell images built or found for the cells that ran or the server's checks"
	}
	if len(r.NotInstalled) > 0 {
		line += "; " + not + ", every cell in the cache: " + esc(strings.Join(r.NotInstalled, ", "))
	}
	// Said also when every client had a cell to run: a sweep that reused cells says why it
	// installed anything at all. On docker the first client's image is the server checks' too.
	if len(r.Installed) > 0 {
		line += "; " + made + ": " + esc(strings.Join(r.Installed, ", "))
	}
	return line
}
