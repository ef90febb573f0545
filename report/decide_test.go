package report

import (
	"testing"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// sweepOf is a sweep whose expectations are held, unmet and unchecked in those numbers, with
// the number of changed cells against a baseline (-1: no baseline at all).
type sweepOf struct {
	held, unmet, unchecked, changed int
	interrupted                     bool
}

func (s sweepOf) results() (*tally.Results, *Comparison) {
	r := &tally.Results{Scenario: "decide", Interrupted: s.interrupted,
		Cells: []*tally.Cell{{Cell: record.Cell{Client: "raw", Fault: "clean", Schema: "hidden", Transport: "stdio"}, Runs: 1, Planned: 1, Outcome: map[string]int{"passed": 1}}}}
	add := func(n int, status string) {
		for range n {
			r.Expectations = append(r.Expectations, tally.Expectation{Line: 10 + len(r.Expectations), Outcome: "passed", Status: status, Held: status == tally.Held})
		}
	}
	add(s.held, tally.Held)
	add(s.unmet, tally.Unmet)
	add(s.unchecked, tally.Unchecked)
	if s.changed < 0 {
		return r, nil
	}
	cmp := &Comparison{Baseline: "toolscore-baseline.json"}
	for range s.changed {
		cmp.Changes = append(cmp.Changes, tally.Change{Cell: record.Cell{Client: "raw", Fault: "clean", Schema: "hidden"}, Before: "threw 1/1", After: "passed 1/1"})
	}
	return r, cmp
}

// TestDecide: every fail-on value against sweeps that find nothing, each kind of finding
// alone, all of them, and an interruption; the exit code and the reason it gives.
func TestDecide(t *testing.T) {
	clean := sweepOf{held: 2, changed: 0}
	unmet := sweepOf{held: 1, unmet: 1, changed: -1}
	unchecked := sweepOf{held: 1, unchecked: 2, changed: -1}
	changed := sweepOf{held: 1, changed: 1}
	all := sweepOf{unmet: 2, unchecked: 1, changed: 3}
	interrupted := sweepOf{unmet: 1, changed: 2, interrupted: true}

	const (
		cleanVerdict     = "All 2 expectations held · no cell changed against the baseline"
		uncheckedVerdict = "1 of 3 expectations held, 2 unchecked"
		changedVerdict   = "The 1 expectation held · 1 cell changed against the baseline"
		allVerdict       = "2 of 3 expectations did not hold, 1 unchecked · 3 cells changed against the baseline"
		stopped          = "interrupted; the runs that finished are counted in the summary"
	)
	for _, tc := range []struct {
		failOn FailOn
		sweep  sweepOf
		code   int
		reason string
	}{
		{FailOnExpect, clean, exitcode.OK, "the check passes (fail-on: expect): " + cleanVerdict},
		{FailOnExpect, unmet, exitcode.Unmet, "the check fails (fail-on: expect): 1 expectation did not hold"},
		{FailOnExpect, unchecked, exitcode.OK, "the check passes (fail-on: expect): " + uncheckedVerdict},
		{FailOnExpect, changed, exitcode.OK, "the check passes (fail-on: expect): " + changedVerdict},
		{FailOnExpect, all, exitcode.Unmet, "the check fails (fail-on: expect): 2 expectations did not hold"},
		{FailOnExpect, interrupted, exitcode.Interrupted, stopped},

		{FailOnUnchecked, clean, exitcode.OK, "the check passes (fail-on: unchecked): " + cleanVerdict},
		{FailOnUnchecked, unmet, exitcode.Unmet, "the check fails (fail-on: unchecked): 1 expectation did not hold"},
		{FailOnUnchecked, unchecked, exitcode.Unmet, "the check fails (fail-on: unchecked): 2 expectations were not checked"},
		{FailOnUnchecked, changed, exitcode.OK, "the check passes (fail-on: unchecked): " + changedVerdict},
		{FailOnUnchecked, all, exitcode.Unmet, "the check fails (fail-on: unchecked): 2 expectations did not hold; 1 expectation was not checked"},
		{FailOnUnchecked, interrupted, exitcode.Interrupted, stopped},

		{FailOnChange, clean, exitcode.OK, "the check passes (fail-on: change): " + cleanVerdict},
		{FailOnChange, unmet, exitcode.Unmet, "the check fails (fail-on: change): 1 expectation did not hold"},
		{FailOnChange, unchecked, exitcode.OK, "the check passes (fail-on: change): " + uncheckedVerdict},
		{FailOnChange, changed, exitcode.Unmet, "the check fails (fail-on: change): 1 cell changed against the baseline"},
		{FailOnChange, all, exitcode.Unmet, "the check fails (fail-on: change): 2 expectations did not hold; 3 cells changed against the baseline"},
		{FailOnChange, interrupted, exitcode.Interrupted, stopped},

		{"change,unchecked", clean, exitcode.OK, "the check passes (fail-on: change,unchecked): " + cleanVerdict},
		{"change,unchecked", unmet, exitcode.Unmet, "the check fails (fail-on: change,unchecked): 1 expectation did not hold"},
		{"change,unchecked", unchecked, exitcode.Unmet, "the check fails (fail-on: change,unchecked): 2 expectations were not checked"},
		{"change,unchecked", changed, exitcode.Unmet, "the check fails (fail-on: change,unchecked): 1 cell changed against the baseline"},
		{"change,unchecked", all, exitcode.Unmet, "the check fails (fail-on: change,unchecked): 2 expectations did not hold; 1 expectation was not checked; 3 cells changed against the baseline"},
		{"change,unchecked", interrupted, exitcode.Interrupted, stopped},

		{FailOnNever, clean, exitcode.OK, "the check passes (fail-on: never): " + cleanVerdict},
		{FailOnNever, unmet, exitcode.OK, "the check passes (fail-on: never): 1 of 2 expectations did not hold"},
		{FailOnNever, unchecked, exitcode.OK, "the check passes (fail-on: never): " + uncheckedVerdict},
		{FailOnNever, changed, exitcode.OK, "the check passes (fail-on: never): " + changedVerdict},
		{FailOnNever, all, exitcode.OK, "the check passes (fail-on: never): " + allVerdict},
		{FailOnNever, interrupted, exitcode.Interrupted, stopped},
	} {
		res, cmp := tc.sweep.results()
		got := Decide(res, cmp, tc.failOn)
		if got.Code != tc.code || got.Reason != tc.reason {
			t.Errorf("fail-on %s, %+v:\ngot  %d %q\nwant %d %q", tc.failOn, tc.sweep, got.Code, got.Reason, tc.code, tc.reason)
		}
	}
}

// TestDecideParsed: the fail-on values as the input gives them decide as the constants do,
// each combination written either way round.
func TestDecideParsed(t *testing.T) {
	res, cmp := sweepOf{held: 1, unchecked: 1, changed: 1}.results()
	for input, code := range map[string]int{
		"": exitcode.OK, "expect": exitcode.OK, "never": exitcode.OK, "change": exitcode.Unmet, "unchecked": exitcode.Unmet,
		"change,unchecked": exitcode.Unmet, "unchecked, change": exitcode.Unmet, "CHANGE": exitcode.Unmet,
	} {
		f, err := ParseFailOn(input)
		if err != nil {
			t.Fatalf("fail-on %q: %v", input, err)
		}
		if d := Decide(res, cmp, f); d.Code != code {
			t.Errorf("fail-on %q: exit %d (%s), want %d", input, d.Code, d.Reason, code)
		}
	}
}

// TestDecideMissingBaseline: a baseline that is not there yet compares nothing, so fail-on
// change has nothing to fail on, and the reason does not claim a comparison.
func TestDecideMissingBaseline(t *testing.T) {
	res, _ := sweepOf{held: 1}.results()
	d := Decide(res, &Comparison{Baseline: "b.json", Missing: true}, FailOnChange)
	if d.Code != exitcode.OK || d.Reason != "the check passes (fail-on: change): The 1 expectation held" {
		t.Errorf("got %d %q", d.Code, d.Reason)
	}
}
