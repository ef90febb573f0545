package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/toolscore/toolscore/tally"
)

// Compat writes the compatibility table, a Markdown page for docs: who validates what. One
// table, faults down and clients across (each client's library and version in a list above
// it), and in each cell the outcome counts, once where the cell's schema modes, protocols and
// transports agree, else per each, so what publishing the schema or a protocol changes shows
// in place. Every string from the results goes through EscapeMarkdown.
func Compat(w io.Writer, r *tally.Results) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Who validates what: %s\n\n", EscapeMarkdown(r.Scenario))
	runs, _, cells := runCounts(r)
	facts := []string{fmt.Sprintf("%d runs in %d cells", runs, cells)}
	if r.Toolscore != "" {
		facts = append(facts, "toolscore "+EscapeMarkdown(r.Toolscore))
	}
	if r.Backend != "" {
		facts = append(facts, "backend "+EscapeMarkdown(r.Backend))
	}
	if !r.Started.IsZero() {
		facts = append(facts, "run on "+r.Started.UTC().Format("2006-01-02"))
	}
	b.WriteString(strings.Join(facts, " · ") + "\n")

	bySchema := varies(r, func(c *tally.Cell) string { return c.Schema })
	byProtocol := varies(r, func(c *tally.Cell) string { return c.Protocol })
	byTransport := manyTransports(r)
	byTool := showTool(r)
	var axes, plural []string
	for _, a := range []struct {
		on        bool
		one, many string
	}{{bySchema, "schema mode", "schema modes"}, {byProtocol, "protocol", "protocols"}, {byTransport, "transport", "transports"}, {byTool, "tool", "tools"}} {
		if a.on {
			axes, plural = append(axes, a.one), append(plural, a.many)
		}
	}
	b.WriteString("\nEach cell counts the outcomes of the client's runs against the fault")
	if len(axes) > 0 {
		all := plural[len(plural)-1]
		if n := len(plural); n > 1 {
			all = strings.Join(plural[:n-1], ", ") + " and " + all
		}
		fmt.Fprintf(&b, ": once where its %s agree, else per %s", all, strings.Join(axes, " × "))
	}
	b.WriteString(". `passed`: the client handed on what was on the wire; `threw`: its library raised, having checked it; `altered`: it handed on something else; `rpc-error`: it reported the JSON-RPC error the wire carried.\n")

	m := matrixOf(r, false)
	clients, faults, library := m.clients, m.faults, m.library
	b.WriteString("\n## Clients\n\n")
	for _, client := range clients {
		lib := library[client]
		if lib == "" {
			lib = "library not reported"
		}
		fmt.Fprintf(&b, "- **%s**: %s\n", EscapeMarkdown(client), EscapeMarkdown(lib))
	}
	for _, u := range r.Unavailable {
		fmt.Fprintf(&b, "- **%s**: unavailable (%s)\n", EscapeMarkdown(u.Client), EscapeMarkdown(u.Reason))
	}

	b.WriteString("\n## Outcomes\n\n| fault |")
	for _, client := range clients {
		fmt.Fprintf(&b, " %s |", EscapeMarkdown(client))
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(clients)) + "\n")
	for _, f := range faults {
		fmt.Fprintf(&b, "| %s |", EscapeMarkdown(f))
		for _, client := range clients {
			fmt.Fprintf(&b, " %s |", compatCell(m.cells(f, client), bySchema, byProtocol, byTransport, byTool))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

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

// compatCell renders one client × fault for the Markdown table: its variants, each escaped,
// joined by "; ".
func compatCell(cells []*tally.Cell, bySchema, byProtocol, byTransport, byTool bool) string {
	parts := cellVariants(cells, bySchema, byProtocol, byTransport, byTool)
	for i, p := range parts {
		parts[i] = EscapeMarkdown(p)
	}
	return strings.Join(parts, "; ")
}

// cellVariants renders one client × fault over its schema modes, protocols, transports and
// tools, unescaped: "-" when the sweep did not have it, the counts once when they all agree,
// else each with the coordinates that tell it apart ("published, 2025-11-25: threw 3/3").
func cellVariants(cells []*tally.Cell, bySchema, byProtocol, byTransport, byTool bool) []string {
	if len(cells) == 0 {
		return []string{"-"}
	}
	same := true
	for _, c := range cells[1:] {
		same = same && c.Counts() == cells[0].Counts()
	}
	if same {
		return []string{cells[0].Counts()}
	}
	var parts []string
	for _, c := range cells {
		var where []string
		if bySchema {
			where = append(where, c.Schema)
		}
		if byProtocol {
			where = append(where, c.Protocol)
		}
		if byTransport {
			where = append(where, c.Transport)
		}
		if byTool {
			where = append(where, c.Tool)
		}
		parts = append(parts, strings.Join(where, ", ")+": "+c.Counts())
	}
	return parts
}
