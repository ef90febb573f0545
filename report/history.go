package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// A history (toolscore history, history.json) holds per client its releases in a range and per
// cell the segments of versions over which the cell's outcome held. The compatibility page says
// with it since which version each outcome holds and draws each client's timeline;
// HistoryText lists what changed, release by release.

// cellHistory finds the client's history and the cell's among it for a cell of a sweep, whose
// client may name a version (name@version).
func cellHistory(h *tally.History, c record.Cell) (*tally.ClientHistory, *tally.CellHistory) {
	if h == nil {
		return nil, nil
	}
	name, _, _ := strings.Cut(c.Client, "@")
	for i := range h.Clients {
		ch := &h.Clients[i]
		if ch.Client != name {
			continue
		}
		for j := range ch.Cells {
			k := ch.Cells[j].Cell
			k.Client = c.Client
			if k.Key() == c.Key() {
				return ch, &ch.Cells[j]
			}
		}
	}
	return nil, nil
}

// sinceOf says since which version of its client a cell's outcome holds: "threw since 1.11.4"
// where the history saw the outcome change there, "passed throughout 1.10.0–1.12.1" where the
// segment starts at the first version the history could run (the range's first, or the first
// after versions that would not install), so no boundary it did not see is claimed. "" when
// the history has not the cell.
func sinceOf(h *tally.History, c record.Cell) string {
	seg, ok := h.Since(c)
	if !ok {
		return ""
	}
	ch, cell := cellHistory(h, c)
	if ch == nil {
		return ""
	}
	return segmentSince(ch, cell, seg)
}

// segmentSince words segment seg of cell as sinceOf does.
func segmentSince(ch *tally.ClientHistory, cell *tally.CellHistory, seg tally.Segment) string {
	i := slices.IndexFunc(cell.Segments, func(s tally.Segment) bool { return s.First == seg.First && s.Last == seg.Last })
	seen := i > 0 && cell.Segments[i-1].Outcome != tally.InstallFailed
	open := len(ch.Versions) > 0 && seg.Last == ch.Versions[len(ch.Versions)-1].Version
	if !open && i >= 0 {
		// Versions after the segment that would not install say nothing against it.
		open = true
		for _, s := range cell.Segments[i+1:] {
			open = open && s.Outcome == tally.InstallFailed
		}
	}
	switch {
	case seen && open:
		return fmt.Sprintf("%s since %s", seg.Outcome, seg.First)
	case seen:
		return fmt.Sprintf("%s since %s, until %s", seg.Outcome, seg.First, seg.Last)
	case seg.First == seg.Last:
		return fmt.Sprintf("%s at %s", seg.Outcome, seg.First)
	}
	return fmt.Sprintf("%s throughout %s–%s", seg.Outcome, seg.First, seg.Last)
}

// cellLabel names a history's cell by its coordinates: "type-swap/published/2025-11-25/stdio".
func cellLabel(c record.Cell) string {
	var parts []string
	for _, p := range []string{c.Fault, c.Schema, c.Protocol, c.Transport} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if c.Tool != "" {
		parts = append(parts, "tool "+c.Tool)
	}
	return strings.Join(parts, "/")
}

// versionIndex maps each of a client's versions to its place in the registry's order.
func versionIndex(ch *tally.ClientHistory) map[string]int {
	at := map[string]int{}
	for i, r := range ch.Versions {
		at[r.Version] = i
	}
	return at
}

// day is a publish date as the pages show it, "" when the registry gave none.
func day(t *time.Time) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02")
}

// withDay is a version with its publish date: "1.11.4 (2025-05-12)".
func withDay(v string, t *time.Time) string {
	if d := day(t); d != "" {
		return v + " (" + d + ")"
	}
	return v
}

// firstLine is the first non-blank line of s.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// historyEvidenceWidth is how many characters of a segment's evidence the text quotes.
const historyEvidenceWidth = 100

// historyChange is one line of HistoryText, at the version it starts from.
type historyChange struct {
	at   int
	line string
}

// HistoryText writes what changed in a history, release by release: per client, in the
// history's order, the range swept, then in the registry's order each version where a cell's
// outcome changed ("1.11.4 (2025-05-12): type-swap/published/2025-11-25/stdio passed → threw
// (McpError: ...)"), each range of versions that would not install with the first line of its
// reason, and last the versions published out of order. Every string from the history goes
// through Plain: it holds text from the servers under test.
func HistoryText(w io.Writer, h *tally.History) error {
	var b strings.Builder
	facts := []string{fmt.Sprintf("%d %s", len(h.Clients), map[bool]string{true: "client", false: "clients"}[len(h.Clients) == 1])}
	if h.Toolscore != "" {
		facts = append(facts, "toolscore "+plain(h.Toolscore))
	}
	if h.Backend != "" {
		facts = append(facts, "backend "+plain(h.Backend))
	}
	if h.RunsExecuted+h.RunsReused > 0 {
		facts = append(facts, fmt.Sprintf("%d runs executed, %d reused from the cell cache", h.RunsExecuted, h.RunsReused))
	}
	if !h.Started.IsZero() {
		facts = append(facts, "started "+h.Started.UTC().Format("2006-01-02"))
	}
	fmt.Fprintf(&b, "History of %s: %s\n", plain(h.Scenario), strings.Join(facts, ", "))
	for i := range h.Clients {
		ch := &h.Clients[i]
		b.WriteString("\n")
		b.WriteString(plain(ch.Client))
		if ch.Package != "" {
			fmt.Fprintf(&b, " (%s %s)", plain(ch.Registry), plain(ch.Package))
		}
		fmt.Fprintf(&b, ", %s\n", plain(clientRange(ch)))
		changes := historyChanges(ch)
		if len(changes) == 0 {
			b.WriteString("  no cell's outcome changed\n")
		}
		for _, c := range changes {
			b.WriteString("  " + c.line + "\n")
		}
		if len(ch.OutOfOrder) > 0 {
			var vs []string
			at := versionIndex(ch)
			for _, v := range ch.OutOfOrder {
				if j, ok := at[v]; ok {
					vs = append(vs, plain(withDay(v, ch.Versions[j].Published)))
				} else {
					vs = append(vs, plain(v))
				}
			}
			fmt.Fprintf(&b, "  published out of order: %s\n", strings.Join(vs, ", "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// historyChanges lists a client's boundaries and install-failed ranges in the registry's
// order; a range that would not install is listed once however many cells it spans.
func historyChanges(ch *tally.ClientHistory) []historyChange {
	at := versionIndex(ch)
	var out []historyChange
	failed := map[string]bool{}
	for _, cell := range ch.Cells {
		label := plain(cellLabel(cell.Cell))
		before := "" // the last outcome the history saw, install failures aside
		for _, s := range cell.Segments {
			if s.Outcome == tally.InstallFailed {
				span := plain(withDay(s.First, publishedOf(ch, at, s.First)))
				if s.Last != s.First {
					span = plain(s.First + "–" + s.Last)
				}
				l := span + ": install-failed"
				if r := firstLine(s.Reason); r != "" {
					l += ": " + plain(truncate(r, maxFreeText))
				}
				if !failed[l] {
					failed[l] = true
					out = append(out, historyChange{at: at[s.First], line: l})
				}
				continue
			}
			if before != "" && before != s.Outcome {
				l := fmt.Sprintf("%s: %s %s → %s", plain(withDay(s.First, publishedOf(ch, at, s.First))), label, plain(before), plain(s.Outcome))
				if ex := s.Example; ex != nil {
					if ev := oneLine(ex.Evidence, historyEvidenceWidth); ev != "" {
						l += " (" + plain(ev) + ")"
					} else if ex.Sweep != "" {
						l += fmt.Sprintf(" (run %d in %s)", ex.Run, plain(ex.Sweep))
					}
				}
				out = append(out, historyChange{at: at[s.First], line: l})
			}
			before = s.Outcome
		}
	}
	slices.SortStableFunc(out, func(a, b historyChange) int { return a.at - b.at })
	return out
}

// releasesOf says which releases of a sweep's client (name@version) the history swept:
// "1.10.0–1.12.1: 14 versions, 6 swept", "" when it has not the client.
func releasesOf(h *tally.History, client string) string {
	name, _, _ := strings.Cut(client, "@")
	for i := range h.Clients {
		if h.Clients[i].Client == name {
			return clientRange(&h.Clients[i])
		}
	}
	return ""
}

// clientRange says which of a client's releases the history swept, in which order: "1.10.0–1.12.1
// in the registry's order: 14 versions, 6 swept (2 could not be installed or started)".
func clientRange(ch *tally.ClientHistory) string {
	n := len(ch.Versions)
	if n == 0 {
		return "no versions"
	}
	swept, failed := 0, 0
	for _, r := range ch.Versions {
		if r.Swept {
			swept++
		}
		if r.InstallFailed != "" {
			failed++
		}
	}
	order := "the registry's order"
	if ch.Order == tally.OrderDate {
		order = "order of publish date"
	}
	span := ch.Versions[0].Version
	if n > 1 {
		span += "–" + ch.Versions[n-1].Version
	}
	s := fmt.Sprintf("%s in %s: %d %s, %d swept", span, order, n, Plural(n, "version", "versions"), swept)
	if failed > 0 {
		s += fmt.Sprintf(" (%d could not be installed or started)", failed)
	}
	return s
}

// publishedOf is when a client's version was published, nil when the registry did not say.
func publishedOf(ch *tally.ClientHistory, at map[string]int, v string) *time.Time {
	if i, ok := at[v]; ok {
		return ch.Versions[i].Published
	}
	return nil
}

// dateSpan is the earliest and the latest publish date of releases, as the pages show them:
// "2025-05-03 – 2025-10-11", one date when they agree, "" when the registry gave none. Never
// backwards, whatever order the releases are in.
func dateSpan(rs []tally.Release) string {
	var first, last *time.Time
	for _, r := range rs {
		if p := r.Published; p != nil && !p.IsZero() {
			if first == nil || p.Before(*first) {
				first = p
			}
			if last == nil || p.After(*last) {
				last = p
			}
		}
	}
	if a, b := day(first), day(last); a != b {
		return a + " – " + b
	}
	return day(first)
}
