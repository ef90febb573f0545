package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/tally"
)

// Diff is what toolscore diff found: the cells whose counts changed between two sweeps, or a
// baseline and a sweep. Its JSON is what --format json prints.
type Diff struct {
	Base    string         `json:"base"`
	New     string         `json:"new"`
	Cells   int            `json:"cells"` // cells in NEW
	Changes []tally.Change `json:"changes"`
}

// DiffFormats are the renderings of a Diff by the name toolscore diff --format takes.
var DiffFormats = map[string]func(io.Writer, Diff) error{
	"text":     DiffText,
	"md":       DiffMarkdown,
	"markdown": DiffMarkdown,
	"json":     DiffJSON,
}

// DiffFormatNames are the names of DiffFormats as toolscore diff lists them, in order
// (markdown, md's other name, is accepted and never listed), and DiffFormatHelp its --format
// flag's help.
var DiffFormatNames = []string{"text", "md", "json"}

// DiffFormatHelp says what each of DiffFormatNames is, for toolscore diff's --format flag.
const DiffFormatHelp = "text (a plain table), md (a Markdown table) or json"

// beforeAfter words a change's two sides; a new or gone cell has only one.
func beforeAfter(c tally.Change) (before, after string) {
	before, after = c.Before, c.After
	switch c.Kind {
	case "new":
		before = "not in the baseline"
	case "gone":
		after = "not run"
	}
	return before, after
}

// spanTransports says whether the changes span several transports, the only time the column
// says anything.
// anyProtocol says whether a change lies under a protocol other than as-is, so the protocol
// column is shown.
func anyProtocol(changes []tally.Change) bool {
	for _, c := range changes {
		if c.Protocol != "" && c.Protocol != string(scenario.ProtocolAsIs) {
			return true
		}
	}
	return false
}

func spanTransports(changes []tally.Change) bool {
	for _, c := range changes {
		if c.Transport != changes[0].Transport {
			return true
		}
	}
	return false
}

// DiffText renders d as a plain table, for a terminal.
func DiffText(w io.Writer, d Diff) error {
	if len(d.Changes) == 0 {
		_, err := fmt.Fprintf(w, "no cell changed: the %d cells of %s have the counts of %s\n", d.Cells, Plain(d.New), Plain(d.Base))
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s changed from %s to %s:\n\n", len(d.Changes), cellsWord(len(d.Changes)), Plain(d.Base), Plain(d.New))
	multi, protocols := spanTransports(d.Changes), anyProtocol(d.Changes)
	tools := slices.ContainsFunc(d.Changes, func(c tally.Change) bool { return c.Tool != "" })
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	if tools {
		fmt.Fprint(tw, "tool\t")
	}
	fmt.Fprint(tw, "client\tfault\tschema\t")
	if protocols {
		fmt.Fprint(tw, "protocol\t")
	}
	if multi {
		fmt.Fprint(tw, "transport\t")
	}
	fmt.Fprint(tw, "before\tnow\n")
	for _, c := range d.Changes {
		before, after := beforeAfter(c)
		if tools {
			fmt.Fprintf(tw, "%s\t", Plain(c.Tool))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t", Plain(c.Client), Plain(c.Fault), Plain(c.Schema))
		if protocols {
			fmt.Fprintf(tw, "%s\t", Plain(c.Protocol))
		}
		if multi {
			fmt.Fprintf(tw, "%s\t", Plain(c.Transport))
		}
		fmt.Fprintf(tw, "%s\t%s\n", Plain(before), Plain(after))
	}
	tw.Flush()
	_, err := io.WriteString(w, b.String())
	return err
}

// DiffMarkdown renders d as a Markdown table.
func DiffMarkdown(w io.Writer, d Diff) error {
	esc := EscapeMarkdown
	if len(d.Changes) == 0 {
		_, err := fmt.Fprintf(w, "No cell changed: the %d cells of %s have the counts of %s.\n", d.Cells, esc(d.New), esc(d.Base))
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s changed from %s to %s:\n\n", len(d.Changes), cellsWord(len(d.Changes)), esc(d.Base), esc(d.New))
	multi, protocols := spanTransports(d.Changes), anyProtocol(d.Changes)
	b.WriteString("| client | fault | schema |")
	if protocols {
		b.WriteString(" protocol |")
	}
	if multi {
		b.WriteString(" transport |")
	}
	b.WriteString(" before | now |\n|---|---|---|")
	if protocols {
		b.WriteString("---|")
	}
	if multi {
		b.WriteString("---|")
	}
	b.WriteString("---|---|\n")
	for _, c := range d.Changes {
		before, after := beforeAfter(c)
		fmt.Fprintf(&b, "| %s | %s | %s |", esc(c.Client), esc(c.Fault), esc(c.Schema))
		if protocols {
			fmt.Fprintf(&b, " %s |", esc(c.Protocol))
		}
		if multi {
			fmt.Fprintf(&b, " %s |", esc(c.Transport))
		}
		fmt.Fprintf(&b, " %s | **%s** |\n", esc(before), esc(after))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// DiffJSON renders d as JSON, an empty list of changes as [].
func DiffJSON(w io.Writer, d Diff) error {
	if d.Changes == nil {
		d.Changes = []tally.Change{} // a reader iterates an empty list, not null
	}
	return WriteJSON(w, d)
}

func cellsWord(n int) string {
	if n == 1 {
		return "cell"
	}
	return "cells"
}
