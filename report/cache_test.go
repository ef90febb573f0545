package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/toolscore/toolscore/internal/reporttest"
	"github.com/toolscore/toolscore/tally"
)

// reusedSweep is a sweep of two clients × two faults in which raw's cells came from the cell
// cache (their key hostile text: results.json is outside input) and go-sdk's ran.
func reusedSweep() *tally.Results {
	ran := t0.Add(-48 * time.Hour)
	r := &tally.Results{Scenario: "cached", Started: t0, Finished: t0.Add(time.Second)}
	for _, f := range []string{"clean", "type-swap"} {
		for _, client := range []string{"raw", "go-sdk"} {
			c := mkCell(client, f, "hidden", 3, "passed:3")
			if client == "raw" {
				c.ReusedFrom, c.CacheKey = &ran, "key-"+f+" "+hostileHTML
			}
			r.Cells = append(r.Cells, c)
		}
	}
	return r
}

// attr is n's attribute key, "" when it has none.
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// elements lists n's descendants that are tag elements whose class attribute holds class
// ("" for any).
func elements(n *html.Node, tag, class string) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == tag && (class == "" || strings.Contains(" "+attr(n, "class")+" ", " "+class+" ")) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

// TestHTMLMarksReused: report.html marks the grid cells and evidence of reused cells, and
// only theirs, with when their sweep ran and their cache key as text; the page leads with
// the cache line.
func TestHTMLMarksReused(t *testing.T) {
	r := reusedSweep()
	var b bytes.Buffer
	if err := HTML(&b, r); err != nil {
		t.Fatal(err)
	}
	doc := reporttest.CheckHTML(t, "report.html", b.Bytes())
	if !strings.Contains(reporttest.TextOf(doc), "4 cells: 2 ran, 2 reused, server answers verified") {
		t.Errorf("report.html does not say what ran and what was reused")
	}
	// The grid: a cell's link carries the r mark exactly when its client is raw.
	marked := 0
	for _, td := range elements(doc, "td", "") {
		client := attr(td, "data-client")
		if client == "" {
			continue
		}
		hasR := false
		for _, sup := range elements(td, "sup", "mark") {
			hasR = hasR || strings.Contains(reporttest.TextOf(sup), "r")
		}
		if hasR != (client == "raw") {
			t.Errorf("grid cell of %s: reused mark %v", client, hasR)
		}
		if hasR {
			marked++
		}
	}
	if marked != 2 {
		t.Errorf("%d grid cells marked reused, want 2", marked)
	}
	// The evidence: a reused cell's says when it ran and its key, the others nothing of it.
	for _, sec := range elements(doc, "section", "evidence") {
		text := reporttest.TextOf(sec)
		reused := elements(sec, "dd", "reused")
		isRaw := strings.Contains(text, "raw ×")
		if (len(reused) == 1) != isRaw {
			t.Errorf("evidence %s: %d reused lines\n%s", attr(sec, "id"), len(reused), text)
			continue
		}
		if isRaw && !strings.Contains(text, "ran in the sweep started 2026-03-29 12:00:00 UTC, entry key-") {
			t.Errorf("evidence %s does not say when the reused cell ran and its key:\n%s", attr(sec, "id"), text)
		}
	}
	// A sweep that reused nothing says nothing of the cache.
	for _, c := range r.Cells {
		c.ReusedFrom, c.CacheKey = nil, ""
	}
	b.Reset()
	if err := HTML(&b, r); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); strings.Contains(s, "reused") {
		t.Errorf("report.html of a sweep that reused nothing mentions reuse")
	}
}

// TestCompatMarksReused: both compatibility pages mark the entries whose cells came from the
// cache, and only those: all of them, or how many of how many.
func TestCompatMarksReused(t *testing.T) {
	r := reusedSweep()
	// The published schema: raw threw on type-swap (its entry splits by schema mode), go-sdk
	// passed as with the hidden one, whose cell alone is reused (one entry, partly reused).
	ran := t0.Add(-time.Hour)
	r.Cells = append(r.Cells, mkCell("raw", "type-swap", "published", 3, "threw:3"), mkCell("go-sdk", "type-swap", "published", 3, "passed:3"))
	r.Cells[3].ReusedFrom, r.Cells[3].CacheKey = &ran, "k"
	var md bytes.Buffer
	if err := Compat(&md, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"6 cells: 3 ran, 3 reused, server answers verified.\nAn outcome marked *reused*",
		"### clean\n\nAll 2 clients: passed 3/3.\nReused from the cell cache: raw.\n",
		"| raw | passed 3/3 *reused* | hidden schema |",
		"|  | threw 3/3 | published schema |",
		"| go-sdk | passed 3/3 *1 of 2 cells reused* |  |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("compat.md lacks %q:\n%s", want, md.String())
		}
	}
	if n := strings.Count(md.String(), "reused* |"); n != 2 {
		t.Errorf("compat.md marks %d table entries reused, want 2:\n%s", n, md.String())
	}

	var h bytes.Buffer
	if err := CompatHTML(&h, r); err != nil {
		t.Fatal(err)
	}
	doc := reporttest.CheckCompatHTML(t, "compat.html", h.Bytes())
	var titles []string
	for _, td := range elements(doc, "td", "counts") {
		for _, sup := range elements(td, "sup", "mark") {
			titles = append(titles, attr(sup, "title"))
		}
	}
	want := "reused from the cell cache|reused from the cell cache|1 of 2 cells reused from the cell cache"
	if got := strings.Join(titles, "|"); got != want {
		t.Errorf("compat.html marks %q, want %q", got, want)
	}
	if n := len(elements(doc, "p", "reused")); n != 3 {
		t.Errorf("compat.html's evidence says %d cells were reused, want 3", n)
	}
}

// TestJUnitCTRFReused: junit.xml and ctrf.json carry reused_from and cache_key on the reused
// cells' tests and on no other.
func TestJUnitCTRFReused(t *testing.T) {
	r := reusedSweep()
	j, _ := checkJUnitCTRF(t, r, nil)
	for _, s := range j.Suites {
		for _, c := range s.Cases {
			var from, key string
			for _, p := range c.Properties {
				switch p.Name {
				case "reused_from":
					from = p.Value
				case "cache_key":
					key = p.Value
				}
			}
			raw := strings.HasPrefix(c.Name, "raw")
			if raw != (from == "2026-03-29T12:00:00Z") || raw != (key != "") {
				t.Errorf("junit %s: reused_from %q, cache_key %q", c.Name, from, key)
			}
		}
	}
	var cb bytes.Buffer
	if err := CTRF(&cb, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Results struct {
			Tests []struct {
				Name  string
				Extra map[string]any
			}
		}
	}
	if err := json.Unmarshal(cb.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tc := range doc.Results.Tests {
		raw := tc.Extra["client"] == "raw"
		if raw != (tc.Extra["reused_from"] == "2026-03-29T12:00:00Z") || raw != (tc.Extra["cache_key"] != nil) {
			t.Errorf("ctrf %s: extra %v", tc.Name, tc.Extra)
		}
	}
}
