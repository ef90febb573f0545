package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/toolscore/toolscore/internal/reporttest"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// compatHostile is what a server under test (its error text) and a client (its library) might
// put on the compatibility page.
const compatHostile = "<script>alert(\"compat\")</script><img src=x onerror=alert(1)> | `x` \n## not a heading"

// TestCompatPageInChromium renders `report --format compat-html` of a results.json whose
// evidence and library are hostile and opens it in a real headless Chromium: no script of the
// results ran and no element of theirs was made, a fault's anchor and an outcome's evidence
// anchor open, the evidence shows the text as text; then it saves a screenshot (go test
// -artifacts keeps it) of the page with the evidence open.
func TestCompatPageInChromium(t *testing.T) {
	ctx := reporttest.Chromium(t)
	ws := t.TempDir()
	r := &tally.Results{Scenario: "hostile compat", Backend: "docker"}
	for _, schema := range []string{"hidden", "published"} {
		for _, client := range []string{"raw", "ts-sdk/call"} {
			c := &tally.Cell{Cell: record.Cell{Client: client, Fault: "type-swap", Schema: schema, Protocol: "2026-07-28", Transport: "stdio"},
				Runs: 3, Planned: 3, Outcome: map[string]int{"passed": 3}, Library: "lib " + compatHostile}
			if client == "ts-sdk/call" && schema == "published" {
				c.Outcome = map[string]int{"threw": 3}
				c.Examples = map[string]tally.Example{"threw": {Run: 1, Evidence: "McpError: " + compatHostile, Tee: "runs/x/run-1/tee.jsonl"}}
			}
			r.Cells = append(r.Cells, c)
		}
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws, "results.json"), string(data))
	stdout, stderr, code := toolscore(t, ws, "report", "results.json", "--format", "compat-html")
	if code != 0 {
		t.Fatalf("report --format compat-html: exit %d: %s", code, stderr)
	}
	writeFile(t, filepath.Join(ws, "compat.html"), stdout)

	scriptsRan := reporttest.TrapScripts(t, ctx)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 760), chromedp.Navigate(fileURL(t, filepath.Join(ws, "compat.html"))), chromedp.WaitReady("#f-type-swap")); err != nil {
		t.Fatalf("opening compat.html: %v", err)
	}
	shownBefore, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("#f-type-swap-3").checkVisibility()`))
	if err != nil {
		t.Fatal(err)
	}
	// The third entry: ts-sdk/call under the published schema, threw.
	if err := chromedp.Do(ctx, chromedp.Click(`a[href="#f-type-swap-3"]`), chromedp.WaitVisible(`#f-type-swap-3`)); err != nil {
		t.Fatalf("clicking the outcome: %v", err)
	}
	evidence, err := chromedp.Run(ctx, chromedp.Text(`#f-type-swap-3`))
	if err != nil {
		t.Fatalf("reading the evidence: %v", err)
	}
	tags, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...new Set([...document.querySelectorAll("*")].map(e => e.localName))].sort()`))
	if err != nil {
		t.Fatal(err)
	}
	ran := scriptsRan()
	if len(ran) > 0 {
		t.Errorf("the results' script ran in the page: %q", ran)
	}
	if shownBefore {
		t.Errorf("the evidence showed before its outcome was clicked")
	}
	for _, tag := range tags {
		if !strings.Contains(" html head meta title style body h1 h2 h3 h4 p span ul li a table thead tbody tr th td section div dl dt dd pre details summary ", " "+tag+" ") {
			t.Errorf("the page has a <%s> element the compatibility page does not write", tag)
		}
	}
	for _, want := range []string{"ts-sdk/call × type-swap × published schema", "McpError: <script>alert(\"compat\")</script><img src=x onerror=alert(1)> | `x` \n## not a heading", "runs/x/run-1/tee.jsonl"} {
		if !strings.Contains(evidence, want) {
			t.Errorf("the evidence does not show %q as text:\n%s", want, evidence)
		}
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), "compat.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
