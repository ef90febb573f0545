package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/toolscore/toolscore/tally"
)

// ShareFormat is the format of the page a sweep's last lines suggest sharing.
const ShareFormat = "compat-html"

// compatHTMLFormat is the compatibility page as HTML; for a history, with each client's
// timeline.
var compatHTMLFormat = Format{
	Name: ShareFormat, Help: "the same page as HTML, each outcome's evidence a click away",
	Results: func(w io.Writer, r *tally.Results, _ Inputs) error { return CompatHTML(w, r) },
	History: func(w io.Writer, h *tally.History, in Inputs) error {
		res, err := in.Newest()
		if err != nil {
			return err
		}
		return CompatHTMLSince(w, res, h)
	},
}

//go:embed compat.tmpl
var compatSource string

var compatPage = template.Must(template.New("compat").Parse(compatSource))

type compatHTMLView struct {
	Title, Facts, Axes string
	Cache              string
	Clients            []compatClient
	Unavailable        []string
	Faults             []compatHTMLFault
	// History is set when the page says since which release each outcome holds, Timelines
	// are then each client's releases.
	History   bool
	Timelines []timelineView
}

type compatHTMLFault struct {
	ID, Name, Summary string
	Same, SameClass   string // the counts when every client agreed, and their colour
	// SameWho says who agreed ("All 4 clients", "The 1 client"), SameSince since which
	// release, when the page has a history.
	SameWho, SameSince string
	Entries            []compatHTMLEntry
}

type compatHTMLEntry struct {
	ID, Fault, Title       string
	Client, Library, Where string
	Counts, Class          string
	Reused                 string // "reused", "2 of 4 cells reused" or "": the cell cache's part
	Rows                   int    // the client cell's rowspan on its first entry, else 0
	Cells                  []compatHTMLCell
	// Since says since which release the outcome holds, SinceID is the anchor of that
	// segment's evidence on the client's timeline; both "" without a history.
	Since, SinceID string
}

type compatHTMLCell struct {
	Title, Counts string
	Since         string
	Reused        string // for a cell from the cell cache: when it ran, its entry
	Examples      []compatExample
}

type compatExample struct {
	Outcome, Tee, Evidence string
	Run                    int
	AsAbove                bool // its evidence is the previous cell's, word for word
}

// CompatHTML writes the compatibility page as one self-contained HTML page (no external
// script, font or style; no script at all), styled as report.html: per fault a section with
// its anchor (#f-FAULT), a table of client, outcome and where it differs, each outcome linking
// to its evidence (#f-FAULT-N: every cell of the entry with each outcome's example run, its
// evidence and transcript path). Every string from the results goes through line or block
// (control characters and bidirectional overrides become U+FFFD) and html/template escapes it.
func CompatHTML(w io.Writer, r *tally.Results) error { return CompatHTMLSince(w, r, nil) }

// CompatHTMLSince writes the page of CompatHTML, and with a history h (nil for none) says
// beside each outcome since which release it holds, linked to that stretch of releases on the
// client's timeline: per client a grid of its cells across its releases, one column per run
// of releases over which no cell changed, each stretch coloured by its outcome with its
// evidence a click away (#t-N-ROW-SEG). The history's strings are escaped as the results' are.
func CompatHTMLSince(w io.Writer, r *tally.Results, h *tally.History) error {
	v := compatOf(r, h)
	lib := map[string]string{}
	page := compatHTMLView{Title: line(v.Scenario), Facts: line(v.Facts), Cache: line(v.Cache), Axes: andList(v.Axes), History: h != nil}
	if h != nil {
		page.Timelines = timelines(h)
	}
	for _, c := range v.Clients {
		if h != nil {
			c.Releases, c.Timeline = line(releasesOf(h, c.Name)), timelineOf(h, c.Name)
		}
		c.Name, c.Library = line(c.Name), line(c.Library)
		if c.Library == "" {
			c.Library = "not reported"
		}
		lib[c.Name] = c.Library
		page.Clients = append(page.Clients, c)
	}
	for _, u := range v.Unavailable {
		page.Unavailable = append(page.Unavailable, line(u))
	}
	for _, f := range v.Faults {
		hf := compatHTMLFault{ID: "f-" + slug(f.Name), Name: line(f.Name), Summary: line(f.Summary), Same: line(f.Same)}
		if f.Same != "" {
			hf.SameWho, hf.SameSince = sameWho(len(f.Entries)), line(f.Entries[0].Since)
			hf.SameClass = "other"
			if coloured(f.Entries[0].Top) {
				hf.SameClass = "o-" + f.Entries[0].Top
			}
		}
		for i, e := range f.Entries {
			he := compatHTMLEntry{
				ID: fmt.Sprintf("%s-%d", hf.ID, e.N), Fault: hf.ID,
				Client: line(e.Client), Library: lib[line(e.Client)], Where: line(e.Where), Counts: line(e.Counts), Class: "other",
				Reused: e.reusedMark(), Since: line(e.Since),
			}
			if h != nil {
				he.SinceID = segmentID(h, e.Cells[0].Cell)
			}
			if coloured(e.Top) {
				he.Class = "o-" + e.Top
			}
			if e.Mixed {
				he.Class += " mixed"
			}
			if e.First {
				he.Rows = 1
				for _, next := range f.Entries[i+1:] {
					if next.First {
						break
					}
					he.Rows++
				}
			}
			title := e.Client + " × " + f.Name
			if e.Where != "" {
				title += " × " + e.Where
			}
			he.Title = line(title)
			last := map[string]string{} // outcome → the evidence shown last
			for _, c := range e.Cells {
				hc := compatHTMLCell{Title: line(cellWhere(c)), Counts: line(countsOf(c))}
				if h != nil {
					hc.Since = line(sinceOf(h, c.Cell))
				}
				if c.ReusedFrom != nil {
					hc.Reused = reusedRuns(c) + "reused from the cell cache: ran in the sweep started " + reusedWhen(c)
					if c.CacheKey != "" {
						hc.Reused += ", entry " + line(c.CacheKey)
					}
				}
				for _, o := range byCount(c) {
					ex, ok := c.Examples[o]
					if !ok {
						continue
					}
					x := compatExample{Outcome: line(o), Run: ex.Run, Tee: line(ex.Tee), Evidence: block(ex.Evidence)}
					if x.Evidence != "" && last[o] == x.Evidence {
						x.Evidence, x.AsAbove = "", true
					} else if x.Evidence != "" {
						last[o] = x.Evidence
					}
					hc.Examples = append(hc.Examples, x)
				}
				he.Cells = append(he.Cells, hc)
			}
			hf.Entries = append(hf.Entries, he)
		}
		page.Faults = append(page.Faults, hf)
	}
	var b bytes.Buffer
	if err := compatPage.Execute(&b, page); err != nil {
		return fmt.Errorf("rendering the compatibility page: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// cellWhere names a cell by its coordinates: "published schema, 2025-11-25, stdio".
func cellWhere(c *tally.Cell) string {
	parts := []string{c.Schema + " schema", c.Protocol, c.Transport}
	if c.Tool != "" {
		parts = append(parts, "tool "+c.Tool)
	}
	return strings.Join(parts, ", ")
}
