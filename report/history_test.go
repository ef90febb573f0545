package report

import (
	"bytes"
	"fmt"
	"html"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/toolscore/toolscore/internal/reporttest"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// historyHostile is what a server under test might answer with, and so what a history's
// evidence and an install's reason might hold: markup, script, a bidirectional override.
const historyHostile = "McpError: <script>alert(\"history\")</script><img src=x onerror=alert(2)> | `x` \u202eevil\n## not a heading"

// handHistory is a small history of one client over four releases in the registry's order,
// 1.0.1 published after 1.1.0: 1.0.0 would not install; the published schema's type-swap
// passed from 1.0.1 and threw from 1.2.0 (one boundary), the hidden schema's passed
// throughout.
func handHistory() *tally.History {
	at := func(s string) *time.Time {
		t, err := time.Parse("2006-01-02", s)
		if err != nil {
			panic(err)
		}
		return &t
	}
	cell := func(schema string) record.Cell {
		return record.Cell{Client: "ts-sdk/call", Fault: "type-swap", Schema: schema, Protocol: "2025-11-25", Transport: "stdio"}
	}
	failed := tally.Segment{First: "1.0.0", Last: "1.0.0", FirstPublished: at("2025-01-10"), LastPublished: at("2025-01-10"),
		Outcome: tally.InstallFailed, Swept: []string{"1.0.0"}, Reason: "npm ERR! code E404\nnpm ERR! " + historyHostile}
	return &tally.History{
		Scenario: "hand <b>history</b>", Toolscore: "v0.9.0", Backend: "docker", Started: t0, Finished: t0.Add(time.Hour),
		RunsExecuted: 12, RunsReused: 6,
		Clients: []tally.ClientHistory{{
			Client: "ts-sdk/call", Registry: "npm", Package: "@modelcontextprotocol/sdk", Order: tally.OrderRegistry,
			Versions: []tally.Release{
				{Version: "1.0.0", Published: at("2025-01-10"), Swept: true, InstallFailed: "npm ERR! code E404"},
				{Version: "1.0.1", Published: at("2025-03-05"), Swept: true, Sweep: "versions/1.0.1", Protocol: "2025-06-18"},
				{Version: "1.1.0", Published: at("2025-02-10"), Swept: true, Sweep: "versions/1.1.0", Protocol: "2025-11-25"},
				{Version: "1.2.0", Published: at("2025-04-01"), Swept: true, Sweep: "versions/1.2.0", Protocol: "2025-11-25"},
			},
			OutOfOrder: []string{"1.0.1"},
			Cells: []tally.CellHistory{
				{Cell: cell("published"), Segments: []tally.Segment{failed,
					{First: "1.0.1", Last: "1.1.0", FirstPublished: at("2025-02-10"), LastPublished: at("2025-03-05"), Outcome: "passed",
						Outcomes: map[string]int{"passed": 6}, Swept: []string{"1.0.1", "1.1.0"}, Protocol: "2025-06-18", Protocols: []string{"2025-06-18", "2025-11-25"},
						Example: &tally.SegmentExample{Version: "1.1.0", Sweep: "versions/1.1.0", Run: 1, Tee: "runs/a/run-1/tee.jsonl"}},
					{First: "1.2.0", Last: "1.2.0", FirstPublished: at("2025-04-01"), LastPublished: at("2025-04-01"), Outcome: "threw",
						Outcomes: map[string]int{"threw": 3}, Swept: []string{"1.2.0"}, Protocol: "2025-11-25",
						Example: &tally.SegmentExample{Version: "1.2.0", Sweep: "versions/1.2.0", Run: 2, Evidence: historyHostile, Tee: "runs/b/run-2/tee.jsonl"}},
				}},
				{Cell: cell("hidden"), Segments: []tally.Segment{failed,
					{First: "1.0.1", Last: "1.2.0", FirstPublished: at("2025-03-05"), LastPublished: at("2025-04-01"), Outcome: "passed",
						Outcomes: map[string]int{"passed": 9}, Swept: []string{"1.0.1", "1.1.0", "1.2.0"}, Protocol: "2025-11-25",
						Example: &tally.SegmentExample{Version: "1.2.0", Sweep: "versions/1.2.0", Run: 1}},
				}},
			},
		}},
	}
}

// handResults is the sweep of the history's newest release, and a client the history has not.
func handResults() *tally.Results {
	r := &tally.Results{Scenario: "hand <b>history</b>", Toolscore: "v0.9.0", Backend: "docker", Started: t0}
	for _, client := range []string{"ts-sdk/call@1.2.0", "raw"} {
		for _, schema := range []string{"hidden", "published"} {
			c := mkCell(client, "type-swap", schema, 3, "passed:3")
			c.Protocol, c.Library = "2025-11-25", "lib of "+client
			if client != "raw" && schema == "published" {
				c = mkCell(client, "type-swap", schema, 3, "threw:3")
				c.Protocol = "2025-11-25"
				c.Examples = map[string]tally.Example{"threw": {Run: 2, Evidence: historyHostile, Tee: "runs/b/run-2/tee.jsonl"}}
			}
			r.Cells = append(r.Cells, c)
		}
	}
	return r
}

// wantSince is what the page should say of a cell of the history at its newest release,
// worked out from the segments alone: the last segment that installed; "since" its first
// version where the history saw the outcome before it, else "throughout" (or "at" one version).
func wantSince(cell tally.CellHistory) string {
	for i := len(cell.Segments) - 1; i >= 0; i-- {
		s := cell.Segments[i]
		if s.Outcome == tally.InstallFailed {
			continue
		}
		switch {
		case i > 0 && cell.Segments[i-1].Outcome != tally.InstallFailed:
			return s.Outcome + " since " + s.First
		case s.First == s.Last:
			return s.Outcome + " at " + s.First
		}
		return s.Outcome + " throughout " + s.First + "–" + s.Last
	}
	return ""
}

// TestCompatSinceMarkdown: with a history, each client's outcome says since which release it
// holds in a column of its own, the range of releases beside the client; the page renders
// through cmark-gfm to no element of the server's; without one, the page is Compat's.
func TestCompatSinceMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := CompatSince(&b, handResults(), handHistory()); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"| client | outcome | since | where it differs | evidence |\n|---|---|---|---|---|\n",
		"| " + EscapeMarkdown("ts-sdk/call@1.2.0") + " | passed 3/3 | passed throughout 1.0.1–1.2.0 | hidden schema |  |\n",
		"|  | threw 3/3 | threw since 1.2.0 | published schema | [1](#hand-b-history-b-type-swap-1) |\n",
		"| raw | passed 3/3 |  |  |  |\n",
		"| " + EscapeMarkdown("ts-sdk/call@1.2.0") + " | " + EscapeMarkdown("lib of ts-sdk/call@1.2.0") + " | 1.0.0–1.2.0 in the registry's order: 4 versions, 4 swept (1 could not be installed or started) |\n",
		"*Since* says from which release",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the page lacks %q:\n%s", want, md)
		}
	}
	unescapedPipe := regexp.MustCompile(`(^|[^\\])\|`)
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| ") {
			if n := len(unescapedPipe.FindAllString(l, -1)); n != 4 && n != 6 {
				t.Errorf("a row has %d column bars: %q", n, l)
			}
		}
	}
	for _, bad := range []string{"<script", "<b>", "\u202e"} {
		if strings.Contains(md, bad) {
			t.Errorf("the Markdown holds %q", bad)
		}
	}
	if out := reporttest.RenderMarkdown(t, md); out != "" {
		for _, bad := range []string{"<script", "<img", "<b>", "\u202e", "<h2>not a heading"} {
			if strings.Contains(out, bad) {
				t.Errorf("cmark-gfm renders %q from the page:\n%s", bad, out)
			}
		}
		if !strings.Contains(out, "<td>threw since 1.2.0</td>") {
			t.Errorf("cmark-gfm does not render the since column:\n%s", out)
		}
	}

	var plain, none bytes.Buffer
	if err := Compat(&plain, handResults()); err != nil {
		t.Fatal(err)
	}
	if err := CompatSince(&none, handResults(), nil); err != nil {
		t.Fatal(err)
	}
	if plain.String() != none.String() || strings.Contains(plain.String(), "since") {
		t.Errorf("without a history the page is not Compat's:\n%s", none.String())
	}
}

// TestCompatSinceEveryCell: every cell of the history has, on both pages, the since its
// segments give at the newest release (worked out here from the segments, not by the page's
// code), and every segment its stretch on the timeline with its evidence's anchor.
func TestCompatSinceEveryCell(t *testing.T) {
	h := handHistory()
	var md, page bytes.Buffer
	if err := CompatSince(&md, handResults(), h); err != nil {
		t.Fatal(err)
	}
	if err := CompatHTMLSince(&page, handResults(), h); err != nil {
		t.Fatal(err)
	}
	for ci, ch := range h.Clients {
		newest := ch.Versions[len(ch.Versions)-1].Version
		for row, cell := range ch.Cells {
			want := wantSince(cell)
			if want == "" {
				t.Fatalf("%s has no outcome", cellLabel(cell.Cell))
			}
			c := cell.Cell
			c.Client = ch.Client + "@" + newest
			counts := ""
			for _, rc := range handResults().Cells {
				if rc.Key() == c.Key() {
					counts = rc.Counts()
				}
			}
			if counts == "" {
				t.Fatalf("the results have no %s", c.Key())
			}
			row1 := fmt.Sprintf("| %s | %s | %s |", EscapeMarkdown(counts), EscapeMarkdown(want), EscapeMarkdown(c.Schema+" schema"))
			if !strings.Contains(md.String(), row1) {
				t.Errorf("the Markdown lacks %q", row1)
			}
			where := fmt.Sprintf("<h4>%s schema, %s, %s: %s</h4>\n<p class=\"since\">since: %s</p>", c.Schema, c.Protocol, c.Transport, counts, want)
			if !strings.Contains(page.String(), where) {
				t.Errorf("the HTML lacks %q", where)
			}
			for si, s := range cell.Segments {
				id := fmt.Sprintf("t-%d-%d-%d", ci+1, row+1, si+1)
				link := fmt.Sprintf(`<a href="#%s" title="`, id)
				if !strings.Contains(page.String(), link) {
					t.Errorf("the timeline has no link to %s (%s %s–%s)", id, s.Outcome, s.First, s.Last)
				}
				panel := regexp.MustCompile(`(?s)<section class="evidence" id="` + id + `">.*?</section>`).FindString(page.String())
				if !strings.Contains(panel, "<dt>releases</dt><dd>"+s.First) || !strings.Contains(panel, ": "+s.Outcome+"</h3>") {
					t.Errorf("the evidence of %s does not show %s %s–%s:\n%s", id, s.Outcome, s.First, s.Last, panel)
				}
			}
		}
	}
	// The since of the published schema links to its segment on the timeline.
	if !strings.Contains(page.String(), `<td class="since"><a href="#t-1-1-3">threw since 1.2.0</a></td>`) {
		t.Errorf("the since does not link to its stretch of releases")
	}
}

// TestCompatSinceHTMLHostile: the history's text (the server's evidence, an install's reason)
// is text on the page: no element or script of its own, no bidirectional override; without a
// history the page is CompatHTML's.
func TestCompatSinceHTMLHostile(t *testing.T) {
	var b bytes.Buffer
	if err := CompatHTMLSince(&b, handResults(), handHistory()); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script", "<img", "<b>", "\u202e", `href="javascript`} {
		if strings.Contains(b.String(), bad) {
			t.Errorf("the HTML holds %q", bad)
		}
	}
	for _, want := range []string{
		html.EscapeString(`McpError: <script>alert("history")</script>`),
		"npm ERR! code E404\nnpm ERR! McpError: &lt;script&gt;",
		"published out of order: 1.0.1 (2025-03-05)",
		`class="o-install-failed"`,
		// A stretch in the registry's order whose first release came out after its last: the
		// column's dates run forwards all the same (they ran 2025-03-05 – 2025-02-10).
		"<small>2025-02-10 – 2025-03-05</small>",
		// The stretch spans two protocols: each release's is shown.
		"<dt>protocol offered</dt><dd>1.0.1: 2025-06-18, 1.1.0: 2025-11-25</dd>",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the HTML lacks %q", want)
		}
	}
	var plain, none bytes.Buffer
	if err := CompatHTML(&plain, handResults()); err != nil {
		t.Fatal(err)
	}
	if err := CompatHTMLSince(&none, handResults(), nil); err != nil {
		t.Fatal(err)
	}
	if plain.String() != none.String() || strings.Contains(plain.String(), "timeline") {
		t.Errorf("without a history the page is not CompatHTML's")
	}
}

// TestHistoryText: what changed, release by release, the server's text made plain.
func TestHistoryText(t *testing.T) {
	var b bytes.Buffer
	if err := HistoryText(&b, handHistory()); err != nil {
		t.Fatal(err)
	}
	want := "History of hand <b>history</b>: 1 client, toolscore v0.9.0, backend docker, 12 runs executed, 6 reused from the cell cache, started 2026-03-31\n" +
		"\n" +
		"ts-sdk/call (npm @modelcontextprotocol/sdk), 1.0.0–1.2.0 in the registry's order: 4 versions, 4 swept (1 could not be installed or started)\n" +
		"  1.0.0 (2025-01-10): install-failed: npm ERR! code E404\n" +
		"  1.2.0 (2025-04-01): type-swap/published/2025-11-25/stdio passed → threw (McpError: <script>alert(\"history\")</script><img src=x onerror=alert(2)> | `x` \ufffdevil ## not a heading)\n" +
		"  published out of order: 1.0.1 (2025-03-05)\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestCompatSinceInChromium opens the page with a history in a real headless Chromium: no
// script of the history's ran and no element of its was made; clicking a stretch of the
// timeline opens its evidence, the server's text shown as text; a screenshot of the timeline
// with the evidence open is saved (go test -artifacts keeps it; TOOLSCORE_SCREENSHOT names a
// file to copy it to).
func TestCompatSinceInChromium(t *testing.T) {
	ctx := reporttest.Chromium(t)
	dir := t.TempDir()
	var b bytes.Buffer
	if err := CompatHTMLSince(&b, handResults(), handHistory()); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "compat.html")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	scriptsRan := reporttest.TrapScripts(t, ctx)
	u := (&url.URL{Scheme: "file", Path: file}).String()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(u+"#t-1"), chromedp.WaitReady("#t-1")); err != nil {
		t.Fatalf("opening the page: %v", err)
	}
	shownBefore, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("#t-1-1-3").checkVisibility()`))
	if err != nil {
		t.Fatal(err)
	}
	timeline, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), "compat-timeline.png"), timeline, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(`a[href="#t-1-1-3"]`), chromedp.WaitVisible(`#t-1-1-3`)); err != nil {
		t.Fatalf("clicking a stretch of the timeline: %v", err)
	}
	evidence, err := chromedp.Run(ctx, chromedp.Text(`#t-1-1-3`))
	if err != nil {
		t.Fatal(err)
	}
	tags, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...new Set([...document.querySelectorAll("*")].map(e => e.localName))].sort()`))
	if err != nil {
		t.Fatal(err)
	}
	ran := scriptsRan()
	if len(ran) > 0 {
		t.Errorf("the history's script ran in the page: %q", ran)
	}
	if shownBefore {
		t.Errorf("the evidence showed before its stretch was clicked")
	}
	for _, tag := range tags {
		if !strings.Contains(" html head meta title style body h1 h2 h3 h4 p span em small ul li a table thead tbody tr th td section div dl dt dd pre details summary ", " "+tag+" ") {
			t.Errorf("the page has a <%s> element the compatibility page does not write", tag)
		}
	}
	for _, want := range []string{"ts-sdk/call × type-swap/published/2025-11-25/stdio: threw", "McpError: <script>alert(\"history\")</script><img src=x onerror=alert(2)> | `x` \ufffdevil\n## not a heading", "runs/b/run-2/tee.jsonl", "threw since 1.2.0"} {
		if !strings.Contains(evidence, want) {
			t.Errorf("the evidence does not show %q as text:\n%s", want, evidence)
		}
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), "compat-history.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestClientRangeOneVersion: a history of one release reads "1 version", not "1 versions"
// (issue 52, item 7).
func TestClientRangeOneVersion(t *testing.T) {
	ch := &tally.ClientHistory{Versions: []tally.Release{{Version: "1.2.0", Swept: true}}}
	if got, want := clientRange(ch), "1.2.0 in the registry's order: 1 version, 1 swept"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
