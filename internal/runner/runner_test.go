package runner

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/toolscore/toolscore/internal/grade"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// TestShardArithmetic: the runs of a cell in a shard, counted and enumerated without a loop over
// runs, are exactly those numbered k with k % shards == shard-1, and the shards of a cell add up
// to its runs also when runs is near math.MaxInt.
func TestShardArithmetic(t *testing.T) {
	for cells := 1; cells <= 6; cells++ {
		for runs := 1; runs <= 7; runs++ {
			for shards := 0; shards <= 5; shards++ {
				for shard := min(shards, 1); shard <= shards; shard++ {
					total := 0
					for i := range cells {
						var want []int
						for r := 1; r <= runs; r++ {
							if k := i*runs + r - 1; shards == 0 || k%shards == shard-1 {
								want = append(want, r)
							}
						}
						var got []int
						for r := firstRun(i, runs, shard, shards); r <= runs; r += max(shards, 1) {
							got = append(got, r)
						}
						if len(got) != len(want) || ShardRuns(i, runs, shard, shards) != len(want) || (len(got) > 0 && got[0] != want[0]) {
							t.Fatalf("cell %d, %d runs, shard %d/%d: runs %v, counted %d; want %v", i, runs, shard, shards, got, ShardRuns(i, runs, shard, shards), want)
						}
						total += len(want)
					}
					if p := PlannedRuns(cells, runs, shard, shards); p != total {
						t.Fatalf("%d cells × %d runs, shard %d/%d: planned %d, want %d", cells, runs, shard, shards, p, total)
					}
				}
			}
		}
	}
	for _, runs := range []int{1e9, math.MaxInt / 3, math.MaxInt} {
		sum := 0
		for shard := 1; shard <= 7; shard++ {
			sum += ShardRuns(5, runs, shard, 7)
		}
		if sum != runs {
			t.Errorf("%d runs over 7 shards add up to %d", runs, sum)
		}
	}
	if p := PlannedRuns(3, math.MaxInt/2, 0, 0); p != math.MaxInt {
		t.Errorf("an overflowing sweep is planned as %d runs, want math.MaxInt", p)
	}
}

// TestCountedRecord: a run counts the same from the runner's record as from its line in
// runs.jsonl, read back as a resumed sweep or report reads it.
func TestCountedRecord(t *testing.T) {
	rec := record.Run{Cell: record.Cell{Client: "claude-code", Fault: "corrupt", Schema: "hidden", Protocol: "as-is", Transport: "stdio"}, Run: 2, Negotiated: "2025-11-25",
		Grade: grade.Grade{Outcome: record.Passed, Evidence: "e", ModelView: "text", Answer: "truth", Flagged: true,
			Observation: &record.Observation{Library: "lib 1.0"}}, Millis: 12, Tee: "runs/x/run-2/tee.jsonl"}
	line, _ := json.Marshal(rec)
	var read record.Run
	if err := json.Unmarshal(line, &read); err != nil {
		t.Fatal(err)
	}
	live, back := &tally.Cell{}, &tally.Cell{}
	live.AddRun(&rec)
	back.AddRun(&read)
	if !reflect.DeepEqual(live, back) || live.Answer[record.AnswerFlagged] != 1 || live.Library != "lib 1.0" || live.Negotiated["2025-11-25"] != 1 {
		t.Errorf("counted live %+v, read back %+v", live, back)
	}
}
