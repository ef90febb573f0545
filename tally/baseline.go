package tally

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenario"
)

// BaselineFormat names the baseline file's format, so a reader can tell it from results.json.
const BaselineFormat = "toolscore-baseline/1"

// Baseline is the expected counts a team commits: per cell only what a re-run must reproduce,
// with no timings, paths or evidence, so equal counts give a byte-identical file.
type Baseline struct {
	Format   string         `json:"format"`
	Scenario string         `json:"scenario"`
	Cells    []BaselineCell `json:"cells"`
}

// BaselineCell is one cell's expected outcome counts.
type BaselineCell struct {
	Client string `json:"client"`
	Fault  string `json:"fault"`
	Schema string `json:"schema"`
	// Protocol is written only when it is not as-is, so a baseline of a sweep without a
	// protocol axis stays byte for byte what it was before there was one.
	Protocol  string `json:"protocol,omitempty"`
	Transport string `json:"transport"`
	// Tool is written only in a scenario with tools:, for the same reason.
	Tool     string         `json:"tool,omitempty"`
	Outcomes map[string]int `json:"outcomes"`
}

// coordinates is where the baseline's cell sits in the matrix, its protocol as-is when none is
// written.
func (c BaselineCell) coordinates() record.Cell {
	return record.Cell{Client: c.Client, Fault: c.Fault, Schema: c.Schema, Protocol: protocolOr(c.Protocol), Transport: c.Transport, Tool: c.Tool}
}

// NewBaseline takes the counts of r, its cells sorted by client, fault, schema and transport.
func NewBaseline(r *Results) *Baseline {
	b := &Baseline{Format: BaselineFormat, Scenario: r.Scenario, Cells: []BaselineCell{}}
	for _, c := range r.Cells {
		if c == nil {
			continue
		}
		bc := BaselineCell{Client: c.Client, Fault: c.Fault, Schema: c.Schema, Transport: c.Transport, Tool: c.Tool, Outcomes: map[string]int{}}
		if p := protocolOr(c.Protocol); p != string(scenario.ProtocolAsIs) {
			bc.Protocol = p
		}
		for o, n := range c.Outcome {
			if n != 0 {
				bc.Outcomes[o] = n
			}
		}
		b.Cells = append(b.Cells, bc)
	}
	slices.SortFunc(b.Cells, func(x, y BaselineCell) int {
		return cmp.Or(cmp.Compare(x.Tool, y.Tool), cmp.Compare(x.Client, y.Client), cmp.Compare(x.Fault, y.Fault),
			cmp.Compare(x.Schema, y.Schema), cmp.Compare(x.Protocol, y.Protocol), cmp.Compare(x.Transport, y.Transport))
	})
	return b
}

// Check says what is wrong with a baseline read from a file, if anything.
func (b *Baseline) Check() error {
	if b.Format != BaselineFormat {
		return fmt.Errorf("format %q is not %q: written by another version of toolscore?", b.Format, BaselineFormat)
	}
	if b.Scenario == "" {
		return errors.New("it names no scenario")
	}
	seen := map[string]bool{}
	for i, c := range b.Cells {
		if c.Client == "" || c.Fault == "" || c.Schema == "" || c.Transport == "" {
			return fmt.Errorf("cells[%d]: want client, fault, schema and transport, got %q, %q, %q, %q", i, c.Client, c.Fault, c.Schema, c.Transport)
		}
		cell := &Cell{Cell: c.coordinates()}
		if seen[cell.Key()] {
			where := cell.Coordinates()
			if c.Transport == string(scenario.TransportStdio) {
				where += " × stdio" // Coordinates leaves stdio out, and a baseline names every transport
			}
			return fmt.Errorf("cells[%d]: %s is listed twice", i, where)
		}
		seen[cell.Key()] = true
		for o, n := range c.Outcomes {
			if n < 0 {
				return fmt.Errorf("cells[%d]: %s: outcome %s counted %d times", i, cell.Coordinates(), o, n)
			}
		}
	}
	return nil
}

// Results turns the baseline into results whose cells finished every planned run with the
// expected counts, for Diff.
func (b *Baseline) Results() *Results {
	r := &Results{Scenario: b.Scenario, Cells: []*Cell{}}
	for _, bc := range b.Cells {
		c := &Cell{Cell: bc.coordinates(), Outcome: map[string]int{}}
		for o, n := range bc.Outcomes {
			if n != 0 {
				c.Outcome[o] = n
				c.Runs += n
			}
		}
		c.Planned = c.Runs
		c.Mixed = c.IsMixed()
		r.Cells = append(r.Cells, c)
	}
	return r
}
