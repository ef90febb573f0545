package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sethvargo/go-githubactions"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/tally"
)

// GitHub's limits on what a step can show.
const (
	// SummaryLimit is the most a step's job summary may hold, in bytes.
	SummaryLimit = 1 << 20
	// CommentLimit is the most an issue or pull-request comment may hold, in characters;
	// bodies are cut in bytes, which never count fewer.
	CommentLimit = 65536
	// AnnotationLimit is about where GitHub cuts an annotation's message, in bytes; messages
	// are cut a little below it, at a character boundary, with the cut marked.
	AnnotationLimit = 4096
	// annotationTitleLimit keeps a title to one readable line.
	annotationTitleLimit = 200
)

// FailOn is what fails the check: an unmet expectation (expect); also a cell whose counts
// changed against the baseline (change); also an expectation no run checked (unchecked); both
// of those (change,unchecked); or nothing the sweep found (never).
type FailOn string

// The values of the action's fail-on input, and of toolscore run --fail-on.
const (
	FailOnExpect    FailOn = "expect"
	FailOnChange    FailOn = "change"
	FailOnUnchecked FailOn = "unchecked"
	FailOnNever     FailOn = "never"
)

// ParseFailOn reads the fail-on input: one value, or change and unchecked joined by a comma
// (each includes expect); "" is expect.
func ParseFailOn(s string) (FailOn, error) {
	var change, open, never bool
	for _, w := range strings.Split(strings.ToLower(s), ",") {
		switch FailOn(strings.TrimSpace(w)) {
		case "", FailOnExpect:
		case FailOnChange:
			change = true
		case FailOnUnchecked:
			open = true
		case FailOnNever:
			never = true
		default:
			return "", fmt.Errorf("fail-on %q: want expect, change, unchecked or never (change,unchecked for both)", s)
		}
	}
	switch {
	case never && (change || open):
		return "", fmt.Errorf("fail-on %q: never fails on nothing, so it combines with nothing", s)
	case never:
		return FailOnNever, nil
	case change && open:
		return FailOnChange + "," + FailOnUnchecked, nil
	case change:
		return FailOnChange, nil
	case open:
		return FailOnUnchecked, nil
	}
	return FailOnExpect, nil
}

// Unmet says whether an unmet expectation fails the check.
func (f FailOn) Unmet() bool { return f != FailOnNever }

// Change says whether a cell changed against the baseline fails the check.
func (f FailOn) Change() bool { return f.has(FailOnChange) }

// Unchecked says whether an expectation no run checked fails the check.
func (f FailOn) Unchecked() bool { return f.has(FailOnUnchecked) }

func (f FailOn) has(w FailOn) bool {
	return slices.Contains(strings.Split(string(f), ","), string(w))
}

// Comparison is the result of comparing a sweep with a baseline.
type Comparison struct {
	// Baseline is the baseline's path as the workflow gave it.
	Baseline string
	// Missing says there was no file at Baseline yet (a first scheduled run): nothing was compared.
	Missing bool
	// Changes are the cells whose counts differ, as tally.Diff lists them.
	Changes []tally.Change
	// Manifest, when set, is the manifest of the results' scenario: the HTML, JUnit and CTRF
	// reports name the line of each changed cell's client entry, as the annotations do.
	Manifest *scenario.Scenario
}

// Summary writes the job summary: the Markdown report, then what changed against the baseline
// when cmp is not nil. Like Markdown, it passes every outside string through EscapeMarkdown.
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

// Cut returns md unchanged when it fits in limit bytes. Otherwise it cuts md at the last line
// break that leaves room for note, so no table row or list item is split, and appends note; a
// single line longer than that is cut at a character boundary. cut says whether it cut.
func Cut(md string, limit int, note string) (s string, cut bool) {
	if len(md) <= limit {
		return md, false
	}
	room := max(limit-len(note)-1, 0)
	head := md[:room]
	if i := strings.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i+1]
	} else {
		for len(head) > 0 && !utf8.ValidString(head) {
			head = head[:len(head)-1]
		}
		head += "\n"
	}
	return head + note, true
}

// Verdict says in one line what the sweep found and whether the check fails for it, e.g.
// "1 of 4 expectations did not hold · 2 cells changed against the baseline". It holds no outside text.
func Verdict(r *tally.Results, cmp *Comparison) string {
	var parts []string
	if len(r.Expectations) > 0 {
		parts = append(parts, strings.TrimSuffix(heldLine(r), "."))
	}
	if cmp != nil && !cmp.Missing {
		if n := len(cmp.Changes); n == 0 {
			parts = append(parts, "no cell changed against the baseline")
		} else {
			parts = append(parts, fmt.Sprintf("%d %s changed against the baseline", n, Plural(n, "cell", "cells")))
		}
	}
	if n := len(mixedCells(r)); n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s mixed", n, Plural(n, "cell", "cells")))
	}
	if n := len(r.Unavailable); n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s unavailable", n, Plural(n, "client", "clients")))
	}
	if n := len(r.NotApplicable); n > 0 {
		parts = append(parts, fmt.Sprintf("schema faults not applicable to %d %s", n, Plural(n, "tool", "tools")))
	}
	if r.Interrupted {
		parts = append(parts, "interrupted")
	}
	if len(parts) == 0 {
		runs, _, cells := runCounts(r)
		return fmt.Sprintf("%d runs in %d cells", runs, cells)
	}
	return strings.Join(parts, " · ")
}

// CommentBody is the sticky pull-request comment: marker (an HTML comment that finds this
// comment again on the next run) on the first line, a one-line verdict, and summary, cut to
// fit GitHub's comment limit; when it is cut, a note points at link, the job summary.
// summary must already be escaped Markdown (what Summary writes); link is a URL built from
// the runner's own environment, or "".
func CommentBody(marker, verdict, summary, link string) string {
	head := marker + "\n**toolscore:** " + EscapeMarkdown(verdict)
	if link != "" {
		head += " · [job summary](" + link + ")"
	}
	head += "\n\n"
	note := "\n**The report is cut here**: it is longer than a comment can hold."
	if link != "" {
		note += " The whole of it is in the [job summary](" + link + ")."
	}
	note += "\n"
	body, _ := Cut(summary, CommentLimit-len(head)-64, note)
	return head + body
}

// Annotation is one annotation of the manifest: a line of the file, a level, a title and a
// message. Message and Title are plain text (GitHub shows them as such); Annotate leaves the
// workflow-command escaping to go-githubactions.
type Annotation struct {
	Level   string // "error", "warning" or "notice"
	File    string // the manifest, relative to the workspace; "" anchors nothing
	Line    int    // 0 anchors the file only
	Title   string
	Message string
}

// Budget is how many annotations GitHub keeps: per step, of each level, and per job.
type Budget struct{ Errors, Warnings, Notices, Total int }

// DefaultBudget is GitHub's: 10 errors, 10 warnings and 10 notices per step, 50 per job.
var DefaultBudget = Budget{Errors: 10, Warnings: 10, Notices: 10, Total: 50}

// AnnotationInput is what the annotations are made of.
type AnnotationInput struct {
	Results *tally.Results
	// Scenario gives the lines of the client and fault entries; nil leaves those unanchored.
	Scenario *scenario.Scenario
	// File is the manifest's path relative to the workspace, or "" when it is not a file there
	// (the embedded ledger, used from another repository).
	File    string
	Compare *Comparison
	FailOn  FailOn
}

// Annotations plans the annotations of a sweep, most important first: each unmet expectation
// on its expect entry (an error unless fail-on is never), each cell changed against the
// baseline on its client entry, else its fault entry (an error when fail-on has change), each
// expectation no run checked on its entry (an error when fail-on has unchecked), each
// client that could not run on its entry (a warning), and each mixed cell on its client's
// entry (a notice). What does not fit the budget is counted
// in a final notice that sends the reader to the job summary, which has everything.
func Annotations(in AnnotationInput, budget Budget) []Annotation {
	r := in.Results
	var all []Annotation
	level := func(fails bool) string {
		if fails {
			return "error"
		}
		return "warning"
	}
	unmetLevel, changeLevel, uncheckedLevel := level(in.FailOn.Unmet()), level(in.FailOn.Change()), level(in.FailOn.Unchecked())
	kinds := map[string]int{} // what was left out, by kind
	type planned struct {
		Annotation
		kind string
	}
	var cands []planned
	for _, e := range unmet(r) {
		cands = append(cands, planned{expectationAnnotation(in, e, unmetLevel), "unmet expectation"})
	}
	if in.Compare != nil {
		for _, c := range in.Compare.Changes {
			cands = append(cands, planned{changeAnnotation(in, c, changeLevel), "changed cell"})
		}
	}
	for _, e := range unchecked(r) {
		a := Annotation{Level: uncheckedLevel, File: in.File, Line: e.Line,
			Title: "expectation not checked: want " + text(e.Want()),
			Message: fmt.Sprintf("%s: want %s; not checked, so neither held nor unmet: %s",
				selectors(e, text), wantPhrase(e, text), text(e.Unchecked))}
		cands = append(cands, planned{a, "unchecked expectation"})
	}
	for _, u := range r.Unavailable {
		a := Annotation{Level: "warning", File: in.File, Line: clientLine(in.Scenario, u.Client),
			Title:   "client unavailable: " + text(u.Client),
			Message: fmt.Sprintf("%s could not run here: %s", text(u.Client), text(u.Reason))}
		cands = append(cands, planned{a, "unavailable client"})
	}
	for _, c := range mixedCells(r) {
		cell := text(c.Coordinates())
		a := Annotation{Level: "notice", File: in.File, Line: clientLine(in.Scenario, c.Client),
			Title:   "mixed: " + cell,
			Message: fmt.Sprintf("%s: %s: the runs disagree (%s)", cell, text(c.Counts()), mixedWhy)}
		cands = append(cands, planned{a, "mixed cell"})
	}
	// Errors first, then warnings, each in the order above.
	slices.SortStableFunc(cands, func(a, b planned) int { return levelRank(a.Level) - levelRank(b.Level) })

	total := budget.Total
	left := 0
	used := map[string]int{}
	limit := map[string]int{"error": budget.Errors, "warning": budget.Warnings, "notice": budget.Notices}
	for i, c := range cands {
		// Keep one place for the final notice while anything after this one could be left out.
		reserve := 0
		if (i < len(cands)-1 || left > 0) && budget.Notices > 0 {
			reserve = 1
		}
		if used[c.Level] >= limit[c.Level] || len(all) >= total-reserve {
			left++
			kinds[c.kind]++
			continue
		}
		used[c.Level]++
		all = append(all, finish(c.Annotation))
	}
	if left > 0 && used["notice"] < budget.Notices && len(all) < total {
		var what []string
		for _, k := range []string{"unmet expectation", "changed cell", "unchecked expectation", "unavailable client", "mixed cell"} {
			if n := kinds[k]; n > 0 {
				what = append(what, fmt.Sprintf("%d %s", n, Plural(n, k, k+"s")))
			}
		}
		all = append(all, Annotation{Level: "notice", File: in.File,
			Title: fmt.Sprintf("%d more in the job summary", left),
			Message: fmt.Sprintf("%d more %s not annotated here (%s): GitHub shows at most %d errors and %d warnings per step. The job summary lists every one.",
				left, Plural(left, "finding is", "findings are"), strings.Join(what, ", "), budget.Errors, budget.Warnings)})
	}
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

func expectationAnnotation(in AnnotationInput, e tally.Expectation, level string) Annotation {
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
	for _, c := range in.Results.Cells {
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
	return Annotation{Level: level, File: in.File, Line: e.Line, Title: title, Message: b.String()}
}

func changeAnnotation(in AnnotationInput, c tally.Change, level string) Annotation {
	line := clientLine(in.Scenario, c.Client)
	if line == 0 {
		line = faultLine(in.Scenario, c.Fault)
	}
	cell := text((&tally.Cell{Cell: record.Cell{Client: c.Client, Fault: c.Fault, Schema: c.Schema, Protocol: c.Protocol, Tool: c.Tool}}).Coordinates())
	if in.Results != nil && manyTransports(in.Results) {
		cell += " × " + text(c.Transport)
	}
	a := Annotation{Level: level, File: in.File, Line: line}
	switch c.Kind {
	case "new":
		a.Title = "new against the baseline: " + cell
		a.Message = fmt.Sprintf("%s is not in the baseline; now: %s", cell, text(c.After))
	case "gone":
		a.Title = "gone against the baseline: " + cell
		a.Message = fmt.Sprintf("%s is in the baseline (%s) but did not run now", cell, text(c.Before))
	default:
		a.Title = "changed against the baseline: " + cell
		a.Message = fmt.Sprintf("%s: %s in the baseline, now %s", cell, text(c.Before), text(c.After))
	}
	return a
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

// finish cuts an annotation's title and message to what GitHub keeps.
func finish(a Annotation) Annotation {
	if a.File == "" {
		a.Line = 0 // a line of no file anchors nothing
	}
	a.Title = cutBytes(strings.ReplaceAll(a.Title, "\n", " "), annotationTitleLimit)
	a.Message = cutBytes(a.Message, AnnotationLimit-96)
	return a
}

// cutBytes keeps at most limit bytes of s, cut at a character boundary and marked with "…".
func cutBytes(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	s = s[:limit-len("…")]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

// Annotate issues the annotations through go-githubactions, which escapes %, CR and LF in
// the message and also : and , in the file and title properties.
func Annotate(a *githubactions.Action, list []Annotation) {
	for _, an := range list {
		fields := map[string]string{}
		if an.Title != "" {
			fields["title"] = an.Title
		}
		if an.File != "" {
			fields["file"] = an.File
			if an.Line > 0 {
				fields["line"] = strconv.Itoa(an.Line)
			}
		}
		w := a.WithFieldsMap(fields)
		switch an.Level {
		case "error":
			w.Errorf("%s", an.Message)
		case "warning":
			w.Warningf("%s", an.Message)
		default:
			w.Noticef("%s", an.Message)
		}
	}
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
