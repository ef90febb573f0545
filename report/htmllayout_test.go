package report

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/toolscore/toolscore/internal/reporttest"
	"github.com/toolscore/toolscore/tally"
)

// studyLike is a sweep shaped as the embedded study is: 14 clients, both schema modes, where
// publishing the schema changed four clients' outcomes on four faults, and one cell's counts
// are long.
func studyLike() *tally.Results {
	r := &tally.Results{Scenario: "ledger balance", Toolscore: "v0.1.0", Backend: "local", Started: t0, Finished: t0.Add(9e9)}
	clients := []string{"raw", "go-sdk/call", "go-sdk/list-then-call", "mcp-go/call", "mcp-go/list-then-call", "ts-sdk/call", "ts-sdk/list-then-call",
		"ts-client-v2/call", "ts-client-v2/list-then-call", "python-sdk/call", "python-sdk/list-then-call", "claude-code", "codex", "gemini-cli"}
	for _, mode := range []string{"hidden", "published"} {
		for _, f := range []string{"clean", "error", "empty", "truncate", "type-swap", "drop-required", "wrong-container", "latency"} {
			for i, client := range clients {
				c := mkCell(client, f, mode, 3, "passed:3")
				switch {
				case mode == "published" && i >= 6 && i <= 9 && f != "clean" && f != "error" && f != "latency" && f != "wrong-container":
					c = mkCell(client, f, mode, 3, "threw:3")
				}
				r.Cells = append(r.Cells, c)
			}
		}
	}
	return r
}

// TestReportLeadsWithTheFinding opens report.html of a study-like sweep in a real headless
// Chromium, in a 1400 px window (issue 52, item 1): the page used to open with the grids and
// end with one line per client × fault × protocol, 2611 px wide where one cell's counts were
// long. Now the grouped findings (one line per client and way the counts went, each fault a
// link to its evidence) come before the first grid, and the page fits the window. A screenshot
// is saved (go test -artifacts keeps it).
func TestReportLeadsWithTheFinding(t *testing.T) {
	r := studyLike()
	r.Cells[len(r.Cells)/2-1].Outcome = map[string]int{"passed": 1, "hung": 1, "rpc-error": 1} // long counts
	var b bytes.Buffer
	if err := HTML(&b, r); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := reporttest.Chromium(t)
	u := (&url.URL{Scheme: "file", Path: file}).String()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1400, 900), chromedp.Navigate(u), chromedp.WaitReady("body")); err != nil {
		t.Fatalf("opening the page: %v", err)
	}
	width, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
	if err != nil {
		t.Fatal(err)
	}
	if width > 1400 {
		t.Errorf("the page is %d px wide, more than the 1400 px window", width)
	}
	order, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`[document.querySelector("#schema-changes").getBoundingClientRect().top, document.querySelector("table.grid").getBoundingClientRect().top]`))
	if err != nil {
		t.Fatal(err)
	}
	if order[0] >= order[1] {
		t.Errorf("the findings (at %.0f px) come after the first grid (at %.0f px)", order[0], order[1])
	}
	lines, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#schema-changes li")].map(li => li.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "ts-sdk/list-then-call: passed 3/3 (hidden) → threw 3/3 (published): empty, truncate, type-swap, drop-required"; len(lines) != 5 || lines[0] != want {
		t.Errorf("the findings: %q, want 5 grouped lines (the four SDKs', gemini-cli's long counts), the first %q", lines, want)
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), "report-1400.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	title, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector(document.querySelector("#schema-changes li a").getAttribute("href") + " h3").textContent`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "ts-sdk/list-then-call × empty × schema published"; !bytes.Contains([]byte(title), []byte(want)) {
		t.Errorf("the finding's link opens %q, want the evidence of %s", title, want)
	}
}
