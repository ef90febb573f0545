package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// TestEvidenceOfATool: in a scenario with tools:, a cell's example run is found by the cell's
// whole key, tool included (its record was once keyed without the tool, and its evidence
// missed), and a run of another tool's cell is not taken for it.
func TestEvidenceOfATool(t *testing.T) {
	dir := t.TempDir()
	c := mkCell("raw", "clean", "hidden", 1, "passed:1")
	c.Tool = "get_rate"
	c.Examples = map[string]tally.Example{"passed": {Run: 1}}
	r := &tally.Results{Scenario: "s", Cells: []*tally.Cell{c}}
	lines := `{"client":"raw","fault":"clean","schema":"hidden","protocol":"as-is","transport":"stdio","tool":"get_balance","run":1,"outcome":"threw","wire":"other tool"}
{"client":"raw","fault":"clean","schema":"hidden","protocol":"as-is","transport":"stdio","tool":"get_rate","run":1,"outcome":"passed","wire":"W"}
`
	os.WriteFile(filepath.Join(dir, record.RunsFile), []byte(lines), 0o644)
	ev, err := ReadEvidence(dir, r)
	if err != nil {
		t.Fatal(err)
	}
	if got := ev.of(c, 1); got == nil || got.Record.Wire != "W" || got.Record.Tool != "get_rate" {
		t.Errorf("run 1 of %s: %+v, want its record", c.Key(), got)
	}
}
