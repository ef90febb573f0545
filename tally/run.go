package tally

import (
	"time"

	"github.com/toolscore/toolscore/record"
)

// Run is what a cell counts of one finished run: the fields of its runs.jsonl record (the
// runner's RunRecord) that the counts read, so the counts can be made again from that file
// (record.Read).
type Run struct {
	record.Cell
	Run        int    `json:"run"`
	Negotiated string `json:"negotiated,omitempty"`
	Outcome    string `json:"outcome"`
	Evidence   string `json:"evidence,omitempty"`
	ModelView  string `json:"model_view,omitempty"`
	Answer     string `json:"answer,omitempty"`
	Flagged    bool   `json:"flagged,omitempty"`
	Millis     int64  `json:"ms"`
	Tee        string `json:"tee"`
	// Alone marks a run run again alone after the sweep, counted beside the cell's runs.
	Alone bool `json:"alone,omitempty"`
	// Observation is read for the library alone.
	Observation *struct {
		Library string `json:"library"`
	} `json:"observation,omitempty"`
}

// AnswerFlagged is what an agent's run counts among its answers when the answer named the
// problem (grade.AnswerFlagged).
const AnswerFlagged = "flagged"

// Whole says the line read is a run's record the counts can take: it has an outcome
// (record.Record).
func (r *Run) Whole() bool { return r.Outcome != "" }

// AddRun counts one finished run of the cell: its outcome, the protocol it negotiated, an
// agent's view and answer, and the client's library.
func (c *Cell) AddRun(r *Run) {
	if r.Alone {
		if c.Alone == nil {
			c.Alone = map[string]int{}
		}
		c.Alone[r.Outcome]++
		return
	}
	c.Add(r.Outcome, r.Run, r.Evidence, r.Tee, time.Duration(r.Millis)*time.Millisecond)
	c.AddNegotiated(r.Negotiated)
	if r.ModelView != "" {
		answers := []string{r.Answer}
		if r.Flagged {
			answers = append(answers, AnswerFlagged)
		}
		c.AddAgent(r.ModelView, answers...)
	}
	if r.Observation != nil && r.Observation.Library != "" {
		c.Library = r.Observation.Library
	}
}
