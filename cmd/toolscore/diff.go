package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/tally"
)

// diffCmd lists the cells whose outcome counts changed between two sweeps, or between a
// committed baseline and a sweep.
func diffCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: toolscore diff BASE NEW [--format "+strings.Join(report.DiffFormatNames, "|")+"]\n\nLists the cells whose outcome counts differ between BASE and NEW. Each is a results.json, a\ndirectory holding one (the output of toolscore run or merge), or a baseline file written by\ntoolscore baseline. Exit 0 when no cell changed, 1 when some did, 2 on a usage or file error.\n\nflags:")
		fs.PrintDefaults()
	}
	format := fs.String("format", report.DefaultFormat, report.DiffFormatHelp)
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
	render, ok := report.DiffFormats[*format]
	if !ok {
		return fail("unknown --format %q (want %s)", *format, report.OrList(report.DiffFormatNames))
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
	d := report.Diff{Base: basePath, New: newPath, Cells: len(cur.Cells), Changes: tally.Diff(base, cur)}
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
