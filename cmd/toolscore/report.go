package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/toolscore/toolscore/runner/report"
	"github.com/toolscore/toolscore/runner/tally"
)

// reportFormats maps --format to its renderer; md is what summary.md holds.
var reportFormats = map[string]func(io.Writer, *tally.Results) error{
	"text":     report.Text,
	"md":       report.Markdown,
	"markdown": report.Markdown,
	"json":     report.JSON,
}

// reportCmd renders a results.json again, e.g. a CI run's results as the terminal table.
func reportCmd(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: toolscore report RESULTS.json [--format text|md|json]\n\nRenders the results.json that toolscore run or merge wrote (or the one in a directory) to stdout.\n\nflags:")
		fs.PrintDefaults()
	}
	format := fs.String("format", "text", "text (the terminal table), md (summary.md) or json (results.json)")
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(positional) != 1 {
		fmt.Fprintf(os.Stderr, "toolscore report: want one results.json, got %d arguments\n", len(positional))
		fs.Usage()
		return 2
	}
	render, ok := reportFormats[*format]
	if !ok {
		fmt.Fprintf(os.Stderr, "toolscore report: unknown --format %q (want text, md or json)\n", *format)
		return 2
	}
	path := positional[0]
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "results.json")
	}
	res, err := readResults(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolscore report:", err)
		return 2
	}
	var b bytes.Buffer
	if err := render(&b, res); err != nil {
		fmt.Fprintf(os.Stderr, "toolscore report: rendering %s: %v\n", path, err)
		return 1
	}
	if _, err := os.Stdout.Write(b.Bytes()); err != nil {
		fmt.Fprintln(os.Stderr, "toolscore report:", err)
		return 1
	}
	return 0
}

// readResults reads a results.json; every error names the file, and a JSON syntax error says
// where in it.
func readResults(path string) (*tally.Results, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading results: %w", err)
	}
	var res tally.Results
	if err := json.Unmarshal(data, &res); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			line, col := lineCol(data, syntax.Offset)
			return nil, fmt.Errorf("%s:%d:%d: not valid JSON: %w", path, line, col, err)
		}
		return nil, fmt.Errorf("%s is not a toolscore results.json: %w", path, err)
	}
	if res.Scenario == "" {
		return nil, fmt.Errorf("%s is not a toolscore results.json: it names no scenario", path)
	}
	return &res, nil
}

// lineCol turns a json.SyntaxError's offset (the bytes read, the bad one included) into the
// 1-based line and column of the bad byte.
func lineCol(data []byte, offset int64) (line, col int) {
	offset = min(max(offset-1, 0), int64(len(data)))
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = len(before) - bytes.LastIndexByte(before, '\n')
	return line, col
}
