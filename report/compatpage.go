package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/toolscore/toolscore/fault"
	"github.com/toolscore/toolscore/tally"
)

// compatFormat is the compatibility page as Markdown; for a history, that of every client's
// newest release swept, saying since which release each outcome holds.
var compatFormat = Format{
	Name: "compat", Help: "the compatibility page, Markdown: per fault what each client did",
	Results: func(w io.Writer, r *tally.Results, _ Inputs) error { return Compat(w, r) },
	History: func(w io.Writer, h *tally.History, in Inputs) error {
		res, err := in.Newest()
		if err != nil {
			return err
		}
		return CompatSince(w, res, h)
	},
}

// The compatibility page answers, fault by fault, what each client did with the bad payload:
// let it through (`passed`), threw, rejected, altered it, or another outcome, as counts of
// runs. A client's outcome is given once where every schema mode, protocol, transport (and
// tool) agreed, else once per the fewest of those coordinates that tell its outcomes apart:
// per schema mode if only publishing the schema changed it, per schema mode × protocol if
// both did, and so on. compatOf builds it; Compat renders it as Markdown, CompatHTML as a
// self-contained HTML page with each entry's evidence.

// compatView is the results folded into the page; its strings are raw (each renderer escapes).
type compatView struct {
	Scenario, Facts string
	Cache           string   // what ran and what the cell cache gave, when it gave any
	Axes            []string // the coordinates that vary across the sweep, e.g. "schema mode"
	Clients         []compatClient
	Unavailable     []string
	Faults          []compatFault
	// History is the history the page says "since" from, nil for a page of one sweep.
	History *tally.History
}

type compatClient struct {
	Name, Library string
	// Releases and Timeline, with a history: the range of releases it swept ("1.10.0–1.12.1:
	// 14 versions, 6 swept") and the anchor of the client's timeline.
	Releases, Timeline string
}

type compatFault struct {
	Name string
	// Same is the counts every client had in every cell, when they all agree ("passed 3/3"),
	// else "".
	Same string
	// Summary counts the clients per outcome they had somewhere: "passed: 9 clients · threw: 4".
	Summary string
	Entries []compatEntry
}

// compatEntry is one client's outcome for a fault, in one group of its cells that agree.
type compatEntry struct {
	Client string
	First  bool   // the first entry of its client in this fault
	Where  string // "" when the client's cells all agree, else what tells this group apart
	Counts string
	Top    string // the most frequent outcome
	Mixed  bool   // more than one outcome
	N      int    // the entry's number in its fault, for its evidence anchor
	Cells  []*tally.Cell
	Reused int // how many of Cells came from the cell cache
	// Evidence is the first evidence text among the group's examples, "" when none has one.
	Evidence, EvidenceOutcome string
	// Since says, with a history, since which version of the client its cells' outcome holds
	// ("threw since 1.11.4"); the entry's cells all have the one.
	Since string
}

// compatAxis is a coordinate that can change an outcome.
type compatAxis struct {
	name  string
	of    func(*tally.Cell) string
	label func(string) string
}

var compatAxes = []compatAxis{
	{"schema mode", func(c *tally.Cell) string { return c.Schema }, func(v string) string { return v + " schema" }},
	{"protocol", func(c *tally.Cell) string { return c.Protocol }, func(v string) string { return v }},
	{"transport", func(c *tally.Cell) string { return c.Transport }, func(v string) string { return v }},
	{"tool", func(c *tally.Cell) string { return c.Tool }, func(v string) string { return "tool " + v }},
}

// compatOf folds the results into the page: faults in the fault registry's order (any the
// registry does not know after them, as the sweep had them), clients as the sweep first had
// them. With a history h, cells that agree on their counts but not on since when they hold
// them are told apart as cells with other counts are.
func compatOf(r *tally.Results, h *tally.History) compatView {
	v := compatView{Scenario: r.Scenario, History: h}
	key := func(c *tally.Cell) string { return c.Counts() }
	if h != nil {
		key = func(c *tally.Cell) string { return c.Counts() + "\x00" + sinceOf(h, c.Cell) }
	}
	runs, _, cells := runCounts(r)
	facts := []string{fmt.Sprintf("%d runs in %d cells", runs, cells)}
	if r.Toolscore != "" {
		facts = append(facts, "toolscore "+r.Toolscore)
	}
	if r.Backend != "" {
		facts = append(facts, "backend "+r.Backend)
	}
	if !r.Started.IsZero() {
		facts = append(facts, "run on "+r.Started.UTC().Format("2006-01-02"))
	}
	v.Facts = strings.Join(facts, " · ")
	if reusedAny(r) {
		v.Cache = CacheLine(r)
	}
	var axes []compatAxis
	for _, a := range compatAxes {
		if varies(r, a.of) {
			axes = append(axes, a)
			v.Axes = append(v.Axes, a.name)
		}
	}

	var clients, faults []string
	library := map[string]string{}
	groups := map[[2]string][]*tally.Cell{}
	for _, c := range r.Cells {
		if c == nil {
			continue
		}
		if !slices.Contains(clients, c.Client) {
			clients = append(clients, c.Client)
		}
		if !slices.Contains(faults, c.Fault) {
			faults = append(faults, c.Fault)
		}
		if library[c.Client] == "" {
			library[c.Client] = c.Library
		}
		k := [2]string{c.Fault, c.Client}
		groups[k] = append(groups[k], c)
	}
	registry := fault.Names()
	slices.SortStableFunc(faults, func(a, b string) int { return rank(registry, a) - rank(registry, b) })
	for _, client := range clients {
		v.Clients = append(v.Clients, compatClient{Name: client, Library: library[client]})
	}
	for _, u := range r.Unavailable {
		v.Unavailable = append(v.Unavailable, u.Client+": "+u.Reason)
	}

	for _, f := range faults {
		cf := compatFault{Name: f}
		perOutcome := map[string]int{}
		for _, client := range clients {
			cs := groups[[2]string{f, client}]
			if len(cs) == 0 {
				continue
			}
			seen := map[string]bool{}
			for i, g := range groupCells(cs, axes, key) {
				e := compatEntry{Client: client, First: i == 0, Where: g.where, Counts: countsOf(g.cells[0]), Cells: g.cells, N: len(cf.Entries) + 1}
				if h != nil {
					e.Since = sinceOf(h, g.cells[0].Cell)
				}
				for _, c := range g.cells {
					if c.ReusedFrom != nil {
						e.Reused++
					}
				}
				if top := byCount(g.cells[0]); len(top) > 0 {
					e.Top, e.Mixed = top[0], g.cells[0].IsMixed()
					for _, o := range top {
						seen[o] = true
					}
				}
			find:
				for _, c := range g.cells {
					for _, o := range byCount(c) {
						if ex, ok := c.Examples[o]; ok && strings.TrimSpace(ex.Evidence) != "" {
							e.Evidence, e.EvidenceOutcome = ex.Evidence, o
							break find
						}
					}
				}
				cf.Entries = append(cf.Entries, e)
			}
			for o := range seen {
				perOutcome[o]++
			}
		}
		same := len(cf.Entries) > 0
		for _, e := range cf.Entries {
			same = same && e.Where == "" && e.Counts == cf.Entries[0].Counts && e.Since == cf.Entries[0].Since
		}
		if same {
			cf.Same = cf.Entries[0].Counts
		}
		var parts []string
		for _, o := range byCount(&tally.Cell{Outcome: perOutcome}) {
			parts = append(parts, fmt.Sprintf("%s: %d", o, perOutcome[o]))
		}
		if len(parts) > 0 {
			parts[0] += map[bool]string{true: " client", false: " clients"}[perOutcome[byCount(&tally.Cell{Outcome: perOutcome})[0]] == 1]
		}
		cf.Summary = strings.Join(parts, " · ")
		v.Faults = append(v.Faults, cf)
	}
	return v
}

// rank is a fault's place in the registry, those it does not know after all it does.
func rank(registry []string, f string) int {
	if i := slices.Index(registry, f); i >= 0 {
		return i
	}
	return len(registry)
}

type cellGroup struct {
	where string
	parts []string
	cells []*tally.Cell
}

// groupCells splits one client × fault's cells by the fewest axes that tell their counts
// apart: none when they all agree, else the smallest set of axes (schema mode before protocol
// before transport before tool) under which every group's cells agree: have one key.
func groupCells(cells []*tally.Cell, axes []compatAxis, key func(*tally.Cell) string) []cellGroup {
	n := len(axes)
	masks := make([]int, 0, 1<<n)
	for m := range 1 << n {
		masks = append(masks, m)
	}
	// Fewer axes first; among as many, the earlier axes first.
	slices.SortStableFunc(masks, func(a, b int) int { return popcount(a) - popcount(b) })
	for _, m := range masks {
		var out []cellGroup
		index := map[string]int{}
		ok := true
		for _, c := range cells {
			var where []string
			for i, a := range axes {
				if m&(1<<i) != 0 {
					where = append(where, a.label(a.of(c)))
				}
			}
			k := strings.Join(where, ", ")
			j, seen := index[k]
			if !seen {
				index[k] = len(out)
				out = append(out, cellGroup{where: k, parts: where, cells: []*tally.Cell{c}})
				continue
			}
			if key(out[j].cells[0]) != key(c) {
				ok = false
				break
			}
			out[j].cells = append(out[j].cells, c)
		}
		if ok {
			return mergePrefixes(out, key)
		}
	}
	return []cellGroup{{cells: cells}} // unreachable: all axes tell every cell apart
}

// mergePrefixes folds groups that share their first coordinates and agree into one named by
// those coordinates alone: "hidden schema, 2026-07-28" and "hidden schema, 2025-11-25" both
// passed 3/3 read "hidden schema".
func mergePrefixes(groups []cellGroup, key func(*tally.Cell) string) []cellGroup {
	if len(groups) == 0 || len(groups[0].parts) < 2 {
		return groups
	}
	var out []cellGroup
	done := map[string]bool{}
	for _, g := range groups {
		merged := false
		for k := 1; k < len(g.parts) && !merged; k++ {
			prefix := strings.Join(g.parts[:k], ", ")
			var all []*tally.Cell
			agree := true
			for _, h := range groups {
				if strings.Join(h.parts[:k], ", ") == prefix {
					agree = agree && key(h.cells[0]) == key(g.cells[0])
					all = append(all, h.cells...)
				}
			}
			if agree {
				merged = true
				if !done[prefix] {
					done[prefix] = true
					out = append(out, cellGroup{where: prefix, parts: g.parts[:k], cells: all})
				}
			}
		}
		if !merged {
			out = append(out, g)
		}
	}
	return out
}

func popcount(m int) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

// slug makes an anchor from a name: lower-case letters and digits, runs of anything else one
// hyphen.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}

// compatEvidenceWidth is how many characters of an entry's evidence the Markdown page quotes:
// the whole is a click away on the HTML page, and a line stays within GitHub's width.
const compatEvidenceWidth = 90

// Compat writes the compatibility page as Markdown for GitHub: the clients' libraries and
// versions, then per fault one short table (client | outcome | where it differs | evidence),
// each entry's evidence quoted under it behind an anchor. Every string from the results goes
// through EscapeMarkdown.
func Compat(w io.Writer, r *tally.Results) error { return CompatSince(w, r, nil) }

// CompatSince writes the compatibility page as Compat does, and with a history h (nil for
// none) says since which version each client's outcome holds in a column of its own, and per
// client the range of releases the history swept.
func CompatSince(w io.Writer, r *tally.Results, h *tally.History) error {
	v := compatOf(r, h)
	prefix := slug(v.Scenario)
	if prefix == "" {
		prefix = "compat"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Who validates what: %s\n\n%s\n", EscapeMarkdown(v.Scenario), EscapeMarkdown(v.Facts))
	if v.Cache != "" {
		fmt.Fprintf(&b, "\n%s.\nAn outcome marked *reused* was taken from the cell cache, not run by this sweep.\n", EscapeMarkdown(v.Cache))
	}
	b.WriteString("\nPer fault, what each client did with it, in runs: `passed` (it handed on what was on the\n" +
		"wire: the bad payload got through), `threw` (its library raised), `rejected` (it handed its\n" +
		"user or model an error instead), `altered` (it handed on something else), `rpc-error` (it\n" +
		"reported the JSON-RPC error the wire carried).\n")
	if len(v.Axes) > 0 {
		b.WriteString("A client's outcome is given once where its " + andList(v.Axes) +
			" agreed, else\nonce per the fewest of them that change it (*where it differs*).\n")
	}
	b.WriteString("The numbered lines quote each entry's evidence; `toolscore report --format compat-html`\nshows all of it.\n")
	if h != nil {
		b.WriteString("*Since* says from which release of the client its outcome holds, as the history of its\n" +
			"releases (`toolscore history`) found it; *throughout* where it held from the first release\n" +
			"the history could run, so no change was seen.\n")
	}

	if h != nil {
		b.WriteString("\n## Clients\n\n| client | library | releases |\n|---|---|---|\n")
	} else {
		b.WriteString("\n## Clients\n\n| client | library |\n|---|---|\n")
	}
	for _, c := range v.Clients {
		lib := c.Library
		if lib == "" {
			lib = "not reported"
		}
		if h != nil {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", EscapeMarkdown(c.Name), EscapeMarkdown(lib), EscapeMarkdown(releasesOf(h, c.Name)))
			continue
		}
		fmt.Fprintf(&b, "| %s | %s |\n", EscapeMarkdown(c.Name), EscapeMarkdown(lib))
	}
	for _, u := range v.Unavailable {
		fmt.Fprintf(&b, "\nUnavailable: %s\n", EscapeMarkdown(u))
	}

	for _, f := range v.Faults {
		fmt.Fprintf(&b, "\n### %s\n\n", EscapeMarkdown(f.Name))
		if f.Same != "" {
			same := f.Same
			if f.Entries[0].Since != "" {
				same += ", " + f.Entries[0].Since
			}
			fmt.Fprintf(&b, "%s: %s.\n", sameWho(len(f.Entries)), EscapeMarkdown(same))
			if reused := reusedClients(f); len(reused) > 0 {
				fmt.Fprintf(&b, "Reused from the cell cache: %s.\n", EscapeMarkdown(strings.Join(reused, ", ")))
			}
			writeEvidence(&b, prefix, f)
			continue
		}
		if h != nil {
			fmt.Fprintf(&b, "%s\n\n| client | outcome | since | where it differs | evidence |\n|---|---|---|---|---|\n", EscapeMarkdown(f.Summary))
		} else {
			fmt.Fprintf(&b, "%s\n\n| client | outcome | where it differs | evidence |\n|---|---|---|---|\n", EscapeMarkdown(f.Summary))
		}
		for _, e := range f.Entries {
			client := ""
			if e.First {
				client = EscapeMarkdown(e.Client)
			}
			ev := ""
			if n := evidenceNumber(f, e); n > 0 {
				ev = fmt.Sprintf("[%d](#%s-%s-%d)", n, prefix, slug(f.Name), n)
			}
			counts := EscapeMarkdown(e.Counts)
			if m := e.reusedMark(); m != "" {
				counts += " *" + m + "*"
			}
			if h != nil {
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", client, counts, EscapeMarkdown(e.Since), EscapeMarkdown(e.Where), ev)
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", client, counts, EscapeMarkdown(e.Where), ev)
		}
		writeEvidence(&b, prefix, f)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// reusedMark says how much of an entry the cell cache gave: "reused" (all its cells),
// "2 of 4 cells reused", or "" when this sweep ran them all.
func (e compatEntry) reusedMark() string {
	switch {
	case e.Reused == 0:
		return ""
	case e.Reused == len(e.Cells):
		return "reused"
	}
	return fmt.Sprintf("%d of %d cells reused", e.Reused, len(e.Cells))
}

// reusedClients names a fault's entries with cells from the cell cache, with how many when
// not all: for a fault whose clients all agreed, which the table does not list.
func reusedClients(f compatFault) []string {
	var out []string
	for _, e := range f.Entries {
		switch m := e.reusedMark(); m {
		case "":
		case "reused":
			out = append(out, e.Client)
		default:
			out = append(out, e.Client+" ("+m+")")
		}
	}
	return out
}

// writeEvidence lists a fault's entries that have evidence, each behind its anchor.
func writeEvidence(b *strings.Builder, prefix string, f compatFault) {
	first := true
	for _, e := range f.Entries {
		n := evidenceNumber(f, e)
		if n == 0 {
			continue
		}
		if first {
			b.WriteString("\n")
			first = false
		}
		who := e.Client
		if e.Where != "" {
			who += ", " + e.Where
		}
		// The evidence goes on a line of its own that starts with its outcome, a word, so no
		// text from the server opens a heading, list or quote there.
		fmt.Fprintf(b, "%d. <a id=\"%s-%s-%d\"></a>%s —\n   %s: %s\n", n, prefix, slug(f.Name), n,
			EscapeMarkdown(who), EscapeMarkdown(e.EvidenceOutcome), EscapeMarkdown(oneLine(e.Evidence, compatEvidenceWidth)))
	}
}

// evidenceNumber is e's place among the fault's entries that have evidence (1, 2, ...: the
// numbers of the Markdown list under the table, which a renderer numbers on from its first),
// 0 when e has none.
func evidenceNumber(f compatFault, e compatEntry) int {
	n := 0
	for _, x := range f.Entries {
		if x.Evidence != "" {
			n++
		}
		if x.N == e.N {
			if x.Evidence == "" {
				return 0
			}
			return n
		}
	}
	return 0
}

// oneLine is text as one line of at most n characters, "…" marking a cut.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// andList joins names as prose: "a", "a and b", "a, b and c"; each is plural-ised with "s".
func andList(names []string) string {
	var p []string
	for _, n := range names {
		p = append(p, n+"s")
	}
	if len(p) < 2 {
		return strings.Join(p, "")
	}
	return strings.Join(p[:len(p)-1], ", ") + " and " + p[len(p)-1]
}

// sameWho says who agreed on a fault's outcome: "All 4 clients", or "The 1 client".
func sameWho(n int) string {
	if n == 1 {
		return "The 1 client"
	}
	return fmt.Sprintf("All %d clients", n)
}
