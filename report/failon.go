package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/tally"
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
