package report

import (
	"encoding/json"
	"io"

	"github.com/toolscore/toolscore/runner/tally"
)

// JSON writes results.json, indented so that a diff between two sweeps reads line by line.
// Empty lists and counts are written as [] and {} rather than null, as the schema says.
func JSON(w io.Writer, r *tally.Results) error {
	out := *r
	out.Cells = make([]*tally.Cell, 0, len(r.Cells))
	for _, c := range r.Cells {
		if c == nil {
			continue
		}
		if c.Outcome == nil {
			cc := *c
			cc.Outcome = map[string]int{}
			c = &cc
		}
		out.Cells = append(out.Cells, c)
	}
	b, err := json.MarshalIndent(&out, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
