package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// timelineView is one client's releases on the compatibility page: its cells down, its
// releases across in columns, one per run of releases over which no cell's outcome changed,
// so hundreds of releases take a handful of columns. Every string is made by line or block.
type timelineView struct {
	ID, Client, Package, Range string
	Columns                    []timelineColumn
	Rows                       []timelineRow
	OutOfOrder                 string
	Panels                     []timelinePanel
}

// timelineColumn heads a run of releases: its first and last version, their publish dates,
// and how many of them the history swept.
type timelineColumn struct{ Versions, Dates, Swept, Title string }

type timelineRow struct {
	Label string
	Segs  []timelineSeg
}

// timelineSeg is one segment of a cell spanning Span columns; ID is its evidence's anchor,
// "" for columns no segment covers.
type timelineSeg struct {
	ID, Class, Outcome, Title string
	Span                      int
}

// timelinePanel is a segment's evidence, shown when its anchor is the target.
type timelinePanel struct {
	ID, Back, Title  string
	Facts            []timelineFact
	Evidence, Reason string
}

type timelineFact struct{ Name, Value string }

// timelineID is the anchor of the i-th client's timeline (from 0).
func timelineID(i int) string { return fmt.Sprintf("t-%d", i+1) }

// timelineOf is the anchor of a sweep's client's timeline, "" when the history has not it.
func timelineOf(h *tally.History, client string) string {
	name, _, _ := strings.Cut(client, "@")
	for i, ch := range h.Clients {
		if ch.Client == name {
			return timelineID(i)
		}
	}
	return ""
}

// segmentID is the anchor of the evidence of the segment holding a sweep's cell's outcome on
// its client's timeline, "" when the history has not the cell.
func segmentID(h *tally.History, c record.Cell) string {
	seg, ok := h.Since(c)
	ch, cell := cellHistory(h, c)
	if !ok || ch == nil {
		return ""
	}
	ci := slices.IndexFunc(h.Clients, func(x tally.ClientHistory) bool { return x.Client == ch.Client })
	row := slices.IndexFunc(ch.Cells, func(x tally.CellHistory) bool { return x.Key() == cell.Key() })
	si := slices.IndexFunc(cell.Segments, func(s tally.Segment) bool { return s.First == seg.First && s.Last == seg.Last })
	if ci < 0 || row < 0 || si < 0 {
		return ""
	}
	return segmentAnchor(ci, row, si)
}

// segmentAnchor is the anchor of client ci's row's segment si (all from 0).
func segmentAnchor(ci, row, si int) string {
	return fmt.Sprintf("%s-%d-%d", timelineID(ci), row+1, si+1)
}

// timelines builds every client's timeline of h.
func timelines(h *tally.History) []timelineView {
	var out []timelineView
	for ci := range h.Clients {
		out = append(out, timelineFor(ci, &h.Clients[ci]))
	}
	return out
}

// timelineFor builds client ci's timeline: its columns are cut wherever any of its cells' segments
// starts, so each segment spans whole columns.
func timelineFor(ci int, ch *tally.ClientHistory) timelineView {
	tl := timelineView{ID: timelineID(ci), Client: line(ch.Client), Range: line(clientRange(ch))}
	if ch.Package != "" {
		tl.Package = line(strings.TrimSpace(ch.Registry + " " + ch.Package))
	}
	at := versionIndex(ch)
	n := len(ch.Versions)
	cuts := map[int]bool{0: true}
	for _, cell := range ch.Cells {
		for _, s := range cell.Segments {
			if i, ok := at[s.First]; ok {
				cuts[i] = true
			}
			if i, ok := at[s.Last]; ok && i+1 < n {
				cuts[i+1] = true
			}
		}
	}
	var starts []int
	for i := range cuts {
		if i < n {
			starts = append(starts, i)
		}
	}
	slices.Sort(starts)
	type span struct{ first, last int }
	var cols []span
	for k, s := range starts {
		end := n - 1
		if k+1 < len(starts) {
			end = starts[k+1] - 1
		}
		cols = append(cols, span{s, end})
		first, last := ch.Versions[s], ch.Versions[end]
		c := timelineColumn{Versions: line(first.Version)}
		if end > s {
			c.Versions = line(first.Version + " – " + last.Version)
		}
		c.Dates = dateSpan(ch.Versions[s : end+1])
		var swept []string
		for _, r := range ch.Versions[s : end+1] {
			if r.Swept {
				swept = append(swept, r.Version)
			}
		}
		c.Swept = fmt.Sprintf("%d of %d swept", len(swept), end-s+1)
		if end == s {
			c.Swept = map[bool]string{true: "swept", false: "not swept"}[len(swept) == 1]
		}
		if len(swept) > 0 {
			c.Title = line("swept: " + strings.Join(swept, ", "))
		}
		tl.Columns = append(tl.Columns, c)
	}

	for row, cell := range ch.Cells {
		tr := timelineRow{Label: line(cellLabel(cell.Cell))}
		for k := 0; k < len(cols); {
			si := slices.IndexFunc(cell.Segments, func(s tally.Segment) bool {
				f, ok1 := at[s.First]
				l, ok2 := at[s.Last]
				return ok1 && ok2 && f <= cols[k].first && cols[k].last <= l
			})
			span := 1
			for k+span < len(cols) && si >= 0 && at[cell.Segments[si].Last] >= cols[k+span].last {
				span++
			}
			if si < 0 {
				tr.Segs = append(tr.Segs, timelineSeg{Class: "other", Span: 1})
				k++
				continue
			}
			s := cell.Segments[si]
			id := segmentAnchor(ci, row, si)
			since := segmentSince(ch, &cell, s)
			tr.Segs = append(tr.Segs, timelineSeg{ID: id, Class: segmentClass(s), Outcome: line(s.Outcome), Title: line(since), Span: span})
			tl.Panels = append(tl.Panels, segmentPanel(tl, ch, cell, s, id, since))
			k += span
		}
		tl.Rows = append(tl.Rows, tr)
	}

	var late []string
	for _, v := range ch.OutOfOrder {
		if i, ok := at[v]; ok {
			late = append(late, withDay(v, ch.Versions[i].Published))
		} else {
			late = append(late, v)
		}
	}
	tl.OutOfOrder = line(strings.Join(late, ", "))
	return tl
}

// segmentClass colours a segment as the page colours an outcome: its most frequent outcome's
// colour, striped when its versions' runs disagreed; install failures grey.
func segmentClass(s tally.Segment) string {
	if s.Outcome == tally.InstallFailed {
		return "o-install-failed"
	}
	top := s.Outcome
	if len(s.Outcomes) > 0 {
		top = sortedKeys(s.Outcomes)[0]
	}
	class := "other"
	if coloured(top) {
		class = "o-" + top
	}
	if strings.Contains(s.Outcome, "+") {
		class += " mixed"
	}
	return class
}

// segmentPanel is the evidence of segment s of a cell: its releases, the versions swept, the
// runs' counts, the protocol offered, and its example run or why it would not install.
func segmentPanel(tl timelineView, ch *tally.ClientHistory, cell tally.CellHistory, s tally.Segment, id, since string) timelinePanel {
	p := timelinePanel{ID: id, Back: tl.ID, Title: line(ch.Client + " × " + cellLabel(cell.Cell) + ": " + s.Outcome)}
	fact := func(name, value string) {
		if value != "" {
			p.Facts = append(p.Facts, timelineFact{Name: name, Value: line(value)})
		}
	}
	at := versionIndex(ch)
	versions := withDay(s.First, publishedOf(ch, at, s.First))
	if s.Last != s.First {
		versions += " – " + withDay(s.Last, publishedOf(ch, at, s.Last))
	}
	fact("releases", versions)
	if f, ok1 := at[s.First]; ok1 {
		if l, ok2 := at[s.Last]; ok2 && l > f {
			fact("published", dateSpan(ch.Versions[f:l+1]))
		}
	}
	fact("since", since)
	fact("swept", strings.Join(s.Swept, ", "))
	if len(s.Outcomes) > 0 {
		runs := 0
		for _, k := range s.Outcomes {
			runs += k
		}
		fact("runs", (&tally.Cell{Outcome: s.Outcomes, Runs: runs, Planned: runs}).Counts())
	}
	if len(s.Protocols) > 1 {
		// The stretch spans releases that asked for different revisions: say each one's.
		var each []string
		for _, v := range s.Swept {
			if i, ok := at[v]; ok && ch.Versions[i].Protocol != "" {
				each = append(each, v+": "+ch.Versions[i].Protocol)
			}
		}
		fact("protocol offered", strings.Join(each, ", "))
	} else {
		fact("protocol offered", s.Protocol)
	}
	if ex := s.Example; ex != nil {
		fact("example", fmt.Sprintf("run %d of %s", ex.Run, ex.Version))
		fact("sweep", ex.Sweep)
		fact("transcript", ex.Tee)
		p.Evidence = block(ex.Evidence)
	}
	p.Reason = block(s.Reason)
	return p
}
