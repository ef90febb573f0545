package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/history"
	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/tally"
)

// reportCmd renders a results.json again, e.g. a CI run's results as the terminal table.
func reportCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: toolscore report RESULTS.json [--format "+strings.Join(report.FormatNames(false), "|")+"]\n"+
			"       toolscore report HISTORY.json [--format "+strings.Join(report.FormatNames(true), "|")+"]\n\n"+
			"Renders the results.json that toolscore run or merge wrote (or the one in a directory; for a sweep\n"+
			"killed before it wrote one, the counts of its runs.jsonl) to stdout;\n"+
			report.EvidenceFormats()+" shows each cell's evidence from the runs.jsonl beside it.\n\n"+
			"A history.json that toolscore history wrote (or a directory holding one and no results.json)\n"+
			"renders as "+report.HistoryFormatHelp()+": the\n"+
			"compatibility page of every client's newest release swept, each outcome saying since which\n"+
			"release it holds; the HTML page adds each client's timeline.\n\nflags:")
		fs.PrintDefaults()
	}
	format := fs.String("format", report.DefaultFormat, report.FormatHelp())
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
	if hist, ok := historyPath(positional[0]); ok {
		if err := reportHistory(hist, *format); err != nil {
			fmt.Fprintln(os.Stderr, "toolscore report:", err)
			return exitcode.UsageError(err)
		}
		return nil
	}
	f, ok := report.FormatNamed(*format)
	if !ok || f.Results == nil {
		err := fmt.Errorf("unknown --format %q (want %s)", *format, report.OrList(report.FormatNames(false)))
		fmt.Fprintln(os.Stderr, "toolscore report:", err)
		return exitcode.UsageError(err)
	}
	path := positional[0]
	res, err := outdir.ReadResults(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolscore report:", err)
		return exitcode.UsageError(err)
	}
	var in report.Inputs
	if f.Evidence {
		// The page shows the example runs' records, which runs.jsonl beside results.json keeps.
		if in.Evidence, err = report.ReadEvidence(outdir.Dir(path), res); err != nil {
			fmt.Fprintln(os.Stderr, "toolscore report:", err)
			return exitcode.UsageError(err)
		}
	}
	var b bytes.Buffer
	if err := f.Results(&b, res, in); err != nil {
		fmt.Fprintf(os.Stderr, "toolscore report: rendering %s: %v\n", path, err)
		return exitcode.UsageError(err)
	}
	if _, err := os.Stdout.Write(b.Bytes()); err != nil {
		fmt.Fprintln(os.Stderr, "toolscore report:", err)
		return exitcode.UsageError(err)
	}
	return nil
}

// historyPath is the history.json path names: path itself when it is a file of that name, or
// the one in the directory path when the directory has no results.json (a sweep's directory
// stays a sweep's).
func historyPath(p string) (string, bool) {
	st, err := os.Stat(p)
	if err != nil {
		return "", false
	}
	if !st.IsDir() {
		return p, filepath.Base(p) == tally.HistoryFile
	}
	if _, err := os.Stat(filepath.Join(p, record.ResultsFile)); err == nil {
		return "", false
	}
	h := filepath.Join(p, tally.HistoryFile)
	if _, err := os.Stat(h); err != nil {
		return "", false
	}
	return h, true
}

// reportHistory writes the history.json at p to stdout in format, one of the report formats
// for a history (report.FormatNames(true)).
func reportHistory(p, format string) error {
	f, ok := report.FormatNamed(format)
	if !ok || f.History == nil {
		return fmt.Errorf("--format %s is not one for a history: want %s", format, report.OrList(report.FormatNames(true)))
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("reading the history: %w", err)
	}
	h := &tally.History{}
	if err := json.Unmarshal(data, h); err != nil {
		return fmt.Errorf("%s is not a history that toolscore history wrote: %w", p, err)
	}
	newest := func() (*tally.Results, error) { return history.Newest(filepath.Dir(p), h) }
	var b bytes.Buffer
	if err := f.History(&b, h, report.Inputs{Raw: data, Newest: newest}); err != nil {
		return fmt.Errorf("rendering %s: %w", p, err)
	}
	_, err = os.Stdout.Write(b.Bytes())
	return err
}
