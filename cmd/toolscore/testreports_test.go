package main

import (
	"encoding/json"
	"encoding/xml"
	"maps"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/internal/reporttest"
	"github.com/toolscore/toolscore/tally"
)

// checkTestReports checks junit.xml and ctrf.json of the output directory dir against its
// results.json: each validates against its schema, has one test case per cell with the cell's
// outcome counts, and fails as many cases as wantFailed says.
func checkTestReports(t *testing.T, dir string, wantFailed int) {
	t.Helper()
	res, err := outdir.ReadResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	junit, ctrf := readFile(t, filepath.Join(dir, "junit.xml")), readFile(t, filepath.Join(dir, "ctrf.json"))
	reporttest.ValidJUnit(t, dir+"/junit.xml", []byte(junit))
	reporttest.ValidCTRF(t, dir+"/ctrf.json", []byte(ctrf))

	var j struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Cases    []struct {
			Properties []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
		} `xml:"testsuite>testcase"`
	}
	if err := xml.Unmarshal([]byte(junit), &j); err != nil {
		t.Fatalf("junit.xml: %v", err)
	}
	var c struct {
		Results struct {
			Summary struct {
				Tests, Failed int
				Extra         struct {
					Runs     int            `json:"runs"`
					Outcomes map[string]int `json:"outcomes"`
				} `json:"extra"`
			} `json:"summary"`
			Tests []struct {
				Extra struct {
					Runs     int            `json:"runs"`
					Outcomes map[string]int `json:"outcomes"`
				} `json:"extra"`
			} `json:"tests"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(ctrf), &c); err != nil {
		t.Fatalf("ctrf.json: %v", err)
	}
	cells := 0
	runs := 0
	totals := map[string]int{}
	for _, cell := range res.Cells {
		if cell == nil {
			continue
		}
		if cells >= len(j.Cases) || cells >= len(c.Results.Tests) {
			t.Fatalf("junit.xml has %d cases, ctrf.json %d tests; results.json more cells", len(j.Cases), len(c.Results.Tests))
		}
		got := map[string]int{}
		for _, p := range j.Cases[cells].Properties {
			if o, ok := strings.CutPrefix(p.Name, "outcome."); ok {
				got[o], _ = strconv.Atoi(p.Value)
			}
		}
		if !maps.Equal(got, cell.Outcome) || !maps.Equal(c.Results.Tests[cells].Extra.Outcomes, cell.Outcome) || c.Results.Tests[cells].Extra.Runs != cell.Runs {
			t.Errorf("%s: junit.xml counts %v, ctrf.json %v (%d runs); results.json %v (%d runs)",
				cell.Coordinates(), got, c.Results.Tests[cells].Extra.Outcomes, c.Results.Tests[cells].Extra.Runs, cell.Outcome, cell.Runs)
		}
		for o, n := range cell.Outcome {
			totals[o] += n
		}
		runs += cell.Runs
		cells++
	}
	if j.Tests != cells || c.Results.Summary.Tests != cells {
		t.Errorf("junit.xml has %d tests, ctrf.json %d; results.json %d cells", j.Tests, c.Results.Summary.Tests, cells)
	}
	if c.Results.Summary.Extra.Runs != runs || !maps.Equal(c.Results.Summary.Extra.Outcomes, totals) {
		t.Errorf("ctrf.json's summary: %d runs %v; results.json %d runs %v", c.Results.Summary.Extra.Runs, c.Results.Summary.Extra.Outcomes, runs, totals)
	}
	if j.Failures != wantFailed || c.Results.Summary.Failed != wantFailed {
		t.Errorf("junit.xml fails %d cases, ctrf.json %d; want %d", j.Failures, c.Results.Summary.Failed, wantFailed)
	}
}

// TestTestReportsOfASweep runs a real sweep of the ledger (local backend) with one expectation
// that does not hold, and checks its junit.xml and ctrf.json against results.json, then the
// same documents from toolscore report --format junit|ctrf.
func TestTestReportsOfASweep(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "s.yaml"), `name: test reports
server:
  builtin: ledger
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [clean, rpc-error, type-swap]
schema_modes: [hidden, published]
clients: [raw, go-sdk/call]
runs: 2
timeout: 20s
expect:
  - {client: go-sdk/call, fault: type-swap, schema: published, outcome: threw}
`)
	_, stderr, code := toolscore(t, ws, "run", "s.yaml", "--backend", "local", "--out", "out")
	if code != 1 {
		t.Fatalf("toolscore run: exit %d, want 1 (the expectation does not hold): %s", code, stderr)
	}
	out := filepath.Join(ws, "out")
	checkTestReports(t, out, 1)
	for _, format := range []string{"junit", "ctrf"} {
		stdout, stderr, code := toolscore(t, ws, "report", "out", "--format", format)
		file := map[string]string{"junit": "junit.xml", "ctrf": "ctrf.json"}[format]
		if code != 0 || stdout != readFile(t, filepath.Join(out, file)) {
			t.Errorf("toolscore report --format %s: exit %d (%s), not the %s of the sweep", format, code, stderr, file)
		}
	}
	var res tally.Results
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(out, "results.json"))), &res); err != nil || len(res.Cells) != 12 {
		t.Fatalf("results.json: %v, %d cells, want 12", err, len(res.Cells))
	}
}
