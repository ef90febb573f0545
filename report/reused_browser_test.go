package report_test

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/toolscore/toolscore/internal/reporttest"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/tally"
)

// TestReportInChromiumReused: in a real headless Chromium, report.html shows the r mark on the
// cells the cell cache gave and on no other, and a reused cell's evidence, once clicked, says
// when its sweep ran and which entry it is.
func TestReportInChromiumReused(t *testing.T) {
	ctx := reporttest.Chromium(t)
	started := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	ran := started.Add(-24 * time.Hour)
	r := &tally.Results{Scenario: "cached", Started: started, Finished: started.Add(time.Second)}
	for _, client := range []string{"raw", "go-sdk/call"} {
		for _, f := range []string{"clean", "type-swap"} {
			c := &tally.Cell{Cell: record.Cell{Client: client, Fault: f, Schema: "hidden", Protocol: "as-is", Transport: "stdio"},
				Runs: 1, Planned: 1, Outcome: map[string]int{"passed": 1}}
			if client == "go-sdk/call" {
				c.ReusedFrom, c.CacheKey = &ran, "entry-"+f
			}
			r.Cells = append(r.Cells, c)
		}
	}
	var b bytes.Buffer
	if err := report.HTML(&b, r); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate((&url.URL{Scheme: "file", Path: path}).String()), chromedp.WaitReady("table.grid")); err != nil {
		t.Fatalf("opening report.html: %v", err)
	}
	// Each grid cell's client and whether a visible mark r is on it.
	marks, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("table.grid td[data-client]")].map(td =>
		td.dataset.client + ":" + [...td.querySelectorAll("sup.mark")].some(s => s.checkVisibility() && s.textContent.includes("r")))`))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(marks, " "); got != "raw:false go-sdk/call:true raw:false go-sdk/call:true" {
		t.Errorf("the grid's reused marks: %s", got)
	}
	if err := chromedp.Do(ctx, chromedp.Click(`table.grid tbody td:nth-of-type(2) a`), chromedp.WaitVisible(`#cell-3 dd.reused`)); err != nil {
		t.Fatalf("clicking a reused cell: %v", err)
	}
	evidence, err := chromedp.Run(ctx, chromedp.Text(`#cell-3`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(evidence, "from the cell cache: ran in the sweep started 2026-04-30 09:00:00 UTC, entry entry-clean") {
		t.Errorf("the reused cell's evidence does not say when and which entry:\n%s", evidence)
	}
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("section.evidence dd.reused").length`)); err != nil || n != 2 {
		t.Errorf("%d evidence sections say reused (%v), want the 2 reused cells'", n, err)
	}
}
