package main

import (
	"fmt"

	"github.com/toolscore/toolscore/runner"
	"github.com/toolscore/toolscore/runner/outdir"
	"github.com/toolscore/toolscore/runner/scenario"
)

// loadRecordings reads the transcripts of the sweep in dir for toolscore run --replay, which
// must be a sweep of the same scenario: its runs are matched by cell.
func loadRecordings(dir string, sc *scenario.Scenario) (*runner.Recordings, error) {
	res, err := outdir.ReadResults(outdir.Results(dir))
	if err != nil {
		return nil, fmt.Errorf("--replay: %w", err)
	}
	if res.Scenario != sc.Name {
		return nil, fmt.Errorf("--replay: %s is a sweep of the scenario %q, not of %q: give its manifest", dir, res.Scenario, sc.Name)
	}
	r, err := runner.LoadRecordings(dir)
	if err != nil {
		return nil, fmt.Errorf("--replay: %w", err)
	}
	return r, nil
}
