package runner

import (
	"cmp"
	"math"
	"slices"

	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/tally"
)

// Balance assigns each of the matrix's cells, whole, to one of shards shards (1-based, by the
// cell's index in cells) so the shards' estimated times are as even as it can make them: a
// cell's time is its median run in measured (from an earlier sweep's results) times runs, and a
// cell measured never gets the mean of those measured, or 1 when none is. It is deterministic,
// so every shard of a sweep computes the same plan from the same inputs, and without
// measurements it gives the shards equal numbers of cells.
func Balance(cells []scenario.Cell, runs, shards int, measured *tally.Results) (owner []int, load []int64) {
	cost := estimates(cells, runs, measured)
	order := make([]int, len(cells))
	for i := range order {
		order[i] = i
	}
	// Longest first, each to the least loaded shard (the lowest on a tie): within 4/3 of the
	// best split, and close to it when there are many more cells than shards.
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(cost[b], cost[a]) })
	owner, load = make([]int, len(cells)), make([]int64, shards)
	for _, i := range order {
		s := 0
		for k := range load {
			if load[k] < load[s] {
				s = k
			}
		}
		owner[i], load[s] = s+1, addSat(load[s], cost[i])
	}
	return owner, load
}

// estimates is each cell's expected time in milliseconds (see Balance).
func estimates(cells []scenario.Cell, runs int, measured *tally.Results) []int64 {
	median := map[string]int64{}
	if measured != nil {
		for _, c := range measured.Cells {
			if c.Runs > 0 {
				median[c.Key()] = max(c.MedianMillis, 1)
			}
		}
	}
	// The mean is taken of the medians divided by n, so that no sum of them overflows.
	var n int64
	known := make([]int64, len(cells))
	for i, c := range cells {
		if m, ok := median[c.Key()]; ok {
			known[i], n = m, n+1
		}
	}
	mean := int64(1)
	if n > 0 {
		var sum, rest int64
		for _, m := range known {
			if m > 0 {
				sum, rest = sum+m/n, rest+m%n
			}
		}
		mean = max(addSat(sum, rest/n), 1)
	}
	cost := make([]int64, len(cells))
	for i := range cells {
		cost[i] = mulSat(cmp.Or(known[i], mean), int64(max(runs, 1)))
	}
	return cost
}

// addSat is a+b for a, b >= 0, or math.MaxInt64 where that overflows: a cell measured to take
// for ever weighs the most, never a negative time.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// mulSat is a*b for a, b >= 1, or math.MaxInt64 where that overflows.
func mulSat(a, b int64) int64 {
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}
