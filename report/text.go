package report

import (
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/toolscore/toolscore/tally"
)

// textFormat is the table a sweep ends with, and a history's changes release by release.
var textFormat = Format{
	Name: "text", Help: "the terminal table", HistoryHelp: "what changed, release by release",
	Results: func(w io.Writer, r *tally.Results, _ Inputs) error { return Text(w, r) },
	History: func(w io.Writer, h *tally.History, _ Inputs) error { return HistoryText(w, h) },
}

const (
	// textWidth is the terminal width tables aim for; a matrix with more clients than fit is
	// split into several tables, each repeating the fault column.
	textWidth = 100
	// columnWidth is the widest a column grows before its text wraps onto more lines.
	columnWidth = 30
	// maxFreeText caps text that comes from outside (reasons) so one can't flood the terminal;
	// counts are never cut.
	maxFreeText = 300
	// fewUnavailable is how many unavailable clients the first screen names; more are counted.
	fewUnavailable = 3
)

// Text writes what the terminal shows at the end of a sweep, the finding first: a headline,
// then what differs (what publishing the schema changed, what the protocol changed, the unmet
// expectations, how many clients could not run), then one compact matrix of counts, a cell
// shown once where its schema modes, protocols and transports agree, and last the reasons the
// unavailable clients could not run.
func Text(w io.Writer, r *tally.Results) error {
	var b strings.Builder
	if r.RunsReused > 0 {
		b.WriteString(cacheLine(r, Plain) + "\n")
	}
	runs, planned, cells := runCounts(r)
	fmt.Fprintf(&b, "%s: %d of %d runs in %d cells", plain(r.Scenario), runs, planned, cells)
	if r.Backend != "" {
		// Not why: the sweep's first line said it (summary.md and report.html keep it).
		fmt.Fprintf(&b, ", backend %s", plain(r.Backend))
	}
	if r.Toolscore != "" {
		fmt.Fprintf(&b, ", toolscore %s", plain(r.Toolscore))
	}
	if d := took(r); d != "" {
		fmt.Fprintf(&b, ", took %s", d)
	}
	b.WriteString("\n")
	if r.Interrupted {
		fmt.Fprintf(&b, "interrupted: %d of %d planned runs did not run\n", planned-runs, planned)
	}
	if mixed := mixedCells(r); len(mixed) > 0 {
		fmt.Fprintf(&b, "\nMixed: %s:\n", mixedHead(len(mixed)))
		for i, c := range mixed {
			if i == fewMixed {
				fmt.Fprintf(&b, "  and %d more, marked (mixed) in the matrix\n", len(mixed)-fewMixed)
				break
			}
			// The counts are in the matrix below: the first screen names the cells.
			for j, l := range wrap(plain(c.Coordinates()), textWidth-4) {
				fmt.Fprintf(&b, "%s%s\n", strings.Repeat(" ", 2+2*min(j, 1)), l)
			}
		}
	}

	d := dimsOf(r)
	if bothModes(r) {
		b.WriteString("\n")
		changes := SchemaChanges(r)
		if len(changes) == 0 {
			b.WriteString("Publishing the schema changed nothing.\n")
		} else {
			b.WriteString("Publishing the schema changed:\n")
			tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
			protocols := 0
			if d.protocol {
				protocols = len(protocolsOf(r))
			}
			for _, g := range groupSchemaChanges(changes) {
				fmt.Fprintf(tw, "  %s\t", plain(who(g.Tool, g.Client)))
				if d.transport {
					fmt.Fprintf(tw, "%s\t", plain(g.Transport))
				}
				fmt.Fprintf(tw, "%s (hidden) → %s (published)\t%s", plain(g.Hidden), plain(g.Published), plain(strings.Join(g.faults, ", ")))
				// The protocols are named only where the change did not happen under all of them.
				if d.protocol && len(g.protocols) < protocols {
					fmt.Fprintf(tw, " (under %s only)", plain(strings.Join(g.protocols, ", ")))
				}
				fmt.Fprintln(tw)
			}
			tw.Flush()
		}
	}

	if manyProtocols(r) {
		b.WriteString("\n")
		changes := ProtocolChanges(r)
		if len(changes) == 0 {
			b.WriteString("Changing the protocol changed nothing.\n")
		} else {
			b.WriteString("Changing the protocol changed:\n")
			tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
			for _, c := range changes {
				fmt.Fprintf(tw, "  %s\t%s\t%s\t", plain(who(c.Tool, c.Client)), plain(c.Fault), plain(c.Schema))
				if d.transport {
					fmt.Fprintf(tw, "%s\t", plain(c.Transport))
				}
				var under []string
				for _, u := range c.Under {
					under = append(under, fmt.Sprintf("%s (%s)", plain(u.Counts), plain(u.Protocol)))
				}
				fmt.Fprintf(tw, "%s\n", strings.Join(under, " → "))
			}
			tw.Flush()
		}
	}

	if decided := LoadDecided(r); len(decided) > 0 && (bothModes(r) || manyProtocols(r)) {
		fmt.Fprintf(&b, "\n%s:\n", loadDecidedHead(len(decided)))
		for i, c := range decided {
			if i == fewMixed {
				fmt.Fprintf(&b, "  and %d more\n", len(decided)-fewMixed)
				break
			}
			fmt.Fprintf(&b, "  %s: %s\n", plain(c.Coordinates()), plain(c.Shown()))
		}
	}

	if len(r.Expectations) > 0 {
		b.WriteString("\n")
		missed, open := unmet(r), unchecked(r)
		if len(missed) == 0 {
			b.WriteString(heldLine(r) + "\n")
		} else {
			fmt.Fprintf(&b, "Unmet expectations (%d of %d):\n", len(missed), len(r.Expectations))
			for _, e := range missed {
				got := "no misses recorded"
				if len(e.Misses) > 0 {
					got = plain(strings.Join(e.Misses, "; "))
				}
				fmt.Fprintf(&b, "  expect at line %d: %s → want %s; got: %s\n", e.Line, textSelectors(e), plain(e.Want()), got)
			}
		}
		if len(open) > 0 {
			fmt.Fprintf(&b, "Unchecked expectations (%d of %d), neither held nor unmet:\n", len(open), len(r.Expectations))
			for _, e := range open {
				fmt.Fprintf(&b, "  expect at line %d: %s → want %s; unchecked: %s\n", e.Line, textSelectors(e), plain(e.Want()), plain(e.Unchecked))
			}
		}
	}

	// The first screen says only how many clients could not run (naming a few); the reasons,
	// one a line, come after the matrix.
	if n := len(r.Unavailable); n > 0 {
		b.WriteString("\n")
		if n <= fewUnavailable {
			var names []string
			for _, u := range r.Unavailable {
				names = append(names, plain(u.Client))
			}
			fmt.Fprintf(&b, "Could not run: %s (why: below the matrix).\n", strings.Join(names, ", "))
		} else {
			fmt.Fprintf(&b, "%d clients could not run (which and why: below the matrix).\n", n)
		}
	}

	// Not a pass: cells that were not run, said so where the matrix has no row for them.
	for _, n := range r.NotApplicable {
		fmt.Fprintf(&b, "\nNot applicable, not run: %s on %s (%s).\n", plain(strings.Join(n.Faults, ", ")), plain(n.Tool), plain(truncate(n.Reason, maxFreeText)))
	}

	if len(r.Cells) > 0 {
		b.WriteString("\n")
		textMatrix(&b, r)
	}

	if len(r.Unavailable) > 0 {
		b.WriteString("\nUnavailable clients:\n")
		for _, u := range r.Unavailable {
			fmt.Fprintf(&b, "  %s: %s\n", plain(u.Client), plain(truncate(u.Reason, maxFreeText)))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// protocolsOf lists the protocols of the results' cells, each once.
func protocolsOf(r *tally.Results) []string {
	var out []string
	for _, c := range r.Cells {
		if c != nil && !slices.Contains(out, c.Protocol) {
			out = append(out, c.Protocol)
		}
	}
	return out
}

// changeGroup is the schema changes of one client (and tool and transport) that went the same
// way, hidden to published: the faults and the protocols they happened under.
type changeGroup struct {
	Change
	faults, protocols []string
}

// groupSchemaChanges folds SchemaChanges into one line per client and way the counts went, so
// that the first screen reads "python-sdk/call  passed → threw  empty, truncate, type-swap"
// rather than one line per fault and protocol: first the protocols under which a fault changed
// alike, then the faults whose protocols are the same.
func groupSchemaChanges(changes []Change) []changeGroup {
	var byFault []changeGroup
	for _, c := range changes {
		k := c
		k.Protocol = ""
		i := slices.IndexFunc(byFault, func(g changeGroup) bool { return g.Change == k })
		if i < 0 {
			byFault = append(byFault, changeGroup{Change: k, faults: []string{c.Fault}})
			i = len(byFault) - 1
		}
		byFault[i].protocols = append(byFault[i].protocols, c.Protocol)
	}
	var out []changeGroup
	for _, g := range byFault {
		k := g.Change
		k.Fault = ""
		i := slices.IndexFunc(out, func(o changeGroup) bool { return o.Change == k && slices.Equal(o.protocols, g.protocols) })
		if i < 0 {
			out = append(out, changeGroup{Change: k, protocols: g.protocols})
			i = len(out) - 1
		}
		out[i].faults = append(out[i].faults, g.Fault)
	}
	return out
}

// textColumn is one column of a terminal table: its header and cells, each wrapped to lines.
type textColumn struct {
	head  []string
	rows  [][]string
	width int
}

// textSelectors renders an expectation's selectors the way the terminal always has
// ("client raw fault clean schema hidden"), the protocol and the transport added when it names
// them.
func textSelectors(e tally.Expectation) string {
	s := fmt.Sprintf("client %s fault %s schema %s", plain(selector(e.Client)), plain(selector(e.Fault)), plain(selector(e.Schema)))
	if e.Protocol != "" {
		s += " protocol " + plain(e.Protocol)
	}
	if e.Transport != "" {
		s += " transport " + plain(e.Transport)
	}
	if e.Tool != "" {
		s += " tool " + plain(e.Tool)
	}
	return s
}

// textMatrix writes the whole matrix as one table, faults (each tool's, in a scenario with
// several tools) down and clients across, each cell its counts once where its schema modes,
// protocols and transports agree, else one line per variant; columns that do not fit
// textWidth go to further tables, each repeating the fault column.
func textMatrix(b *strings.Builder, r *tally.Results) {
	bySchema := varies(r, func(c *tally.Cell) string { return c.Schema })
	byProtocol := varies(r, func(c *tally.Cell) string { return c.Protocol })
	byTransport := manyTransports(r)
	byTool := varies(r, func(c *tally.Cell) string { return c.Tool })
	// Each axis that varies is named with its values, which label the cells that differ.
	var axes []string
	var varying []func(*tally.Cell) string
	for _, a := range []struct {
		on   bool
		name string
		of   func(*tally.Cell) string
	}{
		{bySchema, "schema mode", func(c *tally.Cell) string { return c.Schema }},
		{byProtocol, "protocol", func(c *tally.Cell) string { return c.Protocol }},
		{byTransport, "transport", func(c *tally.Cell) string { return c.Transport }},
	} {
		if !a.on {
			continue
		}
		var values []string
		for _, c := range r.Cells {
			if c != nil && !slices.Contains(values, plain(a.of(c))) {
				values = append(values, plain(a.of(c)))
			}
		}
		axes = append(axes, fmt.Sprintf("%s (%s)", a.name, strings.Join(values, ", ")))
		varying = append(varying, a.of)
	}

	// The title names what every cell shares; what varies shows in the cells.
	i := slices.IndexFunc(r.Cells, func(c *tally.Cell) bool { return c != nil })
	if i < 0 {
		return
	}
	one := r.Cells[i]
	title := "Outcomes"
	if !byTool && one.Tool != "" {
		title += ", tool " + plain(one.Tool)
	}
	if !bySchema {
		title += ", schema " + plain(one.Schema)
	}
	if !byProtocol && showProtocol(r) {
		title += ", protocol " + plain(one.Protocol)
	}
	legend := ""
	if len(axes) > 0 {
		legend = "once where alike, else per " + strings.Join(axes, " × ") + "\n"
	}

	// Tools are not conditions of one cell but different calls: each tool × fault is a row.
	m := matrixOf(r, byTool)
	head := "fault"
	if byTool {
		head = "tool: fault"
	}
	faults := textColumn{head: []string{head}, width: width(head)}
	for _, f := range m.faults {
		if byTool {
			faults.rows = append(faults.rows, wrapToolFault(plain(f), columnWidth))
			continue
		}
		faults.rows = append(faults.rows, wrapName(plain(f), columnWidth))
	}
	faults.width = widest(faults)
	var cols []textColumn
	for _, client := range m.clients {
		col := textColumn{head: wrapName(plain(client), columnWidth)}
		for _, f := range m.faults {
			var lines []string
			for _, v := range textVariants(m.cells(f, client), varying) {
				lines = append(lines, wrapVariant(plain(v), columnWidth)...)
			}
			col.rows = append(col.rows, lines)
		}
		col.width = widest(col)
		cols = append(cols, col)
	}

	var groups [][]textColumn
	var group []textColumn
	used := faults.width
	for _, col := range cols {
		if len(group) > 0 && used+2+col.width > textWidth {
			groups = append(groups, group)
			group, used = nil, faults.width
		}
		group = append(group, col)
		used += 2 + col.width
	}
	groups = append(groups, group)

	first := 1
	for i, group := range groups {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(title)
		switch {
		case len(groups) > 1 && len(group) == 1:
			fmt.Fprintf(b, " (client %d of %d)", first, len(cols))
		case len(groups) > 1:
			fmt.Fprintf(b, " (clients %d-%d of %d)", first, first+len(group)-1, len(cols))
		}
		b.WriteString("\n" + legend)
		first += len(group)

		all := append([]textColumn{faults}, group...)
		widths := make([]int, len(all))
		head := make([][]string, len(all))
		rule := make([][]string, len(all))
		for j, col := range all {
			widths[j] = col.width
			head[j] = col.head
			rule[j] = []string{strings.Repeat("-", col.width)}
		}
		textRow(b, head, widths)
		textRow(b, rule, widths)
		for row := range m.faults {
			cells := make([][]string, len(all))
			for j, col := range all {
				cells[j] = col.rows[row]
			}
			textRow(b, cells, widths)
		}
	}
}

// textRow writes one row of cells, each a list of lines, as many lines as its tallest cell.
func textRow(b *strings.Builder, cells [][]string, widths []int) {
	height := 0
	for _, c := range cells {
		height = max(height, len(c))
	}
	for i := range height {
		var line strings.Builder
		for j, c := range cells {
			s := ""
			if i < len(c) {
				s = c[i]
			}
			if j > 0 {
				line.WriteString("  ")
			}
			line.WriteString(s)
			line.WriteString(strings.Repeat(" ", widths[j]-width(s)))
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteString("\n")
	}
}

// widest is the width of the longest line of a column.
func widest(col textColumn) int {
	w := 0
	for _, l := range col.head {
		w = max(w, width(l))
	}
	for _, r := range col.rows {
		for _, l := range r {
			w = max(w, width(l))
		}
	}
	return w
}

// wrap breaks counts like "passed 2/3, hung 1/3 (1 of 3 not run)" into lines of at most
// limit columns, preferring to break after a comma or before a parenthesis, so that every count
// stays whole. A word longer than limit keeps its own line rather than being cut.
func wrap(s string, limit int) []string {
	var chunks [][]string
	for _, word := range strings.Fields(s) {
		if len(chunks) == 0 || strings.HasPrefix(word, "(") || strings.HasSuffix(last(chunks[len(chunks)-1]), ",") {
			chunks = append(chunks, nil)
		}
		chunks[len(chunks)-1] = append(chunks[len(chunks)-1], word)
	}
	var lines []string
	line := ""
	add := func(piece string) {
		switch {
		case line == "":
			line = piece
		case width(line)+1+width(piece) <= limit:
			line += " " + piece
		default:
			lines = append(lines, line)
			line = piece
		}
	}
	for _, chunk := range chunks {
		if joined := strings.Join(chunk, " "); width(joined) <= limit {
			add(joined)
			continue
		}
		// A chunk too long for one line gets lines of its own, so no line mixes two counts.
		if line != "" {
			lines = append(lines, line)
			line = ""
		}
		for _, word := range chunk {
			add(word)
		}
		lines = append(lines, line)
		line = ""
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}

// textVariants renders one fault × client over the axes that vary: "-" when the sweep did not
// have it, the counts once when they agree, else one line per value of the fewest axes that
// tell the counts apart ("published: threw 3/3" where only publishing the schema mattered,
// not one line per schema mode × protocol).
func textVariants(cells []*tally.Cell, axes []func(*tally.Cell) string) []string {
	if len(cells) == 0 {
		return []string{"-"}
	}
	if !slices.ContainsFunc(cells, func(c *tally.Cell) bool { return c.Counts() != cells[0].Counts() }) {
		return []string{countsOf(cells[0])}
	}
	var masks []int
	for mask := 1; mask < 1<<len(axes); mask++ {
		masks = append(masks, mask)
	}
	slices.SortStableFunc(masks, func(a, b int) int { return bits.OnesCount(uint(a)) - bits.OnesCount(uint(b)) })
	var lines []string
	for _, mask := range masks {
		lines = lines[:0]
		counts := map[string]string{}
		alike := true
		for _, c := range cells {
			var where []string
			for i, of := range axes {
				if mask&(1<<i) != 0 {
					where = append(where, of(c))
				}
			}
			label := strings.Join(where, ", ")
			if got, seen := counts[label]; seen {
				alike = alike && got == c.Counts()
				continue
			}
			counts[label] = c.Counts()
			lines = append(lines, label+": "+countsOf(c))
		}
		if alike {
			return lines
		}
	}
	return lines // cells that no axis tells apart (none in a tally): each labelled by all
}

// wrapVariant wraps one variant of a cell ("published, 2026-07-28: rejected 3/3"): too long
// for one line, its coordinates get a line of their own and its counts follow, indented, so a
// line never breaks between two coordinates.
func wrapVariant(s string, limit int) []string {
	where, counts, ok := strings.Cut(s, ": ")
	if !ok || width(s) <= limit {
		return wrap(s, limit)
	}
	lines := wrapName(where+":", limit)
	for _, l := range wrap(counts, limit-2) {
		lines = append(lines, "  "+l)
	}
	return lines
}

// wrapToolFault wraps a "tool: fault" row's name: too long for one line, the tool gets its own
// line (or lines) and the fault follows whole, indented, so that no line breaks inside the
// fault's name ("type-" and "swap" read as two faults).
func wrapToolFault(s string, limit int) []string {
	i := strings.LastIndex(s, ": ") // a fault's name has no ": ", a tool's may
	if i < 0 || width(s) <= limit {
		return wrapName(s, limit)
	}
	lines := wrapName(s[:i+1], limit)
	for _, l := range wrapName(s[i+2:], limit-2) {
		lines = append(lines, "  "+l)
	}
	return lines
}

// wrapName breaks a client or fault name into lines of at most limit columns, after a / - _ or .
// or before an @ where it can, so the name stays readable; nothing is dropped.
func wrapName(s string, limit int) []string {
	runes := []rune(s)
	var lines []string
	for len(runes) > limit {
		cut := limit
		for i := limit - 1; i > 0; i-- {
			if strings.ContainsRune("/-_.", runes[i]) {
				cut = i + 1
				break
			}
			if runes[i] == '@' {
				cut = i
				break
			}
		}
		lines = append(lines, string(runes[:cut]))
		runes = runes[cut:]
	}
	return append(lines, string(runes))
}

func last(words []string) string { return words[len(words)-1] }

// took renders how long the sweep took, or "" when its times are unknown.
func took(r *tally.Results) string {
	if r.Started.IsZero() || r.Finished.IsZero() || r.Finished.Before(r.Started) {
		return ""
	}
	d := r.Finished.Sub(r.Started)
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// Plain makes text from outside safe for a terminal and a CI log, whoever prints it: line
// breaks and tabs become spaces; control characters (which could move the cursor or recolour
// the screen) and bidirectional overrides (which could reorder what is shown) become U+FFFD;
// and a zero-width joiner goes inside every "::" and "##[", which GitHub's runner reads as a
// workflow command (the first at the start of a line, the legacy second anywhere in one).
func Plain(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	prev := rune(0)
	// inAddress is set inside the brackets of an IPv6 address ("http://[::1]:8080/mcp"): no line
	// starts there, and a URL a user copies must stay the URL.
	inAddress := false
	for i, r := range s { // an invalid byte comes as U+FFFD
		switch {
		case isBreak(r):
			r = ' '
		case isControl(r):
			r = '\uFFFD'
		case r == ':' && prev == ':' && !inAddress, r == '[' && strings.HasSuffix(s[:i], "##"):
			b.WriteString(zwj)
		}
		inAddress = r == '[' || inAddress && (r == ':' || r == '.' || r == '%' || unicode.Is(unicode.ASCII_Hex_Digit, r))
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

func plain(s string) string { return Plain(s) }

// isBreak says whether r starts a new line or moves to a tab stop.
func isBreak(r rune) bool {
	return r == '\n' || r == '\r' || r == '\t' || r == '\v' || r == '\f' || r == '\u2028' || r == '\u2029' || r == '\u0085'
}

// isControl says whether r is a control character or a bidirectional embedding, override or
// isolate, none of which a report should pass on.
func isControl(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}
