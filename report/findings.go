package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/tally"
)

// Finding is one thing a sweep found that a line of its manifest answers for: what the
// action annotates, and what an editor could show on the line.
type Finding struct {
	Level   string // "error" (it fails the check under the FailOn given), "warning" or "notice"
	Kind    string // one of FindingKinds
	Line    int    // the manifest's line; 0 when no line answers for it
	Title   string // one line of plain text
	Message string // plain text
}

// FindingKinds are the kinds of findings, in the order Findings lists them within a level.
var FindingKinds = []string{"unmet expectation", "changed cell", "unchecked expectation", "unavailable client", "mixed cell"}

// Findings lists what a sweep found that a line of its manifest sc answers for, most important
// first: each unmet expectation on its expect entry (an error unless failOn is never), each
// cell changed against the baseline on its client entry, else its fault entry (an error when
// failOn has change), each expectation no run checked on its entry (an error when failOn has
// unchecked), each client that could not run on its entry (a warning), and each mixed cell on
// its client's entry (a notice); errors first, then warnings, then notices. A nil sc leaves
// every line 0; a nil cmp compares nothing. The outside text in them is plain and each piece
// bounded (PlainLine); a reader with limits of its own (GitHub's annotations) cuts them to fit.
func Findings(r *tally.Results, sc *scenario.Scenario, cmp *Comparison, failOn FailOn) []Finding {
	level := func(fails bool) string {
		if fails {
			return "error"
		}
		return "warning"
	}
	unmetLevel, changeLevel, uncheckedLevel := level(failOn.Unmet()), level(failOn.Change()), level(failOn.Unchecked())
	var all []Finding
	for _, e := range unmet(r) {
		all = append(all, expectationFinding(r, e, unmetLevel))
	}
	if cmp != nil {
		for _, c := range cmp.Changes {
			all = append(all, changeFinding(r, sc, c, changeLevel))
		}
	}
	for _, e := range unchecked(r) {
		all = append(all, Finding{Level: uncheckedLevel, Kind: "unchecked expectation", Line: e.Line,
			Title: "expectation not checked: want " + text(e.Want()),
			Message: fmt.Sprintf("%s: want %s; not checked, so neither held nor unmet: %s",
				selectors(e, text), wantPhrase(e, text), text(e.Unchecked))})
	}
	for _, u := range r.Unavailable {
		all = append(all, Finding{Level: "warning", Kind: "unavailable client", Line: clientLine(sc, u.Client),
			Title:   "client unavailable: " + text(u.Client),
			Message: fmt.Sprintf("%s could not run here: %s", text(u.Client), text(u.Reason))})
	}
	for _, c := range mixedCells(r) {
		cell := text(c.Coordinates())
		all = append(all, Finding{Level: "notice", Kind: "mixed cell", Line: clientLine(sc, c.Client),
			Title:   "mixed: " + cell,
			Message: fmt.Sprintf("%s: %s: the runs disagree (%s)", cell, text(c.Counts()), mixedWhy)})
	}
	// Errors first, then warnings, each in the order above.
	slices.SortStableFunc(all, func(a, b Finding) int { return levelRank(a.Level) - levelRank(b.Level) })
	return all
}

func levelRank(l string) int {
	switch l {
	case "error":
		return 0
	case "warning":
		return 1
	}
	return 2
}

func expectationFinding(r *tally.Results, e tally.Expectation, level string) Finding {
	title := fmt.Sprintf("expectation not met: want %s", text(e.Want()))
	var b strings.Builder
	fmt.Fprintf(&b, "%s: want %s; got:", selectors(e, text), wantPhrase(e, text))
	if len(e.Misses) == 0 {
		b.WriteString(" no misses recorded")
	}
	for _, m := range e.Misses {
		b.WriteString("\n- " + text(m))
	}
	// The first evidence of each other outcome, as the summary shows it.
	shown := 0
	for _, c := range r.Cells {
		if c == nil || !matches(e, c) {
			continue
		}
		for _, o := range byCount(c) {
			ex, ok := c.Examples[o]
			if e.Allows(c, o) || !ok || ex.Evidence == "" || shown == 3 {
				continue
			}
			shown++
			fmt.Fprintf(&b, "\n%s, %s in run %d: %s", text(c.Coordinates()), text(o), ex.Run, text(ex.Evidence))
		}
	}
	return Finding{Level: level, Kind: "unmet expectation", Line: e.Line, Title: title, Message: b.String()}
}

func changeFinding(r *tally.Results, sc *scenario.Scenario, c tally.Change, level string) Finding {
	line := clientLine(sc, c.Client)
	if line == 0 {
		line = faultLine(sc, c.Fault)
	}
	cell := text((&tally.Cell{Cell: record.Cell{Client: c.Client, Fault: c.Fault, Schema: c.Schema, Protocol: c.Protocol, Tool: c.Tool}}).Coordinates())
	if r != nil && manyTransports(r) {
		cell += " × " + text(c.Transport)
	}
	f := Finding{Level: level, Kind: "changed cell", Line: line}
	switch c.Kind {
	case "new":
		f.Title = "new against the baseline: " + cell
		f.Message = fmt.Sprintf("%s is not in the baseline; now: %s", cell, text(c.After))
	case "gone":
		f.Title = "gone against the baseline: " + cell
		f.Message = fmt.Sprintf("%s is in the baseline (%s) but did not run now", cell, text(c.Before))
	default:
		f.Title = "changed against the baseline: " + cell
		f.Message = fmt.Sprintf("%s: %s in the baseline, now %s", cell, text(c.Before), text(c.After))
	}
	return f
}

// clientLine is the manifest line of the client entry with this ID (name@version) or name.
func clientLine(sc *scenario.Scenario, id string) int {
	if sc == nil {
		return 0
	}
	for _, c := range sc.Clients {
		if c.ID() == id {
			return c.Line
		}
	}
	name, _, _ := strings.Cut(id, "@")
	for _, c := range sc.Clients {
		if c.Name == name {
			return c.Line
		}
	}
	return 0
}

// faultLine is the manifest line of the fault entry with this name.
func faultLine(sc *scenario.Scenario, name string) int {
	if sc == nil {
		return 0
	}
	for _, f := range sc.Faults {
		if f.Name == name {
			return f.Line
		}
	}
	return 0
}

// text makes a piece of outside text safe in an annotation: one line of at most MaxEscaped
// characters, with no control characters or bidirectional overrides (see plain).
func text(s string) string { return plain(truncate(s, MaxEscaped)) }

// PlainLine is Plain of the first MaxEscaped characters of s (a cut marked with "…"): one
// piece of outside text, bounded, for a line of a terminal or a CI log.
func PlainLine(s string) string { return text(s) }

// Plural is one when n is 1, else many: the noun after a count, as in "1 cell", "2 cells".
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
