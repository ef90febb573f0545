package tally

import "time"

// Run is what a cell counts of one finished run: the fields of its runs.jsonl record (the
// runner's RunRecord) that the counts read, so the counts can be made again from that file.
type Run struct {
	Client     string `json:"client"`
	Fault      string `json:"fault"`
	Schema     string `json:"schema"`
	Protocol   string `json:"protocol"`
	Transport  string `json:"transport"`
	Tool       string `json:"tool,omitempty"`
	Run        int    `json:"run"`
	Negotiated string `json:"negotiated,omitempty"`
	Outcome    string `json:"outcome"`
	Evidence   string `json:"evidence,omitempty"`
	ModelView  string `json:"model_view,omitempty"`
	Answer     string `json:"answer,omitempty"`
	Flagged    bool   `json:"flagged,omitempty"`
	Millis     int64  `json:"ms"`
	Tee        string `json:"tee"`
	// Observation is read for the library alone.
	Observation *struct {
		Library string `json:"library"`
	} `json:"observation,omitempty"`
}

// AnswerFlagged is what an agent's run counts among its answers when the answer named the
// problem (grade.AnswerFlagged).
const AnswerFlagged = "flagged"

// Key is the key of the run's cell, as Cell.Key has it.
func (r *Run) Key() string {
	return (&Cell{Client: r.Client, Fault: r.Fault, Schema: r.Schema, Protocol: protocolOr(r.Protocol), Transport: r.Transport, Tool: r.Tool}).Key()
}

// AddRun counts one finished run of the cell: its outcome, the protocol it negotiated, an
// agent's view and answer, and the client's library.
func (c *Cell) AddRun(r *Run) {
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
