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
