package report

import (
	"fmt"
	"strings"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/tally"
)

// Decision is what the check comes to: the step's exit code and, in a sentence, why.
type Decision struct {
	Code   int
	Reason string
}

// Decide is the check's verdict on a sweep's results, compared with a baseline when cmp is not
// nil, under failOn: an interrupted sweep is exitcode.Interrupted; one where failOn names what
// was found (unmet or unchecked expectations, cells changed against the baseline) is
// exitcode.Unmet, with every reason; anything else passes. It is the one verdict: toolscore
// run and merge exit with its code, the Action's step too.
func Decide(res *tally.Results, cmp *Comparison, failOn FailOn) Decision {
	if res.Interrupted {
		return Decision{exitcode.Interrupted, "interrupted; the runs that finished are counted in the summary"}
	}
	_, missed, open := tally.Count(res.Expectations)
	changed := 0
	if cmp != nil {
		changed = len(cmp.Changes)
	}
	var why []string
	if missed > 0 && failOn.Unmet() {
		why = append(why, fmt.Sprintf("%d %s not hold", missed, Plural(missed, "expectation did", "expectations did")))
	}
	if open > 0 && failOn.Unchecked() {
		why = append(why, fmt.Sprintf("%d %s not checked", open, Plural(open, "expectation was", "expectations were")))
	}
	if changed > 0 && failOn.Change() {
		why = append(why, fmt.Sprintf("%d %s against the baseline", changed, Plural(changed, "cell changed", "cells changed")))
	}
	if len(why) > 0 {
		return Decision{exitcode.Unmet, fmt.Sprintf("the check fails (fail-on: %s): %s", failOn, strings.Join(why, "; "))}
	}
	return Decision{exitcode.OK, fmt.Sprintf("the check passes (fail-on: %s): %s", failOn, Verdict(res, cmp))}
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
