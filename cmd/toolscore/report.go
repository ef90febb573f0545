package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/record"
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
		fmt.Fprintln(fs.Output(), "usage: toolscore report RESULTS.json [--format text|md|json|html|junit|ctrf|compat|compat-html]\n"+
			"       toolscore report HISTORY.json [--format text|json|compat|compat-html]\n\n"+
			"Renders the results.json that toolscore run or merge wrote (or the one in a directory; for a sweep\n"+
			"killed before it wrote one, the counts of its runs.jsonl) to stdout;\n"+
			"html shows each cell's evidence from the runs.jsonl beside it.\n\n"+
			"A history.json that toolscore history wrote (or a directory holding one and no results.json)\n"+
			"renders as text (what changed, release by release), json, compat or compat-html: the\n"+
			"compatibility page of every client's newest release swept, each outcome saying since which\n"+
			"release it holds; the HTML page adds each client's timeline.\n\nflags:")
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
	if hist, ok := historyPath(positional[0]); ok {
		if err := reportHistory(hist, *format); err != nil {
			fmt.Fprintln(os.Stderr, "toolscore report:", err)
			return exitcode.UsageError(err)
		}
		return nil
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

// reportHistory writes the history.json at p to stdout in format: text, json (the file
// re-indented), compat or compat-html (the page of every client's newest release swept).
func reportHistory(p, format string) error {
	data, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("reading the history: %w", err)
	}
	h := &tally.History{}
	if err := json.Unmarshal(data, h); err != nil {
		return fmt.Errorf("%s is not a history that toolscore history wrote: %w", p, err)
	}
	var b bytes.Buffer
	switch format {
	case "text":
		err = report.HistoryText(&b, h)
	case "json":
		if err = json.Indent(&b, data, "", "  "); err == nil {
			b.WriteString("\n")
		}
	case "compat", "compat-html":
		var res *tally.Results
		if res, err = newestReleases(filepath.Dir(p), h); err != nil {
			return err
		}
		if format == "compat" {
			err = report.CompatSince(&b, res, h)
		} else {
			err = report.CompatHTMLSince(&b, res, h)
		}
	default:
		return fmt.Errorf("--format %s is not one for a history: want text, json, compat or compat-html", format)
	}
	if err != nil {
		return fmt.Errorf("rendering %s: %w", p, err)
	}
	_, err = os.Stdout.Write(b.Bytes())
	return err
}

// newestReleases is one sweep of every client of the history at its newest release swept:
// each client's cells from that release's sweep (its directory relative to dir), their
// transcripts' paths made relative to dir; a client no release of which ran is unavailable,
// with why its newest would not install.
func newestReleases(dir string, h *tally.History) (*tally.Results, error) {
	var sweeps []*tally.Results
	var unavailable []tally.Unavailable
	for _, ch := range h.Clients {
		var newest *tally.Release
		why := ""
		for i := len(ch.Versions) - 1; i >= 0 && newest == nil; i-- {
			r := &ch.Versions[i]
			switch {
			case r.InstallFailed != "" && why == "":
				why = r.Version + ": " + firstLine(r.InstallFailed)
			case r.Swept && r.Sweep != "" && r.InstallFailed == "":
				newest = r
			}
		}
		if newest == nil {
			reason := "no release in the history's range ran"
			if why != "" {
				reason += "; the newest that would not install, " + why
			}
			unavailable = append(unavailable, tally.Unavailable{Client: ch.Client, Reason: reason})
			continue
		}
		res, err := outdir.ReadResults(filepath.Join(dir, filepath.FromSlash(newest.Sweep)))
		if err != nil {
			return nil, fmt.Errorf("reading %s's newest release swept, %s: %w", ch.Client, newest.Version, err)
		}
		// A sweep may hold other clients: this client's cells alone, so none is counted twice.
		mine := *res
		mine.Scenario, mine.Cells, mine.Unavailable, mine.Expectations = h.Scenario, nil, nil, nil
		for _, c := range res.Cells {
			if c == nil || clientName(c.Client) != ch.Client {
				continue
			}
			cc := *c
			cc.Examples = map[string]tally.Example{}
			for o, ex := range c.Examples {
				if ex.Tee != "" && !filepath.IsAbs(ex.Tee) {
					ex.Tee = path.Join(filepath.ToSlash(newest.Sweep), ex.Tee)
				}
				cc.Examples[o] = ex
			}
			mine.Cells = append(mine.Cells, &cc)
		}
		for _, u := range res.Unavailable {
			if clientName(u.Client) == ch.Client {
				mine.Unavailable = append(mine.Unavailable, u)
			}
		}
		sweeps = append(sweeps, &mine)
	}
	if len(sweeps) == 0 {
		return &tally.Results{Scenario: h.Scenario, Toolscore: h.Toolscore, Backend: h.Backend, Started: h.Started, Finished: h.Finished, Unavailable: unavailable}, nil
	}
	res, err := tally.Merge(sweeps...)
	if err != nil {
		return nil, fmt.Errorf("putting the clients' newest releases on one page: %w", err)
	}
	res.Unavailable = append(res.Unavailable, unavailable...)
	return res, nil
}

// clientName is a cell's client without its version or model.
func clientName(id string) string {
	name, _, _ := strings.Cut(id, "@")
	name, _, _ = strings.Cut(name, ":")
	return name
}

// firstLine is the first non-blank line of s.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
