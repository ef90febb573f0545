package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/tally"
)

// reportFormats maps --format to its renderer; md is what summary.md holds.
var reportFormats = map[string]func(io.Writer, *tally.Results) error{
	"text":        report.Text,
	"md":          report.Markdown,
	"markdown":    report.Markdown,
	"json":        report.JSON,
	"html":        report.HTML,
	"junit":       report.JUnit,
	"ctrf":        report.CTRF,
	"compat":      report.Compat,
	"compat-html": report.CompatHTML,
}

// reportCmd renders a results.json again, e.g. a CI run's results as the terminal table.
func reportCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: toolscore report RESULTS.json [--format text|md|json|html|junit|ctrf|compat|compat-html]\n\nRenders the results.json that toolscore run or merge wrote (or the one in a directory; for a sweep\nkilled before it wrote one, the counts of its runs.jsonl) to stdout;\nhtml shows each cell's evidence from the runs.jsonl beside it.\n\nflags:")
		fs.PrintDefaults()
	}
	format := fs.String("format", "text", "text (the terminal table), md (summary.md), json (results.json), html (report.html), junit (junit.xml), ctrf (ctrf.json), compat (the compatibility page, Markdown: per fault what each client did) or compat-html (the same page as HTML, each outcome's evidence a click away)")
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(positional) != 1 {
		err := fmt.Errorf("want one results.json, got %d arguments", len(positional))
		fmt.Fprintln(os.Stderr, "toolscore report:", err)
		fs.Usage()
		return exitcode.UsageError(err)
	}
	render, ok := reportFormats[*format]
	if !ok {
		err := fmt.Errorf("unknown --format %q (want text, md, json, html, junit, ctrf, compat or compat-html)", *format)
		fmt.Fprintln(os.Stderr, "toolscore report:", err)
		return exitcode.UsageError(err)
	}
	path := positional[0]
	res, err := outdir.ReadResults(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolscore report:", err)
		return exitcode.UsageError(err)
	}
	if *format == "html" {
		// The page shows the example runs' records, which runs.jsonl beside results.json keeps.
		ev, err := report.ReadEvidence(outdir.Dir(path), res)
		if err != nil {
			fmt.Fprintln(os.Stderr, "toolscore report:", err)
			return exitcode.UsageError(err)
		}
		render = func(w io.Writer, r *tally.Results) error { return report.HTMLPage(w, r, ev, nil) }
	}
	var b bytes.Buffer
	if err := render(&b, res); err != nil {
		fmt.Fprintf(os.Stderr, "toolscore report: rendering %s: %v\n", path, err)
		return exitcode.UsageError(err)
	}
	if _, err := os.Stdout.Write(b.Bytes()); err != nil {
		fmt.Fprintln(os.Stderr, "toolscore report:", err)
		return exitcode.UsageError(err)
	}
	return nil
}
