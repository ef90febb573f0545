package report

import (
	"slices"

	"github.com/toolscore/toolscore/tally"
)

// matrix is the results folded to one table: faults down, clients across (in the order each
// first appears), each fault × client holding its cells of every schema mode, protocol,
// transport and tool; or, byTool, each tool × fault a row of its own named "tool: fault".
type matrix struct {
	faults, clients []string
	library         map[string]string // client → the library it first reported
	groups          map[[2]string][]*tally.Cell
}

func matrixOf(r *tally.Results, byTool bool) matrix {
	m := matrix{library: map[string]string{}, groups: map[[2]string][]*tally.Cell{}}
	for _, c := range r.Cells {
		if c == nil {
			continue
		}
		if !slices.Contains(m.clients, c.Client) {
			m.clients = append(m.clients, c.Client)
		}
		row := c.Fault
		if byTool {
			row = who(c.Tool, c.Fault)
		}
		if !slices.Contains(m.faults, row) {
			m.faults = append(m.faults, row)
		}
		if m.library[c.Client] == "" {
			m.library[c.Client] = c.Library
		}
		k := [2]string{row, c.Client}
		m.groups[k] = append(m.groups[k], c)
	}
	return m
}

// cells returns fault × client's cells, none when the sweep did not have it.
func (m matrix) cells(fault, client string) []*tally.Cell { return m.groups[[2]string{fault, client}] }
