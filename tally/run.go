package tally

import (
	"time"

	"github.com/toolscore/toolscore/record"
)

// AddRun counts one finished run of the cell, as its runs.jsonl record holds it: its outcome,
// the protocol it negotiated, an agent's view and answer, and the client's library. A run run
// again alone after the sweep is counted beside the cell's runs (Alone), never in them.
func (c *Cell) AddRun(r *record.Run) {
	if r.Alone {
		if c.Alone == nil {
			c.Alone = map[string]int{}
		}
		c.Alone[string(r.Outcome)]++
		return
	}
	c.Add(string(r.Outcome), r.Run, r.Evidence, r.Tee, time.Duration(r.Millis)*time.Millisecond)
	c.AddNegotiated(r.Negotiated)
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
	}
}
