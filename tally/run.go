package tally

import (
	"strconv"
	"time"

	"github.com/toolscore/toolscore/record"
)

// AddRun counts one finished run of the cell, as its runs.jsonl record holds it: its outcome,
// the protocol it negotiated, an agent's view and answer, and the client's library. A run run
// again alone after the sweep is counted beside the cell's runs (Alone), never in them.
//
// A run alone also counts, in AloneFor, the outcome its run had first, when the cell counted
// that run: Settled puts the one in place of the other.
func (c *Cell) AddRun(r *record.Run) {
	if r.Alone {
		if c.Alone == nil {
			c.Alone = map[string]int{}
		}
		c.Alone[string(r.Outcome)]++
		if first, ok := c.firsts[r.Run]; ok {
			if c.AloneFor == nil {
				c.AloneFor = map[string]int{}
			}
			c.AloneFor[first]++
			delete(c.firsts, r.Run) // a run replaced once
		}
		return
	}
	if c.firsts == nil {
		c.firsts = map[int]string{}
	}
	c.firsts[r.Run] = string(r.Outcome)
	c.Add(string(r.Outcome), r.Run, r.Evidence, r.Tee, time.Duration(r.Millis)*time.Millisecond)
	c.AddNegotiated(r.Negotiated)
	c.addCalls(r)
	if r.ModelView != "" {
		answers := []string{r.Answer}
		if r.Flagged {
			answers = append(answers, record.AnswerFlagged)
		}
		c.AddAgent(r.ModelView, answers...)
	}
	if r.Observation != nil && r.Observation.Library != "" {
		c.Library = r.Observation.Library
	}
	if r.ReusedFrom != nil {
		c.ReusedFrom, c.CacheKey = r.ReusedFrom, r.CacheKey
		c.RunsReused++
	}
}

// Settled is the cell's outcome counts after its runs re-run alone, what the findings compare
// (what publishing the schema or changing the protocol changed): each run re-run alone counts
// with the outcome it had alone in place of the one it had first, so a cell whose one run hung
// under the sweep's load and passed alone counts passed 1/1.
//
// ok is false when the load decided the cell: a run re-run alone came out otherwise than it did
// first, and another of its runs had that first outcome and was not re-run (only the first
// such run of a cell is), so what the client does there is not known and the cell is left out
// of the comparisons; so is a cell whose run the load may have decided was never re-run alone
// (AloneNotRun). A cell with no run alone, or whose results do not say what its runs alone
// replaced (AloneFor: results of toolscores before it), settles at its counts.
func (c *Cell) Settled() (counts map[string]int, ok bool) {
	if c.AloneNotRun {
		return c.Outcome, false
	}
	alone, replaced := 0, 0
	for _, n := range c.Alone {
		alone += n
	}
	for _, n := range c.AloneFor {
		replaced += n
	}
	if alone == 0 || replaced != alone {
		return c.Outcome, true
	}
	counts = map[string]int{}
	for o, n := range c.Outcome {
		counts[o] = n
	}
	for o, n := range c.AloneFor {
		if c.Alone[o] < n && c.Outcome[o] > n {
			return c.Outcome, false
		}
		if counts[o] -= n; counts[o] <= 0 {
			delete(counts, o)
		}
	}
	for o, n := range c.Alone {
		counts[o] += n
	}
	return counts, true
}

// LoadDecided says whether the load decided the cell (Settled's ok is false).
func (c *Cell) LoadDecided() bool {
	_, ok := c.Settled()
	return !ok
}

// Reused says how many of the cell's runs the cell cache gave, for results of toolscores
// before RunsReused too: their reused cells were reused whole.
func (c *Cell) Reused() int {
	if c.RunsReused == 0 && c.ReusedFrom != nil {
		return c.Runs
	}
	return c.RunsReused
}

// PartlyReused says whether the cell cache gave some of the cell's runs but not all: a merge of
// a shard that reused its slice of the cell with one that ran its own.
func (c *Cell) PartlyReused() bool {
	n := c.Reused()
	return n > 0 && n < c.Runs
}

// addCalls counts how the run's client sent the target call, and keeps it with the run's
// example when the run is its outcome's example.
func (c *Cell) addCalls(r *record.Run) {
	if r.Calls == nil {
		return // a record of a toolscore before the count
	}
	if c.Calls == nil {
		c.Calls = map[string]int{}
	}
	c.Calls[strconv.Itoa(r.Calls.Sent)]++
	if len(r.Calls.Cancelled) > 0 {
		c.Cancelled++
	}
	if r.Calls.Duplicate {
		c.Duplicate++
	}
	if ex, ok := c.Examples[string(r.Outcome)]; ok && ex.Run == r.Run && ex.Calls == nil {
		ex.Calls = r.Calls
		c.Examples[string(r.Outcome)] = ex
	}
}
