package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/toolscore/toolscore/runner/exitcode"
	"github.com/toolscore/toolscore/runner/outdir"
	"github.com/toolscore/toolscore/runner/report"
	"github.com/toolscore/toolscore/runner/scenario"
	"github.com/toolscore/toolscore/runner/tally"
)

// diffCmd lists the cells whose outcome counts changed between two sweeps, or between a
// committed baseline and a sweep.
func diffCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: toolscore diff BASE NEW [--format text|md|json]\n\nLists the cells whose outcome counts differ between BASE and NEW. Each is a results.json, a\ndirectory holding one (the output of toolscore run or merge), or a baseline file written by\ntoolscore baseline. Exit 0 when no cell changed, 1 when some did, 2 on a usage or file error.\n\nflags:")
		fs.PrintDefaults()
	}
	format := fs.String("format", "text", "text (a plain table), md (a Markdown table) or json")
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	fail := func(format string, a ...any) error {
		err := fmt.Errorf(format, a...)
		fmt.Fprintln(os.Stderr, "toolscore diff:", err)
		return exitcode.UsageError(err)
	}
	if len(positional) != 2 {
		fs.Usage()
		return fail("want BASE and NEW, got %d arguments", len(positional))
	}
	render, ok := diffFormats[*format]
	if !ok {
		return fail("unknown --format %q (want text, md or json)", *format)
	}
	basePath, newPath := positional[0], positional[1]
	base, err := outdir.ReadCounts(basePath)
	if err != nil {
		return fail("%v", err)
	}
	cur, err := outdir.ReadCounts(newPath)
	if err != nil {
		return fail("%v", err)
	}
	if base.Scenario != cur.Scenario {
		return fail("%s and %s hold different scenarios (%q and %q); compare sweeps of one scenario", basePath, newPath, base.Scenario, cur.Scenario)
	}
	d := diffReport{Base: basePath, New: newPath, Cells: len(cur.Cells), Changes: tally.Diff(base, cur)}
	var b bytes.Buffer
	if err := render(&b, d); err != nil {
		fmt.Fprintln(os.Stderr, "toolscore diff:", err)
		return exitcode.UsageError(err)
	}
	if _, err := os.Stdout.Write(b.Bytes()); err != nil {
		fmt.Fprintln(os.Stderr, "toolscore diff:", err)
		return exitcode.UsageError(err)
	}
	if len(d.Changes) > 0 {
		return exitcode.UnmetError(fmt.Errorf("%d %s", len(d.Changes), report.Plural(len(d.Changes), "cell changed", "cells changed")))
	}
	return nil
}

// diffReport is what toolscore diff found; its JSON is what --format json prints.
type diffReport struct {
	Base    string         `json:"base"`
	New     string         `json:"new"`
	Cells   int            `json:"cells"` // cells in NEW
	Changes []tally.Change `json:"changes"`
}

var diffFormats = map[string]func(io.Writer, diffReport) error{
	"text":     diffText,
	"md":       diffMarkdown,
	"markdown": diffMarkdown,
	"json":     diffJSON,
}

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

func diffText(w io.Writer, d diffReport) error {
	if len(d.Changes) == 0 {
		_, err := fmt.Fprintf(w, "no cell changed: the %d cells of %s have the counts of %s\n", d.Cells, report.Plain(d.New), report.Plain(d.Base))
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s changed from %s to %s:\n\n", len(d.Changes), cellsWord(len(d.Changes)), report.Plain(d.Base), report.Plain(d.New))
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
			fmt.Fprintf(tw, "%s\t", report.Plain(c.Tool))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t", report.Plain(c.Client), report.Plain(c.Fault), report.Plain(c.Schema))
		if protocols {
			fmt.Fprintf(tw, "%s\t", report.Plain(c.Protocol))
		}
		if multi {
			fmt.Fprintf(tw, "%s\t", report.Plain(c.Transport))
		}
		fmt.Fprintf(tw, "%s\t%s\n", report.Plain(before), report.Plain(after))
	}
	tw.Flush()
	_, err := io.WriteString(w, b.String())
	return err
}

func diffMarkdown(w io.Writer, d diffReport) error {
	esc := report.EscapeMarkdown
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

func diffJSON(w io.Writer, d diffReport) error {
	if d.Changes == nil {
		d.Changes = []tally.Change{} // a reader iterates an empty list, not null
	}
	return report.WriteJSON(w, d)
}

func cellsWord(n int) string {
	if n == 1 {
		return "cell"
	}
	return "cells"
}
