package report

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/tally"
)

// table is one schema mode (and protocol and transport) of the matrix: faults down, clients
// across, in the order each first appears in the results.
type table struct {
	Tool, Schema, Protocol, Transport string
	Faults, Clients                   []string
	cells                             map[[2]string]*tally.Cell // fault, client
}

// cell returns the cell of fault × client, or nil when the sweep did not have it.
func (t *table) cell(fault, client string) *tally.Cell { return t.cells[[2]string{fault, client}] }

// tables groups the results' cells into one table per tool, schema mode, protocol and transport.
func tables(r *tally.Results) []*table {
	var out []*table
	byMode := map[[4]string]*table{}
	for _, c := range r.Cells {
		if c == nil {
			continue
		}
		k := [4]string{c.Tool, c.Schema, c.Protocol, c.Transport}
		t, ok := byMode[k]
		if !ok {
			t = &table{Tool: c.Tool, Schema: c.Schema, Protocol: c.Protocol, Transport: c.Transport, cells: map[[2]string]*tally.Cell{}}
			byMode[k] = t
			out = append(out, t)
		}
		fc := [2]string{c.Fault, c.Client}
		if _, dup := t.cells[fc]; dup {
			continue
		}
		if !slices.Contains(t.Faults, c.Fault) {
			t.Faults = append(t.Faults, c.Fault)
		}
		if !slices.Contains(t.Clients, c.Client) {
			t.Clients = append(t.Clients, c.Client)
		}
		t.cells[fc] = c
	}
	return out
}

// manyTransports says whether the results hold more than one transport, so that reports name
// the transport only when it tells cells apart.
func manyTransports(r *tally.Results) bool {
	return varies(r, func(c *tally.Cell) string { return c.Transport })
}

// varies says whether the cells of r differ in the coordinate of.
func varies(r *tally.Results, of func(*tally.Cell) string) bool {
	var first *tally.Cell
	for _, c := range r.Cells {
		switch {
		case c == nil:
		case first == nil:
			first = c
		case of(c) != of(first):
			return true
		}
	}
	return false
}

// dims says which of the matrix's optional dimensions a report must name: the protocol when
// the results hold another than as-is (every report then shows it), the transport when they
// hold more than one, the tool when the scenario has a tools: list.
type dims struct{ protocol, transport, tool bool }

func dimsOf(r *tally.Results) dims {
	return dims{protocol: showProtocol(r), transport: manyTransports(r), tool: showTool(r)}
}

// showTool says whether the cells name their tool (a scenario with tools:).
func showTool(r *tally.Results) bool {
	return slices.ContainsFunc(r.Cells, func(c *tally.Cell) bool { return c != nil && c.Tool != "" })
}

// who names a cell's client for a list of changes, with the tool first where cells have one.
func who(tool, client string) string {
	if tool == "" {
		return client
	}
	return tool + ": " + client
}

// showProtocol says whether any cell ran under a protocol other than as-is.
func showProtocol(r *tally.Results) bool {
	for _, c := range r.Cells {
		if c != nil && c.Protocol != "" && c.Protocol != string(scenario.ProtocolAsIs) {
			return true
		}
	}
	return false
}

// title names a table's schema mode, and its protocol and transport where d says so.
func (d dims) title(t *table, esc func(string) string) string {
	s := "schema " + esc(t.Schema)
	if d.tool {
		s = "tool " + esc(t.Tool) + ", " + s
	}
	if d.protocol {
		s += ", protocol " + esc(t.Protocol)
	}
	if d.transport {
		s += ", transport " + esc(t.Transport)
	}
	return s
}

// selectors renders an expectation's selectors as a phrase, the protocol and the transport only
// when it names them.
func selectors(e tally.Expectation, esc func(string) string) string {
	s := fmt.Sprintf("client %s, fault %s, schema %s", esc(selector(e.Client)), esc(selector(e.Fault)), esc(selector(e.Schema)))
	if e.Protocol != "" {
		s += ", protocol " + esc(e.Protocol)
	}
	if e.Transport != "" {
		s += ", transport " + esc(e.Transport)
	}
	if e.Tool != "" {
		s += ", tool " + esc(e.Tool)
	}
	return s
}

// Change is one client × fault × protocol × transport whose outcome counts differ between the
// hidden and the published schema mode: what publishing the outputSchema did to that client.
type Change struct {
	Client, Fault, Protocol, Transport string
	// Tool is the cells' tool in a scenario with tools: (else empty).
	Tool string
	// Hidden and Published are the cells' counts, as tally.Cell.Shown renders them (with what
	// their runs re-run alone had).
	Hidden, Published string
}

// SchemaChanges lists, in the order of the hidden cells, every client × fault × transport
// whose outcomes differ between the hidden and published modes. Counts are compared as shares
// of each cell's finished runs, so an interrupted cell that saw the same outcomes is no change;
// a cell with no finished run has nothing to compare. They are the counts after the runs re-run
// alone (tally.Cell.Settled): a run the sweep's load hung and that passed alone is no finding,
// and a cell the load decided (LoadDecided) is left out.
func SchemaChanges(r *tally.Results) []Change {
	published := map[string]*tally.Cell{}
	for _, c := range r.Cells {
		if c != nil && c.Schema == string(scenario.SchemaPublished) {
			published[c.Client+"|"+c.Fault+"|"+c.Protocol+"|"+c.Transport+"|"+c.Tool] = c
		}
	}
	var out []Change
	for _, h := range r.Cells {
		if h == nil || h.Schema != string(scenario.SchemaHidden) {
			continue
		}
		p := published[h.Client+"|"+h.Fault+"|"+h.Protocol+"|"+h.Transport+"|"+h.Tool]
		if p == nil || h.Runs == 0 || p.Runs == 0 || h.LoadDecided() || p.LoadDecided() || sameShares(settled(h), settled(p)) {
			continue
		}
		out = append(out, Change{Client: h.Client, Fault: h.Fault, Protocol: h.Protocol, Transport: h.Transport, Tool: h.Tool, Hidden: h.Shown(), Published: p.Shown()})
	}
	return out
}

// ProtocolChange is one client × fault × schema mode × transport whose outcome counts differ
// between the protocols it ran under: what the server's protocol generation did to that client.
type ProtocolChange struct {
	Client, Fault, Schema, Transport string
	// Tool is the cells' tool in a scenario with tools: (else empty).
	Tool string
	// Under lists each protocol with the cell's counts, in the order of the results.
	Under []ProtocolCounts
}

// ProtocolCounts is one protocol's counts of a ProtocolChange.
type ProtocolCounts struct{ Protocol, Counts string }

// ProtocolChanges lists, in the order of the results, every client × fault × schema mode ×
// transport whose outcomes differ between two of the protocols it finished runs under, with
// the counts under each; shares are compared, after the runs re-run alone, as in SchemaChanges.
func ProtocolChanges(r *tally.Results) []ProtocolChange {
	groups := map[string][]*tally.Cell{}
	var order []string
	for _, c := range r.Cells {
		if c == nil || c.Runs == 0 || c.LoadDecided() {
			continue
		}
		k := c.Client + "|" + c.Fault + "|" + c.Schema + "|" + c.Transport + "|" + c.Tool
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], c)
	}
	var out []ProtocolChange
	for _, k := range order {
		g := groups[k]
		differ := false
		for _, c := range g[1:] {
			differ = differ || !sameShares(settled(g[0]), settled(c))
		}
		if !differ {
			continue
		}
		ch := ProtocolChange{Client: g[0].Client, Fault: g[0].Fault, Schema: g[0].Schema, Transport: g[0].Transport, Tool: g[0].Tool}
		for _, c := range g {
			ch.Under = append(ch.Under, ProtocolCounts{Protocol: c.Protocol, Counts: c.Shown()})
		}
		out = append(out, ch)
	}
	return out
}

// manyProtocols says whether the results hold more than one protocol, the only case where
// ProtocolChanges can find anything.
func manyProtocols(r *tally.Results) bool {
	return varies(r, func(c *tally.Cell) string { return c.Protocol })
}

// bothModes says whether the results have hidden and published cells, the only case where
// SchemaChanges can find anything (and where "nothing changed" means something).
func bothModes(r *tally.Results) bool {
	var hidden, published bool
	for _, c := range r.Cells {
		if c != nil {
			hidden = hidden || c.Schema == string(scenario.SchemaHidden)
			published = published || c.Schema == string(scenario.SchemaPublished)
		}
	}
	return hidden && published
}

// settled is c as the findings compare it: its runs with their counts after the runs re-run
// alone (tally.Cell.Settled).
func settled(c *tally.Cell) *tally.Cell {
	counts, _ := c.Settled()
	return &tally.Cell{Runs: c.Runs, Outcome: counts}
}

// LoadDecided lists, in the order of the results, the cells the sweep's load decided
// (tally.Cell.LoadDecided): a run re-run alone came out otherwise, and runs like it were not
// re-run. They are left out of SchemaChanges and ProtocolChanges, and the reports say so where
// they list those.
func LoadDecided(r *tally.Results) []*tally.Cell {
	var out []*tally.Cell
	for _, c := range r.Cells {
		if c != nil && c.Runs > 0 && c.LoadDecided() {
			out = append(out, c)
		}
	}
	return out
}

// loadDecidedHead says how many cells the load decided and what was done with them, in a
// sentence without its end.
func loadDecidedHead(n int) string {
	return fmt.Sprintf("Left out of these comparisons: %d %s whose runs the machine's load decided (a run re-run alone came out otherwise than under the sweep, and runs like it were not re-run)",
		n, Plural(n, "cell", "cells"))
}

// sameShares says whether every outcome has the same share of a's runs as of b's.
func sameShares(a, b *tally.Cell) bool {
	for o, n := range a.Outcome {
		if n*b.Runs != b.Outcome[o]*a.Runs {
			return false
		}
	}
	for o, n := range b.Outcome {
		if n*a.Runs != a.Outcome[o]*b.Runs {
			return false
		}
	}
	return true
}

// runCounts sums the finished and planned runs of every cell.
func runCounts(r *tally.Results) (runs, planned, cells int) {
	for _, c := range r.Cells {
		if c != nil {
			runs += c.Runs
			planned += c.Planned
			cells++
		}
	}
	return runs, planned, cells
}

// unmet returns the expectations that did not hold.
func unmet(r *tally.Results) []tally.Expectation { return withStatus(r, tally.Unmet) }

// unchecked returns the expectations no run of the sweep could check.
func unchecked(r *tally.Results) []tally.Expectation { return withStatus(r, tally.Unchecked) }

func withStatus(r *tally.Results, status string) []tally.Expectation {
	var out []tally.Expectation
	for _, e := range r.Expectations {
		if e.State() == status {
			out = append(out, e)
		}
	}
	return out
}

// heldLine says how the expectations came out, in a sentence.
func heldLine(r *tally.Results) string {
	n := len(r.Expectations)
	held, missed, open := tally.Count(r.Expectations)
	switch {
	case missed == 0 && open == 0 && n == 1:
		return "The 1 expectation held."
	case missed == 0 && open == 0:
		return fmt.Sprintf("All %d expectations held.", n)
	case n == 1 && missed == 1:
		return "The 1 expectation did not hold."
	case n == 1:
		return "The 1 expectation was not checked."
	case missed > 0 && open > 0:
		return fmt.Sprintf("%d of %d expectations did not hold, %d unchecked.", missed, n, open)
	case missed > 0:
		return fmt.Sprintf("%d of %d expectations did not hold.", missed, n)
	case held == 0:
		return fmt.Sprintf("None of the %d expectations was checked.", n)
	}
	return fmt.Sprintf("%d of %d expectations held, %d unchecked.", held, n, open)
}

// fewMixed is how many mixed cells the first screen and the summary's head name; more are counted.
const fewMixed = 5

// countsOf is a cell's counts as a report's table shows them, "(mixed)" after them when the
// runs disagree, then what its runs run again alone had ("hung 1/3, passed 2/3 (mixed), alone:
// passed").
func countsOf(c *tally.Cell) string {
	s := c.Counts()
	if c.IsMixed() {
		s += " (mixed)"
	}
	if alone := c.AloneCounts(); alone != "" {
		s += ", alone: " + alone
	}
	return s
}

// mixedCells lists the cells whose runs disagree, in the results' order.
func mixedCells(r *tally.Results) []*tally.Cell {
	var out []*tally.Cell
	for _, c := range r.Cells {
		if c != nil && c.IsMixed() {
			out = append(out, c)
		}
	}
	return out
}

// mixedWhy is what a mixed cell may mean.
const mixedWhy = "on a busy machine that may be the load, not the client"

// mixedHead says how many cells are mixed, and what that may mean, in a clause.
func mixedHead(n int) string {
	return fmt.Sprintf("the runs of %d %s disagree (%s)", n, Plural(n, "cell", "cells"), mixedWhy)
}

// wantPhrase says what e asks of the runs, for a sentence: "passed in every run", or for a
// stable expectation "the runs of each cell to agree".
func wantPhrase(e tally.Expectation, esc func(string) string) string {
	if e.Outcome == "" && e.Stable {
		return "the runs of each cell to agree"
	}
	return esc(e.Outcome) + " in every run"
}

// selector renders an expectation's client, fault or schema, where empty means any.
func selector(s string) string {
	if s == "" {
		return "*"
	}
	return s
}

// matches says whether expectation e selects cell c, as scenario.Expect.Matches does for the
// manifest's cells: a client without a version selects every version of it.
func matches(e tally.Expectation, c *tally.Cell) bool {
	name, _, _ := strings.Cut(c.Client, "@")
	return (selector(e.Client) == "*" || e.Client == c.Client || e.Client == name) &&
		(selector(e.Fault) == "*" || e.Fault == c.Fault) &&
		(selector(e.Schema) == "*" || e.Schema == c.Schema) &&
		(selector(e.Protocol) == "*" || e.Protocol == c.Protocol) &&
		(selector(e.Tool) == "*" || e.Tool == c.Tool)
}

// truncate keeps the first limit runes of s and marks the cut with an ellipsis.
func truncate(s string, limit int) string {
	n := 0
	for i := range s {
		if n == limit {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// width is how many columns s takes in a terminal, counting each rune as one.
func width(s string) int { return utf8.RuneCountInString(s) }

// viewTables are the tables of the agent cells alone, each cell the counts of what the agent
// put in front of the model and how its answer graded: the model's view, read beside the
// outcome tables so a harness reading content[0].text can see where the agent shows otherwise.
func viewTables(r *tally.Results) []*table {
	var out []*table
	for _, t := range tables(r) {
		v := &table{Tool: t.Tool, Schema: t.Schema, Protocol: t.Protocol, Transport: t.Transport, Faults: t.Faults, cells: t.cells}
		for _, client := range t.Clients {
			for _, f := range t.Faults {
				if c := t.cell(f, client); c != nil && len(c.ModelView) > 0 {
					v.Clients = append(v.Clients, client)
					break
				}
			}
		}
		if len(v.Clients) > 0 {
			out = append(out, v)
		}
	}
	return out
}

// viewCounts renders an agent cell's model views and answers, e.g. "structured 3/3; truth 3/3".
func viewCounts(c *tally.Cell) string {
	if c == nil || len(c.ModelView) == 0 {
		return "-"
	}
	part := func(m map[string]int) string {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b string) int {
			if m[a] != m[b] {
				return m[b] - m[a]
			}
			return strings.Compare(a, b)
		})
		var parts []string
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s %d/%d", k, m[k], c.Runs))
		}
		return strings.Join(parts, ", ")
	}
	s := part(c.ModelView)
	if len(c.Answer) > 0 {
		s += "; " + part(c.Answer)
	}
	return s
}
