package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strconv"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/reporttest"
	"github.com/toolscore/toolscore/tally"
)

// junitDoc reads back what JUnitCompared writes.
type junitDoc struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Suites   []struct {
		Name  string `xml:"name,attr"`
		Tests int    `xml:"tests,attr"`
		Cases []struct {
			Name       string `xml:"name,attr"`
			Classname  string `xml:"classname,attr"`
			Properties []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
			Failures []struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// ctrfRead reads back what CTRFCompared writes.
type ctrfRead struct {
	Results struct {
		Summary struct {
			Tests, Passed, Failed, Skipped int
			Extra                          struct {
				Runs     int            `json:"runs"`
				Outcomes map[string]int `json:"outcomes"`
			} `json:"extra"`
		} `json:"summary"`
		Tests []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
			Extra  struct {
				Outcomes map[string]int      `json:"outcomes"`
				Runs     int                 `json:"runs"`
				Failures []map[string]string `json:"failures"`
			} `json:"extra"`
		} `json:"tests"`
	} `json:"results"`
}

// CheckJUnitCTRF renders r's junit.xml and ctrf.json, validates each against its schema, and
// checks that their numbers are r's: a test case per cell (and per cell gone since the
// baseline), each cell's outcome counts, failures where expectations broke or cells changed.
func checkJUnitCTRF(t *testing.T, r *tally.Results, cmp *Comparison) (junitDoc, ctrfRead) {
	t.Helper()
	var jb, cb bytes.Buffer
	if err := JUnitCompared(&jb, r, cmp); err != nil {
		t.Fatal(err)
	}
	if err := CTRFCompared(&cb, r, cmp); err != nil {
		t.Fatal(err)
	}
	reporttest.ValidJUnit(t, "junit.xml", jb.Bytes())
	reporttest.ValidCTRF(t, "ctrf.json", cb.Bytes())
	var j junitDoc
	if err := xml.Unmarshal(jb.Bytes(), &j); err != nil {
		t.Fatalf("junit.xml: %v", err)
	}
	var c ctrfRead
	if err := json.Unmarshal(cb.Bytes(), &c); err != nil {
		t.Fatalf("ctrf.json: %v", err)
	}
	cases := testCases(r, cmp)
	if j.Tests != len(cases) || c.Results.Summary.Tests != len(cases) || len(c.Results.Tests) != len(cases) {
		t.Fatalf("junit.xml has %d tests, ctrf.json %d (%d listed); want one per cell, %d", j.Tests, c.Results.Summary.Tests, len(c.Results.Tests), len(cases))
	}
	i := 0
	for _, s := range j.Suites {
		for _, jc := range s.Cases {
			tc, ct := cases[i], c.Results.Tests[i]
			i++
			got := map[string]int{}
			for _, p := range jc.Properties {
				if o, ok := strings.CutPrefix(p.Name, "outcome."); ok {
					got[o], _ = strconv.Atoi(p.Value)
				}
			}
			want := map[string]int{}
			for o, n := range tc.Cell.Outcome {
				want[line(o)] = n
			}
			if !mapsEqual(got, want) || !mapsEqual(ct.Extra.Outcomes, want) {
				t.Errorf("%s: counts junit %v, ctrf %v; results.json %v", tc.Name, got, ct.Extra.Outcomes, want)
			}
			if len(jc.Failures) != len(tc.Failures) || len(ct.Extra.Failures) != len(tc.Failures) {
				t.Errorf("%s: %d failures in junit, %d in ctrf, want %d", tc.Name, len(jc.Failures), len(ct.Extra.Failures), len(tc.Failures))
			}
			if (ct.Status == "failed") != (len(tc.Failures) > 0) {
				t.Errorf("%s: ctrf status %s with %d failures", tc.Name, ct.Status, len(tc.Failures))
			}
		}
	}
	runs, _, _ := runCounts(r)
	if c.Results.Summary.Extra.Runs != runs {
		t.Errorf("ctrf.json counts %d runs, results.json %d", c.Results.Summary.Extra.Runs, runs)
	}
	return j, c
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestJUnitCTRFSample: the sample sweep's one unmet expectation fails the cells it selects
// that saw another outcome; cells not run are skipped; the rest pass.
func TestJUnitCTRFSample(t *testing.T) {
	r := sample()
	j, c := checkJUnitCTRF(t, r, nil)
	failed := 0
	for _, s := range j.Suites {
		for _, tc := range s.Cases {
			if len(tc.Failures) > 0 {
				failed++
				if !strings.Contains(tc.Failures[0].Message, "manifest line ") || tc.Failures[0].Type != "expectation" {
					t.Errorf("%s: failure %+v, want the expectation's manifest line", tc.Name, tc.Failures[0])
				}
			}
		}
	}
	if failed == 0 || failed != j.Failures || failed != c.Results.Summary.Failed {
		t.Errorf("failed cases: %d counted, junit says %d, ctrf %d", failed, j.Failures, c.Results.Summary.Failed)
	}
}

// TestJUnitCTRFBaseline: with a baseline, each changed cell fails, and a cell gone since the
// baseline is a failing case of its own.
func TestJUnitCTRFBaseline(t *testing.T) {
	r := &tally.Results{Scenario: "s", Cells: []*tally.Cell{mkCell("raw", "clean", "hidden", 1, "passed:1"), mkCell("raw", "corrupt", "hidden", 1, "threw:1")}}
	base := &tally.Results{Scenario: "s", Cells: []*tally.Cell{mkCell("raw", "clean", "hidden", 1, "passed:1"), mkCell("raw", "corrupt", "hidden", 1, "passed:1"),
		mkCell("raw", "latency", "hidden", 1, "passed:1")}}
	_, c := checkJUnitCTRF(t, r, &Comparison{Baseline: "toolscore-baseline.json", Changes: tally.Diff(base, r)})
	var status []string
	for _, tc := range c.Results.Tests {
		status = append(status, tc.Status)
	}
	if strings.Join(status, ",") != "passed,failed,failed" {
		t.Errorf("statuses %v, want the clean cell passed, corrupt changed, latency gone", status)
	}
}

// TestJUnitCTRFHostile: hostile text in every field still gives valid documents, and none of
// it carries a control character or bidi override.
func TestJUnitCTRFHostile(t *testing.T) {
	r, _, cmp := hostileResults()
	checkJUnitCTRF(t, r, cmp)
	for _, render := range []func(*bytes.Buffer) error{
		func(b *bytes.Buffer) error { return JUnitCompared(b, r, cmp) },
		func(b *bytes.Buffer) error { return CTRFCompared(b, r, cmp) },
	} {
		var b bytes.Buffer
		if err := render(&b); err != nil {
			t.Fatal(err)
		}
		for _, ch := range b.String() {
			if ch != '\n' && isControl(ch) {
				t.Errorf("a report carries the control %U", ch)
				break
			}
		}
	}
}
