package history

import (
	"slices"
	"testing"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/tally"
)

// TestSamples: both ends and the last release of each minor line, in the registry's order.
func TestSamples(t *testing.T) {
	vs := []string{"1.10.0", "1.11.0", "1.11.1", "1.11.5", "1.12.0", "1.12.1", "2.0.0"}
	if got, want := Samples(vs, false), []int{0, 3, 5, 6}; !slices.Equal(got, want) {
		t.Errorf("minor samples %v, want %v", got, want)
	}
	if got := Samples(vs, true); len(got) != len(vs) {
		t.Errorf("every: %v", got)
	}
	if got, want := Samples([]string{"v1.1.1", "v1.2.0"}, false), []int{0, 1}; !slices.Equal(got, want) {
		t.Errorf("Go versions: %v, want %v", got, want)
	}
}

// TestSegments: versions not swept between two alike take their outcome, versions that could
// not run are a segment of their own and never join the outcome on either side.
func TestSegments(t *testing.T) {
	cell := record.Cell{Client: "c", Fault: "type-swap", Schema: "published", Transport: "stdio"}
	ran := func(outcome string) *version {
		c := &tally.Cell{Cell: cell, Outcome: map[string]int{outcome: 1}, Examples: map[string]tally.Example{outcome: {Run: 1, Evidence: outcome}}}
		return &version{cells: map[string]*tally.Cell{cell.Key(): c}, dir: "d"}
	}
	vs := []string{"1", "2", "3", "4", "5", "6", "7"}
	s := &Search{Client: scenario.Client{Name: "c"}, swept: map[string]*version{
		"1": {failed: "ImportError"}, "2": ran("passed"), "4": ran("passed"), "5": ran("threw"), "7": ran("threw"),
	}}
	for _, v := range vs {
		s.Releases = append(s.Releases, tally.Release{Version: v})
	}
	ch := s.history(vs)
	var got []string
	for _, seg := range ch.Cells[0].Segments {
		got = append(got, seg.First+"-"+seg.Last+" "+seg.Outcome)
	}
	if want := []string{"1-1 install-failed", "2-4 passed", "5-7 threw"}; !slices.Equal(got, want) {
		t.Errorf("segments %q, want %q", got, want)
	}
	if seg := ch.Cells[0].Segments[1]; !slices.Equal(seg.Swept, []string{"2", "4"}) || seg.Outcomes["passed"] != 2 || seg.Example == nil {
		t.Errorf("the passed segment: %+v", seg)
	}
	if ch.Versions[0].InstallFailed != "ImportError" || ch.Versions[2].Swept {
		t.Errorf("versions: %+v", ch.Versions)
	}
}
