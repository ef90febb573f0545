package runner

import (
	"cmp"
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
		owner[i], load[s] = s+1, load[s]+cost[i]
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
	var sum, n int64
	known := make([]int64, len(cells))
	for i, c := range cells {
		if m, ok := median[c.Key()]; ok {
			known[i], sum, n = m, sum+m, n+1
		}
	}
	mean := int64(1)
	if n > 0 {
		mean = max(sum/n, 1)
	}
	cost := make([]int64, len(cells))
	for i := range cells {
		cost[i] = cmp.Or(known[i], mean) * int64(max(runs, 1))
	}
	return cost
}
