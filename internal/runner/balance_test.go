package runner

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/tally"
)

// TestBalance: without measurements the shards get equal numbers of cells; with them, a cell
// as long as all the others together gets a shard of its own, a cell never measured counts as
// the mean, and the same inputs give the same plan.
func TestBalance(t *testing.T) {
	cells := make([]scenario.Cell, 10)
	for i := range cells {
		cells[i] = scenario.Cell{Client: scenario.Client{Name: fmt.Sprintf("c%d", i)}, Fault: scenario.Fault{Name: "clean"}, Schema: "published"}
	}
	owner, load := Balance(cells, 3, 3, nil)
	count := map[int]int{}
	for _, o := range owner {
		count[o]++
	}
	if count[1] < 3 || count[2] < 3 || count[3] < 3 {
		t.Errorf("unmeasured: cells per shard %v, want 3 or 4 each", count)
	}
	if load[0]+load[1]+load[2] != 30 {
		t.Errorf("unmeasured loads %v, want 1 ms × 3 runs a cell", load)
	}

	measured := &tally.Results{}
	for i := range 9 {
		ms := int64(100)
		if i == 0 {
			ms = 1100 // longer than all the others together
		}
		c := cells[i].Coordinates()
		measured.Cells = append(measured.Cells, &tally.Cell{Cell: record.Cell(c), Runs: 3, MedianMillis: ms})
	}
	owner, load = Balance(cells, 3, 2, measured)
	for i := 1; i < 10; i++ {
		if owner[i] == owner[0] {
			t.Errorf("cell %d shares a shard with the long cell 0: %v", i, owner)
		}
	}
	// Cell 9 was never measured: it counts as the mean of the nine, 1900/9 ms a run.
	if want := []int64{3300, 2400 + 3*(1900/9)}; !slices.Equal(load, want) {
		t.Errorf("loads %v, want %v", load, want)
	}
	again, _ := Balance(cells, 3, 2, measured)
	if !slices.Equal(owner, again) {
		t.Errorf("the same inputs gave %v, then %v", owner, again)
	}
}

// TestBalanceSaturates: medians near the largest int64 (a results.json's median_ms, hostile or
// absurd) weigh the most, never wrap to a negative time: not in a cell's runs, a shard's sum,
// nor the mean an unmeasured cell takes.
func TestBalanceSaturates(t *testing.T) {
	cells := make([]scenario.Cell, 4)
	measured := &tally.Results{}
	for i := range cells {
		cells[i] = scenario.Cell{Client: scenario.Client{Name: fmt.Sprintf("c%d", i)}, Fault: scenario.Fault{Name: "clean"}, Schema: "published"}
		if i < 3 {
			measured.Cells = append(measured.Cells, &tally.Cell{Cell: record.Cell(cells[i].Coordinates()), Runs: 3, MedianMillis: math.MaxInt64 - int64(i)})
		}
	}
	for _, shards := range []int{1, 2, 4} {
		_, load := Balance(cells, 3, shards, measured)
		for s, l := range load {
			if l < math.MaxInt64/2 {
				t.Errorf("%d shards: shard %d loaded %d ms, want near the largest int64 (%v)", shards, s+1, l, load)
			}
		}
	}
}
