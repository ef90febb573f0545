package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// markdownFormat is summary.md.
var markdownFormat = Format{
	Name: "md", Also: []string{"markdown"}, Help: record.SummaryFile, File: record.SummaryFile,
	Results: func(w io.Writer, r *tally.Results, _ Inputs) error { return Markdown(w, r) },
}

// MaxEscaped is how many characters of one piece of outside text EscapeMarkdown keeps, so a
// server under test can't fill the job summary or a PR comment.
const MaxEscaped = 300

// maxEvidence is how many cells of one unmet expectation show their evidence; the misses
// above them already name every cell.
const maxEvidence = 10

// zwj, the zero-width joiner, goes where a mention, an issue reference or a bare link would
// otherwise form: invisible when rendered, but it breaks the pattern GitHub looks for.
const zwj = "\u200d"

// Markdown writes summary.md: a heading with the scenario, backend, toolscore version and run
// counts, a table per schema mode, what publishing the schema changed, the expectations that
// did not hold (with the evidence of the cells that broke them) and the clients that could not
// run. Every string from the results goes through EscapeMarkdown: a server under test or a
// client library wrote much of it, and a pull request can change the rest.
func Markdown(w io.Writer, r *tally.Results) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# toolscore: %s\n\n", EscapeMarkdown(r.Scenario))
	misses := cacheMisses(r, EscapeMarkdown)
	if r.RunsReused > 0 || len(misses) > 0 {
		b.WriteString(cacheLine(r, EscapeMarkdown) + "\n\n")
	}
	if len(misses) > 0 {
		b.WriteString("Run rather than taken from the cell cache:\n\n")
		for _, m := range misses {
			b.WriteString("- " + m.Text)
			if m.Volatile {
				b.WriteString(". " + strings.Replace(VolatileHint, "volatile:", "`volatile:`", 1))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	runs, planned, cells := runCounts(r)
	facts := []string{fmt.Sprintf("**%d of %d runs** in %d cells", runs, planned, cells)}
	if r.Backend != "" {
		backend := "backend " + EscapeMarkdown(r.Backend)
		if r.BackendWhy != "" {
			backend += " (" + EscapeMarkdown(r.BackendWhy) + ")"
		}
		facts = append(facts, backend)
	}
	if r.Toolscore != "" {
		facts = append(facts, "toolscore "+EscapeMarkdown(r.Toolscore))
	}
	if !r.Started.IsZero() {
		facts = append(facts, "started "+r.Started.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	if d := took(r); d != "" {
		facts = append(facts, "took "+d)
	}
	b.WriteString(strings.Join(facts, " · ") + "\n")
	if r.Interrupted {
		fmt.Fprintf(&b, "\n**Interrupted:** %d of %d planned runs did not run.\n", planned-runs, planned)
	}
	if mixed := mixedCells(r); len(mixed) > 0 {
		fmt.Fprintf(&b, "\n**Mixed:** %s:", mixedHead(len(mixed)))
		for i, c := range mixed {
			if i == fewMixed {
				fmt.Fprintf(&b, "\n- and %d more, marked (mixed) below", len(mixed)-fewMixed)
				break
			}
			fmt.Fprintf(&b, "\n- %s: %s", EscapeMarkdown(c.Coordinates()), EscapeMarkdown(c.Shown()))
		}
		b.WriteString("\n")
	}

	d := dimsOf(r)
	for _, t := range tables(r) {
		fmt.Fprintf(&b, "\n## %s", upperFirst(d.title(t, EscapeMarkdown)))
		b.WriteString("\n\n| fault |")
		for _, client := range t.Clients {
			fmt.Fprintf(&b, " %s |", EscapeMarkdown(client))
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(t.Clients)) + "\n")
		for _, f := range t.Faults {
			fmt.Fprintf(&b, "| %s |", EscapeMarkdown(f))
			for _, client := range t.Clients {
				counts := "-"
				if c := t.cell(f, client); c != nil {
					counts = EscapeMarkdown(countsOf(c))
				}
				fmt.Fprintf(&b, " %s |", counts)
			}
			b.WriteString("\n")
		}
	}

	for _, t := range viewTables(r) {
		fmt.Fprintf(&b, "\n## The model's view, %s", d.title(t, EscapeMarkdown))
		b.WriteString("\n\nWhat each agent put in front of the model (structured, text, error, none), and how its answer graded.\n\n| fault |")
		for _, client := range t.Clients {
			fmt.Fprintf(&b, " %s |", EscapeMarkdown(client))
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(t.Clients)) + "\n")
		for _, f := range t.Faults {
			fmt.Fprintf(&b, "| %s |", EscapeMarkdown(f))
			for _, client := range t.Clients {
				fmt.Fprintf(&b, " %s |", EscapeMarkdown(viewCounts(t.cell(f, client))))
			}
			b.WriteString("\n")
		}
	}

	if bothModes(r) {
		b.WriteString("\n## Where publishing the schema changed the outcome\n\n")
		changes := SchemaChanges(r)
		if len(changes) == 0 {
			b.WriteString("Publishing the schema changed no outcome.\n")
		}
		for _, c := range changes {
			fmt.Fprintf(&b, "- **%s** × %s", EscapeMarkdown(who(c.Tool, c.Client)), EscapeMarkdown(c.Fault))
			if d.protocol {
				fmt.Fprintf(&b, " × %s", EscapeMarkdown(c.Protocol))
			}
			if d.transport {
				fmt.Fprintf(&b, " × %s", EscapeMarkdown(c.Transport))
			}
			fmt.Fprintf(&b, ": %s (hidden) → %s (published)\n", EscapeMarkdown(c.Hidden), EscapeMarkdown(c.Published))
		}
	}

	if manyProtocols(r) {
		b.WriteString("\n## Where changing the protocol changed the outcome\n\n")
		changes := ProtocolChanges(r)
		if len(changes) == 0 {
			b.WriteString("Changing the protocol changed no outcome.\n")
		}
		for _, c := range changes {
			fmt.Fprintf(&b, "- **%s** × %s × %s", EscapeMarkdown(who(c.Tool, c.Client)), EscapeMarkdown(c.Fault), EscapeMarkdown(c.Schema))
			if d.transport {
				fmt.Fprintf(&b, " × %s", EscapeMarkdown(c.Transport))
			}
			var under []string
			for _, u := range c.Under {
				under = append(under, fmt.Sprintf("%s (%s)", EscapeMarkdown(u.Counts), EscapeMarkdown(u.Protocol)))
			}
			fmt.Fprintf(&b, ": %s\n", strings.Join(under, " → "))
		}
	}

	if decided := LoadDecided(r); len(decided) > 0 && (bothModes(r) || manyProtocols(r)) {
		fmt.Fprintf(&b, "\n%s:\n\n", loadDecidedHead(len(decided)))
		for _, c := range decided {
			fmt.Fprintf(&b, "- %s: %s\n", EscapeMarkdown(c.Coordinates()), EscapeMarkdown(c.Shown()))
		}
	}

	if len(r.Expectations) > 0 {
		missed, open := unmet(r), unchecked(r)
		if len(missed) == 0 {
			fmt.Fprintf(&b, "\n## Expectations\n\n%s\n", heldLine(r))
		} else {
			fmt.Fprintf(&b, "\n## Unmet expectations\n\n%s\n\n", heldLine(r))
		}
		for _, e := range missed {
			markdownExpectation(&b, r, e)
		}
		if len(open) > 0 {
			b.WriteString("\nUnchecked, neither held nor unmet:\n\n")
		}
		for _, e := range open {
			fmt.Fprintf(&b, "- **line %d**: %s → want **%s**; unchecked: %s\n",
				e.Line, selectors(e, EscapeMarkdown), EscapeMarkdown(e.Want()), EscapeMarkdown(e.Unchecked))
		}
	}

	if len(r.NotApplicable) > 0 {
		b.WriteString("\n## Not applicable, not run\n\n")
		for _, n := range r.NotApplicable {
			fmt.Fprintf(&b, "- **%s** on %s: %s\n", EscapeMarkdown(strings.Join(n.Faults, ", ")), EscapeMarkdown(n.Tool), EscapeMarkdown(n.Reason))
		}
	}

	if len(r.Unavailable) > 0 {
		b.WriteString("\n## Unavailable clients\n\n")
		for _, u := range r.Unavailable {
			fmt.Fprintf(&b, "- **%s**: %s\n", EscapeMarkdown(u.Client), EscapeMarkdown(u.Reason))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// markdownExpectation writes one unmet expectation as a list item, with the first evidence of
// each outcome that broke it as sub-items.
func markdownExpectation(b *strings.Builder, r *tally.Results, e tally.Expectation) {
	var got []string
	for _, m := range e.Misses {
		got = append(got, EscapeMarkdown(m))
	}
	if len(got) == 0 {
		got = []string{"no misses recorded"}
	}
	fmt.Fprintf(b, "- **line %d**: %s → want **%s**; got: %s\n",
		e.Line, selectors(e, EscapeMarkdown), EscapeMarkdown(e.Want()), strings.Join(got, "; "))

	shown := 0
	for _, c := range r.Cells {
		if c == nil || !matches(e, c) {
			continue
		}
		for _, o := range byCount(c) {
			if e.Allows(c, o) {
				continue
			}
			if shown == maxEvidence {
				fmt.Fprintf(b, "  - and more: see results.json\n")
				return
			}
			shown++
			fmt.Fprintf(b, "  - %s: %s %d/%d", EscapeMarkdown(c.Coordinates()), EscapeMarkdown(o), c.Outcome[o], c.Runs)
			if ex, ok := c.Examples[o]; ok {
				fmt.Fprintf(b, ", first in run %d", ex.Run)
				if ex.Evidence != "" {
					fmt.Fprintf(b, ": %s", EscapeMarkdown(ex.Evidence))
				}
				if ex.Tee != "" {
					fmt.Fprintf(b, " (transcript %s)", EscapeMarkdown(ex.Tee))
				}
			}
			b.WriteString("\n")
		}
	}
}

// upperFirst starts a heading with a capital: "schema hidden" is "Schema hidden".
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// byCount lists a cell's outcomes most frequent first, ties by name, as Counts orders them.
func byCount(c *tally.Cell) []string {
	var out []string
	for o := range c.Outcome {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool {
		if c.Outcome[out[i]] != c.Outcome[out[j]] {
			return c.Outcome[out[i]] > c.Outcome[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}

// EscapeMarkdown makes text from outside safe anywhere on one line of GitHub-flavoured
// Markdown, a table cell included: it keeps the first MaxEscaped characters (marking a cut with
// "…"), folds line breaks into one space, replaces control characters and bidirectional
// overrides with U+FFFD, writes < > & as entities, backslash-escapes the characters that make
// code, emphasis, strikethrough, links, math or table cells (\ ` * _ ~ [ ] | $), and puts a
// zero-width joiner where an @mention, a #123 reference or a bare http:// or www. link would
// form. The result shows the same characters as the input.
func EscapeMarkdown(s string) string {
	runes := make([]rune, 0, min(len(s), MaxEscaped))
	cut := false
	for _, r := range s {
		if len(runes) == MaxEscaped {
			cut = true
			break
		}
		runes = append(runes, r)
	}
	var b strings.Builder
	for i, r := range runes {
		switch {
		case isBreak(r):
			if i == 0 || !isBreak(runes[i-1]) {
				b.WriteByte(' ')
			}
		case isControl(r):
			b.WriteRune('\uFFFD')
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case strings.ContainsRune("\\`*_~[]|$", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '@':
			b.WriteString("@" + zwj)
		case r == '#' && i+1 < len(runes) && unicode.IsDigit(runes[i+1]):
			b.WriteString("#" + zwj)
		case r == ':' && i+2 < len(runes) && runes[i+1] == '/' && runes[i+2] == '/':
			b.WriteString(":" + zwj)
		case r == '.' && i >= 3 && strings.EqualFold(string(runes[i-3:i]), "www"):
			b.WriteString(zwj + ".")
		default:
			b.WriteRune(r)
		}
	}
	if cut {
		b.WriteString("…")
	}
	return b.String()
}

// Summary writes the Markdown report, then what changed against the baseline when cmp is not
// nil: what the action writes as the job summary and comments on a pull request. Like Markdown, it passes every outside string through EscapeMarkdown.
func Summary(w io.Writer, r *tally.Results, cmp *Comparison) error {
	var b strings.Builder
	if err := Markdown(&b, r); err != nil {
		return err
	}
	if cmp != nil {
		b.WriteString("\n")
		baselineMarkdown(&b, r, cmp)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// baselineMarkdown writes the "Changes against the baseline" section.
func baselineMarkdown(b *strings.Builder, r *tally.Results, cmp *Comparison) {
	b.WriteString("## Changes against the baseline\n\n")
	where := EscapeMarkdown(cmp.Baseline)
	if cmp.Missing {
		fmt.Fprintf(b, "No baseline at %s yet: nothing to compare. Commit these results (or keep them as an artifact) to compare the next run with them.\n", where)
		return
	}
	if len(cmp.Changes) == 0 {
		fmt.Fprintf(b, "Compared with %s: no cell changed.\n", where)
		return
	}
	n := len(cmp.Changes)
	fmt.Fprintf(b, "Compared with %s: %d %s changed.\n\n", where, n, Plural(n, "cell", "cells"))
	d := dimsOf(r)
	b.WriteString("|")
	if d.tool {
		b.WriteString(" tool |")
	}
	b.WriteString(" client | fault | schema |")
	if d.protocol {
		b.WriteString(" protocol |")
	}
	if d.transport {
		b.WriteString(" transport |")
	}
	b.WriteString(" baseline | now |\n|---|---|---|")
	if d.tool {
		b.WriteString("---|")
	}
	if d.protocol {
		b.WriteString("---|")
	}
	if d.transport {
		b.WriteString("---|")
	}
	b.WriteString("---|---|\n")
	for _, c := range cmp.Changes {
		before, after := c.Before, c.After
		switch c.Kind {
		case "new":
			before = "not in the baseline"
		case "gone":
			after = "not run"
		}
		b.WriteString("|")
		if d.tool {
			fmt.Fprintf(b, " %s |", EscapeMarkdown(c.Tool))
		}
		fmt.Fprintf(b, " %s | %s | %s |", EscapeMarkdown(c.Client), EscapeMarkdown(c.Fault), EscapeMarkdown(c.Schema))
		if d.protocol {
			fmt.Fprintf(b, " %s |", EscapeMarkdown(c.Protocol))
		}
		if d.transport {
			fmt.Fprintf(b, " %s |", EscapeMarkdown(c.Transport))
		}
		fmt.Fprintf(b, " %s | **%s** |\n", EscapeMarkdown(before), EscapeMarkdown(after))
	}
}
