package report

import (
	"io"
	"strings"
	"time"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// ctrfFormat is ctrf.json.
var ctrfFormat = Format{
	Name: "ctrf", Help: record.CTRFFile, File: record.CTRFFile, Output: "ctrf", Baseline: true,
	Results: func(w io.Writer, r *tally.Results, in Inputs) error { return CTRFCompared(w, r, in.Baseline) },
}

// CTRFSpecVersion is the version of the Common Test Report Format (ctrf.io) that ctrf.json
// follows, as the npm package ctrf 0.3.0 writes it.
const CTRFSpecVersion = "0.0.0"

// CTRF writes ctrf.json from results.json alone: CTRFCompared with no baseline.
func CTRF(w io.Writer, r *tally.Results) error { return CTRFCompared(w, r, nil) }

// CTRFCompared writes ctrf.json in the Common Test Report Format: one test per cell (never
// one per run), failed when an unmet expectation selects it or, with cmp, its counts changed
// against the baseline (a cell gone since is a failed test of its own), skipped when no run of
// it finished, else passed; the cell's coordinates and outcome counts in the test's extra, the
// sweep's totals in the summary's, each equal to results.json's.
func CTRFCompared(w io.Writer, r *tally.Results, cmp *Comparison) error {
	doc := ctrfDoc{ReportFormat: "CTRF", SpecVersion: CTRFSpecVersion, GeneratedBy: "toolscore"}
	doc.Results.Tool = ctrfTool{Name: "toolscore", Version: line(r.Toolscore)}
	sum := &doc.Results.Summary
	if !r.Started.IsZero() {
		sum.Start = r.Started.UnixMilli()
	}
	if !r.Finished.IsZero() {
		sum.Stop = r.Finished.UnixMilli()
	}
	runs, planned, _ := runCounts(r)
	totals := map[string]int{}
	for _, c := range r.Cells {
		if c != nil {
			for o, n := range c.Outcome {
				totals[line(o)] += n
			}
		}
	}
	sum.Extra = map[string]any{"scenario": line(r.Scenario), "backend": line(r.Backend), "runs": runs, "planned": planned, "outcomes": totals}
	doc.Results.Tests = []ctrfTest{}
	for _, tc := range testCases(r, cmp) {
		c := tc.Cell
		outcomes := map[string]int{}
		for o, n := range c.Outcome {
			outcomes[line(o)] = n
		}
		t := ctrfTest{Name: line(tc.Name) + " (" + tc.Suite + ")", Duration: c.MedianMillis, Suite: []string{line(r.Scenario), tc.Suite},
			RawStatus: line(countsOf(c)),
			Extra: map[string]any{"client": line(c.Client), "fault": line(c.Fault), "schema": line(c.Schema), "protocol": line(c.Protocol),
				"transport": line(c.Transport), "runs": c.Runs, "planned": c.Planned, "outcomes": outcomes, "median_ms": c.MedianMillis}}
		if c.Library != "" {
			t.Extra["library"] = line(c.Library)
		}
		if c.Tool != "" {
			t.Extra["tool"] = line(c.Tool)
		}
		if c.ReusedFrom != nil {
			t.Extra["reused_from"] = c.ReusedFrom.UTC().Format(time.RFC3339)
			if c.CacheKey != "" {
				t.Extra["cache_key"] = line(c.CacheKey)
			}
			if c.PartlyReused() {
				t.Extra["runs_reused"] = c.Reused()
			}
		}
		if c.IsMixed() {
			t.Flaky, t.Extra["mixed"] = true, true
		}
		switch {
		case len(tc.Failures) > 0:
			t.Status = "failed"
			var msgs, details []string
			var failures []map[string]string
			for _, f := range tc.Failures {
				msgs = append(msgs, f.Message)
				if f.Detail != "" {
					details = append(details, f.Detail)
				}
				failures = append(failures, map[string]string{"type": f.Type, "message": f.Message})
			}
			t.Message = strings.Join(msgs, "\n")
			t.Trace = strings.Join(details, "\n")
			t.Extra["failures"] = failures
			sum.Failed++
		case c.Runs == 0:
			t.Status = "skipped"
			t.Message = "no run of this cell finished in this sweep"
			sum.Skipped++
		default:
			t.Status = "passed"
			sum.Passed++
		}
		sum.Tests++
		doc.Results.Tests = append(doc.Results.Tests, t)
	}
	return WriteJSON(w, doc)
}

type ctrfDoc struct {
	ReportFormat string `json:"reportFormat"`
	SpecVersion  string `json:"specVersion"`
	GeneratedBy  string `json:"generatedBy"`
	Results      struct {
		Tool    ctrfTool    `json:"tool"`
		Summary ctrfSummary `json:"summary"`
		Tests   []ctrfTest  `json:"tests"`
	} `json:"results"`
}

type ctrfTool struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

type ctrfSummary struct {
	Tests   int            `json:"tests"`
	Passed  int            `json:"passed"`
	Failed  int            `json:"failed"`
	Skipped int            `json:"skipped"`
	Pending int            `json:"pending"`
	Other   int            `json:"other"`
	Start   int64          `json:"start"`
	Stop    int64          `json:"stop"`
	Extra   map[string]any `json:"extra"`
}

type ctrfTest struct {
	Name      string         `json:"name"`
	Status    string         `json:"status"`
	Duration  int64          `json:"duration"`
	Suite     []string       `json:"suite"`
	RawStatus string         `json:"rawStatus"`
	Message   string         `json:"message,omitempty"`
	Flaky     bool           `json:"flaky,omitempty"` // the cell's runs disagree (mixed)
	Trace     string         `json:"trace,omitempty"`
	Extra     map[string]any `json:"extra"`
}
