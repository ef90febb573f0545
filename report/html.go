package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// htmlFormat is report.html, with the example runs' evidence.
var htmlFormat = Format{
	Name: "html", Help: record.HTMLFile, File: record.HTMLFile, Output: "html", Baseline: true, Evidence: true,
	Results: func(w io.Writer, r *tally.Results, in Inputs) error { return HTMLPage(w, r, in.Evidence, in.Baseline) },
}

// maxField is how many characters of one piece of outside text the HTML report keeps: a
// server under test can't make the page as large as its answers.
const maxField = 4000

// The page's grid cells wrap their counts between words and a client's name where it must, so
// that fourteen clients fit a 1400 px window; a fault's name stays whole (TestReportLeadsWithTheFinding).
//
//go:embed html.tmpl
var htmlSource string

var htmlPage = template.Must(template.New("report").Funcs(template.FuncMap{"breakable": breakable}).Parse(htmlSource))

// breakable is a client's name escaped, with a place to break the line after each "/", so that
// a narrow column breaks "go-sdk/call" there rather than inside a word.
func breakable(name string) template.HTML {
	parts := strings.SplitAfter(name, "/")
	for i, p := range parts {
		parts[i] = template.HTMLEscapeString(p)
	}
	return template.HTML(strings.Join(parts, "<wbr>"))
}

// colours are the outcomes the page has a colour for, in the legend's order: every outcome
// but those of a run that is no one's finding (its server not ready, a replay it left, a run
// toolscore did not observe whole). A cell
// whose most frequent outcome is another (one of those, or a hand-edited results.json) is drawn
// in the neutral colour.
var colours = slices.DeleteFunc(record.Outcomes(), func(o record.Outcome) bool {
	return o == record.NotReady || o == record.Diverged || o == record.OffPath || o == record.Unobserved
})

// coloured says whether the page has a colour for outcome.
func coloured(outcome string) bool { return slices.Contains(colours, record.Outcome(outcome)) }

// HTML writes report.html from results.json alone: the page of HTMLPage with each cell's
// evidence as results.json keeps it.
func HTML(w io.Writer, r *tally.Results) error { return HTMLPage(w, r, nil, nil) }

// HTMLPage writes report.html: one self-contained page (no external script, font or style)
// with the matrix per schema mode, protocol and transport as grids coloured by each cell's
// most frequent outcome, its counts in each cell, marks on the cells that differ between
// schema modes, protocols or against the baseline, filters by client and fault, and for each
// cell its evidence (ev adds the wire, the client's answer, the model's view and a transcript
// excerpt from runs.jsonl). Every outside string is HTML-escaped by html/template, after
// control characters and bidirectional overrides became U+FFFD; the page's script reads no
// text from the results, it only shows and hides elements.
func HTMLPage(w io.Writer, r *tally.Results, ev Evidence, cmp *Comparison) error {
	var b bytes.Buffer
	if err := htmlPage.Execute(&b, buildPage(r, ev, cmp)); err != nil {
		return fmt.Errorf("rendering the HTML report: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

type page struct {
	Title, Facts, Interrupted string
	Cache                     string      // what ran and what the cell cache gave, when it gave any
	CacheMisses               []cacheMiss // why cells ran although the sweep had a cell cache
	Reused                    bool        // some cell came from the cell cache
	MixedHead                 string
	Mixed                     []string // the cells whose runs disagree, with their counts
	Clients, Faults           []string
	Tables                    []gridTable
	Cells                     []cellEvidence
	Legend                    []string
	Expectations              []expectLine
	Held                      string
	SchemaChanges             []schemaGroup
	ProtocolChanges           []string
	BothModes, ManyProtocols  bool
	LoadDecidedHead           string   // how many cells the load decided, left out of the comparisons
	LoadDecided               []string // those cells, with their counts
	Baseline                  *baselineView
	Unavailable               []string
	NotApplicable             []string
}

type gridTable struct {
	Title   string
	Clients []string
	Rows    []gridRow
}

type gridRow struct {
	Fault string
	Cells []gridCell
}

type gridCell struct {
	ID            int // 0: the sweep had no such cell
	Client, Class string
	Counts        string
	Marks         string // the letters of the marks: s (schema), p (protocol), l (load decided), b (baseline), r (reused)
	Why           string // the marks in words, for the cell's title
}

type cellEvidence struct {
	ID                          int
	Title, Counts, Marks        string
	Library, Negotiated, Median string
	Model                       string // the agent's model view and answers, counted
	Reused                      string // for a cell from the cell cache: when it ran, its entry
	Examples                    []example
}

type example struct {
	Outcome, Class, Count string
	Run                   int
	Evidence              string
	Recorded              bool // a runs.jsonl record was found
	Introduced            []introduced
	Wire                  string
	Returned              string
	Raised                string
	ModelView             string // the kind: structured, text, error, none
	ModelSaw              string // what the model was shown, as the agent recorded it
	AgentAnswer           string
	Grade                 string
	Stderr                string
	Excerpt, Tee          string
}

type introduced struct{ Path, Was, Value string }

type expectLine struct {
	Line                 int
	Status, Text, Misses string
}

type baselineView struct {
	Path    string
	Missing bool
	Changes []string
}

// buildPage turns the results into what the template shows, every outside string cleaned.
func buildPage(r *tally.Results, ev Evidence, cmp *Comparison) page {
	d := dimsOf(r)
	runs, planned, cells := runCounts(r)
	p := page{Title: line(r.Scenario)}
	facts := []string{fmt.Sprintf("%d of %d runs in %d cells", runs, planned, cells)}
	if r.Backend != "" {
		facts = append(facts, "backend "+line(r.Backend))
	}
	if r.Toolscore != "" {
		facts = append(facts, "toolscore "+line(r.Toolscore))
	}
	if !r.Started.IsZero() {
		facts = append(facts, "started "+r.Started.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	if t := took(r); t != "" {
		facts = append(facts, "took "+t)
	}
	p.Facts = strings.Join(facts, " · ")
	p.CacheMisses, p.Reused = cacheMisses(r, line), reusedAny(r)
	if p.Reused || len(p.CacheMisses) > 0 {
		p.Cache = line(cacheLine(r, Plain))
	}
	if r.Interrupted {
		p.Interrupted = fmt.Sprintf("Interrupted: %d of %d planned runs did not run.", planned-runs, planned)
	}
	if mixed := mixedCells(r); len(mixed) > 0 {
		p.MixedHead = mixedHead(len(mixed))
		for _, c := range mixed {
			p.Mixed = append(p.Mixed, line(c.Coordinates()+": "+c.Shown()))
		}
	}

	// Marks: which cells differ between schema modes, protocols, or against the baseline.
	marks := map[*tally.Cell]map[byte]string{}
	mark := func(c *tally.Cell, m byte, why string) {
		if marks[c] == nil {
			marks[c] = map[byte]string{}
		}
		marks[c][m] = why
	}
	bySchema := map[string][]*tally.Cell{}
	byProtocol := map[string][]*tally.Cell{}
	byKey := map[string]*tally.Cell{}
	for _, c := range r.Cells {
		if c == nil {
			continue
		}
		byKey[c.Key()] = c
		k := c.Client + "|" + c.Fault + "|" + c.Protocol + "|" + c.Transport + "|" + c.Tool
		bySchema[k] = append(bySchema[k], c)
		k = c.Client + "|" + c.Fault + "|" + c.Schema + "|" + c.Transport + "|" + c.Tool
		byProtocol[k] = append(byProtocol[k], c)
	}
	p.BothModes, p.ManyProtocols = bothModes(r), manyProtocols(r)
	if p.BothModes {
		for _, ch := range SchemaChanges(r) {
			for _, c := range bySchema[ch.Client+"|"+ch.Fault+"|"+ch.Protocol+"|"+ch.Transport+"|"+ch.Tool] {
				mark(c, 's', "differs between schema modes")
			}
		}
	}
	if p.ManyProtocols {
		for _, ch := range ProtocolChanges(r) {
			for _, c := range byProtocol[ch.Client+"|"+ch.Fault+"|"+ch.Schema+"|"+ch.Transport+"|"+ch.Tool] {
				mark(c, 'p', "differs between protocols")
			}
			var under []string
			for _, u := range ch.Under {
				under = append(under, u.Counts+" ("+u.Protocol+")")
			}
			s := who(ch.Tool, ch.Client) + " × " + ch.Fault + " × " + ch.Schema
			if d.transport {
				s += " × " + ch.Transport
			}
			p.ProtocolChanges = append(p.ProtocolChanges, line(s+": "+strings.Join(under, " → ")))
		}
	}
	if decided := LoadDecided(r); len(decided) > 0 && (p.BothModes || p.ManyProtocols) {
		p.LoadDecidedHead = line(loadDecidedHead(len(decided)) + ".")
		for _, c := range decided {
			mark(c, 'l', "the machine's load decided its runs: left out of the comparisons")
			p.LoadDecided = append(p.LoadDecided, line(c.Coordinates()+": "+c.Shown()))
		}
	}
	if cmp != nil {
		p.Baseline = &baselineView{Path: line(cmp.Baseline), Missing: cmp.Missing}
		for _, ch := range cmp.Changes {
			if c := byKey[ch.Key]; c != nil {
				mark(c, 'b', "changed against the baseline")
			}
			s := who(ch.Tool, ch.Client) + " × " + ch.Fault + " × " + ch.Schema
			if d.protocol {
				s += " × " + ch.Protocol
			}
			if d.transport {
				s += " × " + ch.Transport
			}
			s += ": " + ch.Kind
			if n := clientLine(cmp.Manifest, ch.Client); n > 0 {
				s = fmt.Sprintf("manifest line %d: %s", n, s)
			}
			if ch.Before != "" {
				s += ", was " + ch.Before
			}
			if ch.After != "" {
				s += ", now " + ch.After
			}
			p.Baseline.Changes = append(p.Baseline.Changes, line(s))
		}
	}
	// A cell taken from the cell cache is marked so that no one reads it as run by this sweep.
	for _, c := range r.Cells {
		if c != nil && c.ReusedFrom != nil {
			mark(c, 'r', reusedRuns(c)+"reused from the cell cache (ran "+reusedWhen(c)+")")
		}
	}
	markOf := func(c *tally.Cell) (letters, why string) {
		var whys []string
		for _, m := range []byte("splbr") {
			if w, ok := marks[c][m]; ok {
				letters += string(m)
				whys = append(whys, w)
			}
		}
		return letters, strings.Join(whys, "; ")
	}

	ids := map[*tally.Cell]int{}
	seenClient, seenFault := map[string]bool{}, map[string]bool{}
	for _, c := range r.Cells {
		if c == nil {
			continue
		}
		ids[c] = len(ids) + 1
		if !seenClient[c.Client] {
			seenClient[c.Client] = true
			p.Clients = append(p.Clients, line(c.Client))
		}
		if !seenFault[c.Fault] {
			seenFault[c.Fault] = true
			p.Faults = append(p.Faults, line(c.Fault))
		}
		letters, _ := markOf(c)
		p.Cells = append(p.Cells, cellView(c, ids[c], letters, ev, d))
	}
	if p.BothModes {
		p.SchemaChanges = schemaGroups(r, ids, d)
	}
	legend := map[string]bool{}
	for _, t := range tables(r) {
		gt := gridTable{Title: upperFirst(d.title(t, line))}
		for _, client := range t.Clients {
			gt.Clients = append(gt.Clients, line(client))
		}
		for _, f := range t.Faults {
			row := gridRow{Fault: line(f)}
			for _, client := range t.Clients {
				gc := gridCell{Client: line(client), Counts: "-", Class: "none"}
				if c := t.cell(f, client); c != nil {
					gc.ID = ids[c]
					gc.Counts = line(countsOf(c))
					gc.Class = "other"
					if top := byCount(c); len(top) > 0 {
						if coloured(top[0]) {
							gc.Class = "o-" + top[0]
							legend[top[0]] = true
						}
						if c.IsMixed() {
							gc.Class += " mixed"
						}
					} else {
						gc.Class = "none"
					}
					gc.Marks, gc.Why = markOf(c)
				}
				row.Cells = append(row.Cells, gc)
			}
			gt.Rows = append(gt.Rows, row)
		}
		p.Tables = append(p.Tables, gt)
	}
	for _, o := range colours {
		if legend[string(o)] {
			p.Legend = append(p.Legend, string(o))
		}
	}

	if len(r.Expectations) > 0 {
		p.Held = heldLine(r)
	}
	for _, e := range r.Expectations {
		el := expectLine{Line: e.Line, Status: e.State(), Text: line(selectors(e, func(s string) string { return s }) + " → want " + e.Want())}
		switch e.State() {
		case tally.Unmet:
			el.Misses = block(strings.Join(e.Misses, "; "))
		case tally.Unchecked:
			el.Misses = block(e.Unchecked)
		}
		p.Expectations = append(p.Expectations, el)
	}
	for _, u := range r.Unavailable {
		p.Unavailable = append(p.Unavailable, line(u.Client+": "+u.Reason))
	}
	for _, n := range r.NotApplicable {
		p.NotApplicable = append(p.NotApplicable, line(strings.Join(n.Faults, ", ")+" on "+n.Tool+": "+n.Reason))
	}
	return p
}

// cellView is one cell's evidence: its counts, and each outcome's first run.
func cellView(c *tally.Cell, id int, marks string, ev Evidence, d dims) cellEvidence {
	title := who(c.Tool, c.Client) + " × " + c.Fault + " × schema " + c.Schema
	if d.protocol {
		title += " × protocol " + c.Protocol
	}
	if d.transport {
		title += " × transport " + c.Transport
	}
	v := cellEvidence{ID: id, Title: line(title), Counts: line(countsOf(c)), Marks: marks, Library: line(c.Library)}
	if len(c.Negotiated) > 0 {
		var parts []string
		for _, k := range sortedKeys(c.Negotiated) {
			parts = append(parts, fmt.Sprintf("%s %d/%d", k, c.Negotiated[k], c.Runs))
		}
		v.Negotiated = line(strings.Join(parts, ", "))
	}
	if c.Runs > 0 {
		v.Median = fmt.Sprintf("%d ms", c.MedianMillis)
	}
	if len(c.ModelView) > 0 {
		v.Model = line(viewCounts(c))
	}
	if c.ReusedFrom != nil {
		v.Reused = reusedRuns(c) + "from the cell cache: ran in the sweep started " + reusedWhen(c)
		if c.CacheKey != "" {
			v.Reused += ", entry " + line(c.CacheKey)
		}
	}
	for _, o := range byCount(c) {
		x := example{Outcome: line(o), Class: "other", Count: fmt.Sprintf("%d/%d", c.Outcome[o], c.Runs)}
		if coloured(o) {
			x.Class = "o-" + o
		}
		if ex, ok := c.Examples[o]; ok {
			x.Run, x.Evidence, x.Tee = ex.Run, block(ex.Evidence), line(ex.Tee)
			if rec := ev.of(c, ex.Run); rec != nil {
				fillExample(&x, rec)
			}
		}
		v.Examples = append(v.Examples, x)
	}
	return v
}

// fillExample adds a run's record to its example.
func fillExample(x *example, ev *RunEvidence) {
	rec := ev.Record
	x.Recorded = true
	for _, in := range rec.Introduced {
		x.Introduced = append(x.Introduced, introduced{Path: line(in.Path), Was: block(compact(in.Was, "")), Value: block(compact(in.Value, "null"))})
	}
	x.Wire = block(rec.Wire)
	if x.Wire == "" && rec.WireLarge != nil {
		x.Wire = block("(too large to keep whole) " + prettyOf(rec.WireLarge))
	}
	if o := rec.Observation; o != nil {
		switch {
		case len(o.Returned) > 0:
			x.Returned = block(pretty(o.Returned))
		case o.ReturnedLarge != nil:
			x.Returned = block("(too large to keep whole) " + prettyOf(o.ReturnedLarge))
		}
		if o.Raised != nil {
			x.Raised = block(prettyOf(o.Raised))
		}
		if a := o.Agent; a != nil {
			x.ModelSaw = block(prettyOf(a.ModelView))
			x.AgentAnswer = block(a.Answer)
		}
	}
	x.ModelView = line(rec.ModelView)
	if rec.Answer != "" {
		x.Grade = line(rec.Answer)
		if rec.Flagged {
			x.Grade += ", flagged"
		}
	}
	x.Stderr = block(rec.Stderr)
	x.Excerpt = block(ev.Excerpt)
	if rec.Tee != "" {
		x.Tee = line(rec.Tee)
	}
}

// compact is a recorded value as runs.jsonl holds it (its numbers as written: record.Introduced
// reads them so), or none for a value that is not there.
func compact(v any, none string) string {
	if v == nil {
		return none
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// prettyOf is pretty of a recorded value.
func prettyOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return pretty(b)
}

// pretty indents a recorded JSON value for reading, its strings as their text (no \u003c for
// <: the page escapes what it shows); what does not parse is shown as it is.
func pretty(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return string(raw)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return string(raw)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// block makes outside text safe to show in a pre-formatted block: it keeps the first maxField
// characters (marking a cut), keeps line breaks and tabs, and turns every other control
// character and bidirectional override into U+FFFD. html/template escapes the rest.
func block(s string) string {
	s = truncate(strings.ToValidUTF8(s, "\uFFFD"), maxField)
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if r == '\r' {
			return -1
		}
		if isControl(r) {
			return '\uFFFD'
		}
		return r
	}, s)
}

// line is a block for one line: a heading, a table cell, a list item.
func line(s string) string {
	return strings.Join(strings.FieldsFunc(block(s), func(r rune) bool { return r == '\n' || r == '\t' }), " ")
}

// sortedKeys lists m's keys most frequent first, ties by name.
func sortedKeys(m map[string]int) []string {
	return byCount(&tally.Cell{Outcome: m})
}

// schemaGroup is one line of what publishing the schema changed, grouped as the terminal groups
// it: who, how the counts went, under which protocols when not all, and the faults, each a link
// to the evidence of its published cell.
type schemaGroup struct {
	Who, Counts, Under string
	Faults             []faultLink
}

type faultLink struct {
	Name string
	ID   int
}

// schemaGroups folds SchemaChanges(r) as the terminal does (groupSchemaChanges), each fault
// linked to its published cell's evidence (ids) under the group's first protocol.
func schemaGroups(r *tally.Results, ids map[*tally.Cell]int, d dims) []schemaGroup {
	cell := map[record.Cell]*tally.Cell{}
	for _, c := range r.Cells {
		if c != nil {
			cell[record.Cell{Client: c.Client, Fault: c.Fault, Schema: c.Schema, Protocol: c.Protocol, Transport: c.Transport, Tool: c.Tool}] = c
		}
	}
	protocols := len(protocolsOf(r))
	var out []schemaGroup
	for _, g := range groupSchemaChanges(SchemaChanges(r)) {
		sg := schemaGroup{Who: line(who(g.Tool, g.Client)), Counts: line(g.Hidden + " (hidden) → " + g.Published + " (published)")}
		if d.transport {
			sg.Who += " (" + line(g.Transport) + ")"
		}
		if d.protocol && len(g.protocols) < protocols {
			sg.Under = line("under " + strings.Join(g.protocols, ", ") + " only")
		}
		for _, f := range g.faults {
			c := cell[record.Cell{Client: g.Client, Fault: f, Schema: "published", Protocol: g.protocols[0], Transport: g.Transport, Tool: g.Tool}]
			sg.Faults = append(sg.Faults, faultLink{Name: line(f), ID: ids[c]})
		}
		out = append(out, sg)
	}
	return out
}
