package record_test

import (
	"slices"
	"testing"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenario"
)

// TestOutcomes: every outcome an expect entry can name is one a run can be graded with, each
// listed once, so the action's outputs (one per outcome) cover whatever a manifest expects.
func TestOutcomes(t *testing.T) {
	all := record.Outcomes()
	for _, o := range scenario.Outcomes() {
		if !slices.Contains(all, record.Outcome(o)) {
			t.Errorf("an expect entry can name %q, which no run is graded with", o)
		}
	}
	seen := map[record.Outcome]bool{}
	for _, o := range all {
		if seen[o] {
			t.Errorf("%q is listed twice", o)
		}
		seen[o] = true
	}
	if !slices.Contains(all, record.Rejected) || !slices.Contains(all, record.NoCall) {
		t.Errorf("record.Outcomes() = %q lacks an agent's", all)
	}
}
