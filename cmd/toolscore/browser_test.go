package main

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/toolscore/toolscore/internal/hostile"
	"github.com/toolscore/toolscore/internal/reporttest"
)

// fileURL is the file:// URL of path.
func fileURL(t *testing.T, path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return (&url.URL{Scheme: "file", Path: abs}).String()
}

// TestReportInChromium opens report.html of a real sweep of the hostile server in a real
// headless Chromium: no script of the server's ran and no element of its was made, the
// evidence of a clicked cell shows with the server's text as text, the filters hide what they
// filter out; then it saves a screenshot (go test -artifacts keeps it).
func TestReportInChromium(t *testing.T) {
	ctx := reporttest.Chromium(t)
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "hostile.yaml"), hostileReportManifest("rpc-error"))
	if _, stderr, code := toolscore(t, ws, "run", "hostile.yaml", "--backend", "local", "--out", "out"); code != 1 {
		t.Fatalf("toolscore run: exit %d, want 1: %s", code, stderr)
	}

	scriptsRan := reporttest.TrapScripts(t, ctx)
	report := fileURL(t, filepath.Join(ws, "out", "report.html"))
	eval := func(js string, v any) {
		t.Helper()
		var err error
		switch v := v.(type) {
		case *bool:
			*v, err = chromedp.Run(ctx, chromedp.Evaluate[bool](js))
		case *int:
			*v, err = chromedp.Run(ctx, chromedp.Evaluate[int](js))
		case *[]string:
			*v, err = chromedp.Run(ctx, chromedp.Evaluate[[]string](js))
		}
		if err != nil {
			t.Fatalf("evaluating %s: %v", js, err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(report), chromedp.WaitReady("table.grid")); err != nil {
		t.Fatalf("opening report.html: %v", err)
	}
	var shownBefore, shownAfter bool
	eval(`document.querySelector("#cell-2").checkVisibility()`, &shownBefore)
	// The second client's column is go-sdk/call.
	if err := chromedp.Do(ctx, chromedp.Click(`table.grid tbody td:nth-of-type(2) a`), chromedp.WaitVisible(`#cell-2`)); err != nil {
		t.Fatalf("clicking a cell: %v", err)
	}
	eval(`document.querySelector("#cell-2").checkVisibility()`, &shownAfter)
	evidence, err := chromedp.Run(ctx, chromedp.Text(`#cell-2`))
	if err != nil {
		t.Fatalf("reading the evidence: %v", err)
	}
	body, err := chromedp.Run(ctx, chromedp.Text(`body`))
	if err != nil {
		t.Fatalf("reading the page: %v", err)
	}
	var images, scripts int
	var tags []string
	eval(`document.querySelectorAll("img").length`, &images)
	eval(`document.querySelectorAll("script").length`, &scripts)
	eval(`[...new Set([...document.querySelectorAll("*")].map(e => e.localName))].sort()`, &tags)
	ran := scriptsRan()
	if shownBefore || !shownAfter {
		t.Errorf("the cell's evidence: shown before the click %v, after %v; want hidden, then shown", shownBefore, shownAfter)
	}
	if len(ran) > 0 {
		t.Errorf("the server's script ran in the page: %q", ran)
	}
	if images != 0 || scripts != 1 {
		t.Errorf("the page has %d img and %d script elements; want none of the server's (0 and our 1)", images, scripts)
	}
	for _, tag := range tags {
		if !strings.Contains(" html head meta title style body h1 h2 h3 h4 p label select option span sup table thead tbody tr th td a ul li strong pre div section dl dt dd code script wbr ", " "+tag+" ") {
			t.Errorf("the page has a <%s> element the report does not write", tag)
		}
	}
	for _, want := range []string{"go-sdk/call", `<script>alert("ts")</script><img src=x onerror=alert(1)>`, "The whole transcript:"} {
		if !strings.Contains(evidence, want) {
			t.Errorf("the evidence of the clicked cell does not show %q as text:\n%.2000s", want, evidence)
		}
	}
	// The manifest's hostile version shows as text where the page lists the client unavailable.
	if want := "go-sdk/call@::error::v ##[warning]v <img src=x onerror=alert(1)>"; !strings.Contains(body, want) {
		t.Errorf("the page does not show the unavailable client %q as text", want)
	}
	if !strings.Contains(hostile.Text, `<script>alert("ts")</script>`) {
		t.Fatalf("the hostile server's text changed; this test looks for its script tag")
	}

	// The client filter hides the other clients' columns; the fault filter the other faults' rows.
	var hiddenCols, hiddenRows int
	eval(`(() => { const s = document.getElementById("client-filter"); s.selectedIndex = 1;
		s.dispatchEvent(new Event("change")); return document.querySelectorAll("table.grid td[hidden]").length; })()`, &hiddenCols)
	eval(`(() => { const s = document.getElementById("fault-filter"); s.selectedIndex = 1;
		s.dispatchEvent(new Event("change")); return document.querySelectorAll("table.grid tr[hidden]").length; })()`, &hiddenRows)
	if hiddenCols != 2 || hiddenRows != 0 {
		t.Errorf("filtered to the first client and the one fault: %d cells and %d rows hidden; want 2 and 0", hiddenCols, hiddenRows)
	}

	// The filters back to all; the clicked cell's evidence is still open.
	eval(`(() => { for (const id of ["client-filter", "fault-filter"]) { const s = document.getElementById(id); s.selectedIndex = 0;
		s.dispatchEvent(new Event("change")); } return document.querySelector("#cell-2").checkVisibility(); })()`, &shownAfter)
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if len(png) < 1000 {
		t.Fatalf("the screenshot has %d bytes", len(png))
	}
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), "report.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReportScreenshot makes the README's picture: with TOOLSCORE_SCREENSHOT_OF naming a
// report.html (the embedded study's) and TOOLSCORE_SCREENSHOT a PNG path, it opens the page in
// headless Chromium, clicks the cell of TOOLSCORE_SCREENSHOT_CELL (an element id, cell-1 by
// default) and saves what shows. Without them it skips.
func TestReportScreenshot(t *testing.T) {
	of, to := os.Getenv("TOOLSCORE_SCREENSHOT_OF"), os.Getenv("TOOLSCORE_SCREENSHOT")
	if of == "" || to == "" {
		t.Skip("set TOOLSCORE_SCREENSHOT_OF=report.html and TOOLSCORE_SCREENSHOT=out.png to make a screenshot")
	}
	cell := os.Getenv("TOOLSCORE_SCREENSHOT_CELL")
	if cell == "" {
		cell = "cell-1"
	}
	ctx := reporttest.Chromium(t)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 760), chromedp.Navigate(fileURL(t, of)),
		chromedp.WaitReady("table.grid"), chromedp.Click(`a[href="#`+cell+`"]`),
		chromedp.WaitVisible("#"+cell)); err != nil {
		t.Fatalf("opening %s: %v", of, err)
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(to, png, 0o644); err != nil {
		t.Fatal(err)
	}
}
