package report

import (
	"fmt"
	"strings"

	"github.com/toolscore/toolscore/tally"
)

// failure is one reason a cell fails as a test case: an unmet expectation that selects it and
// saw another outcome in it, or a change of its counts against the baseline.
type failure struct {
	Type    string // "expectation" or "baseline"
	Message string // one line
	Detail  string // what a reader needs beside it
}

// testCase is one cell as a test case of the JUnit and CTRF reports: never one per run, which
// report tools would read as retries of a flaky test.
type testCase struct {
	Cell     *tally.Cell
	Name     string // the cell's coordinates
	Suite    string // its schema mode, and protocol and transport where the results vary in them
	Failures []failure
}

// testCases lists the results' cells as test cases in their order, then the baseline's cells
// that are gone from the results (a failure each), with the failures of each.
func testCases(r *tally.Results, cmp *Comparison) []testCase {
	d := dimsOf(r)
	byKey := map[string]int{}
	var out []testCase
	for _, c := range r.Cells {
		if c == nil {
			continue
		}
		byKey[c.Key()] = len(out)
		tc := testCase{Cell: c, Name: c.Client + " × " + c.Fault, Suite: d.title(&table{Tool: c.Tool, Schema: c.Schema, Protocol: c.Protocol, Transport: c.Transport}, line)}
		for _, e := range unmet(r) {
			if !matches(e, c) {
				continue
			}
			var got []string
			for _, o := range byCount(c) {
				if !e.Allows(c, o) {
					got = append(got, fmt.Sprintf("%s %d/%d", o, c.Outcome[o], c.Runs))
				}
			}
			if len(got) == 0 {
				continue
			}
			tc.Failures = append(tc.Failures, failure{Type: "expectation",
				Message: line(fmt.Sprintf("manifest line %d: want %s; got %s", e.Line, e.Want(), strings.Join(got, ", "))),
				Detail:  block(exampleLines(c, e))})
		}
		out = append(out, tc)
	}
	if cmp == nil {
		return out
	}
	for _, ch := range cmp.Changes {
		msg := fmt.Sprintf("changed against the baseline %s: was %s, now %s", cmp.Baseline, orNone(ch.Before), orNone(ch.After))
		if n := clientLine(cmp.Manifest, ch.Client); n > 0 {
			msg = fmt.Sprintf("manifest line %d: %s", n, msg)
		}
		f := failure{Type: "baseline", Message: line(msg)}
		if i, ok := byKey[ch.Key]; ok {
			out[i].Failures = append(out[i].Failures, f)
			continue
		}
		gone := &tally.Cell{Cell: ch.Cell}
		out = append(out, testCase{Cell: gone, Name: gone.Client + " × " + gone.Fault,
			Suite: d.title(&table{Tool: gone.Tool, Schema: gone.Schema, Protocol: gone.Protocol, Transport: gone.Transport}, line), Failures: []failure{f}})
	}
	return out
}

// exampleLines lists, for each outcome of c that breaks e, its first run's evidence line.
func exampleLines(c *tally.Cell, e tally.Expectation) string {
	var b strings.Builder
	for _, o := range byCount(c) {
		if e.Allows(c, o) {
			continue
		}
		ex, ok := c.Examples[o]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "%s, first in run %d", o, ex.Run)
		if ex.Evidence != "" {
			fmt.Fprintf(&b, ": %s", ex.Evidence)
		}
		b.WriteString("\n")
		if ex.Tee != "" {
			fmt.Fprintf(&b, "  transcript %s\n", ex.Tee)
		}
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "no such cell"
	}
	return s
}
