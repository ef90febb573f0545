package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/toolscore/toolscore/runner/report"
	"github.com/toolscore/toolscore/runner/tally"
)

// mergeCmd adds up several outputs of `toolscore run` for one scenario (shards of a matrix run
// on different machines, or more runs of the same cells) into one output directory.
func mergeCmd(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: toolscore merge [--out DIR] DIR...\n\nMerges the outputs of toolscore run --out DIR (each holding results.json and runs.jsonl) of one\nscenario: counts of the same cell are added up, runs.jsonl files are concatenated, and results.json\nand summary.md are written for the whole. Exit 0 when every expect entry held in every input,\n1 when one did not (see --fail-on), 2 on a usage error or outputs of different scenarios.\n\nflags:")
		fs.PrintDefaults()
	}
	out := fs.String("out", "", "output directory (default ./toolscore-out/merged-<timestamp>)")
	failOnFlag := fs.String("fail-on", "expect", "what exits 1: expect (an unmet expectation), unchecked (that, or one no run checked), or never")
	dirs, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "toolscore merge: "+format+"\n", a...)
		return 2
	}
	failOn, err := runFailOn(*failOnFlag)
	if err != nil {
		return fail("%v", err)
	}
	if len(dirs) == 0 {
		fs.Usage()
		return fail("name the output directories of toolscore run to merge")
	}
	if *out == "" {
		*out = filepath.Join("toolscore-out", "merged-"+time.Now().Format("20060102-150405"))
	}
	outAbs, err := filepath.Abs(*out)
	if err != nil {
		return fail("--out %s: %v", *out, err)
	}

	var inputs []*tally.Results
	given := map[string]string{} // absolute path -> as given
	for i, dir := range dirs {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return fail("%s: %v", dir, err)
		}
		if first, ok := given[abs]; ok {
			return fail("%s is given twice (as %s and %s): its runs would be counted twice", abs, first, dir)
		}
		given[abs] = dir
		if abs == outAbs {
			return fail("--out %s is one of the inputs; merge into another directory", *out)
		}
		res, err := readResults(filepath.Join(dir, "results.json"))
		if err != nil {
			return fail("%v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "runs.jsonl")); err != nil {
			return fail("%s has results.json but no runs.jsonl: %v", dir, err)
		}
		if i > 0 && res.Scenario != inputs[0].Scenario {
			return fail("%s and %s hold different scenarios (%q and %q); merge outputs of one scenario only",
				dirs[0], dir, inputs[0].Scenario, res.Scenario)
		}
		rebaseTees(res, abs, outAbs)
		inputs = append(inputs, res)
	}
	merged, err := tally.Merge(inputs...)
	if err != nil {
		return fail("%v", err)
	}

	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "toolscore merge:", err)
		return 1
	}
	if err := concatRuns(filepath.Join(*out, "runs.jsonl"), dirs); err != nil {
		fmt.Fprintln(os.Stderr, "toolscore merge:", err)
		return 1
	}
	if err := writeOutputs(*out, merged); err != nil {
		fmt.Fprintln(os.Stderr, "toolscore merge:", err)
		return 1
	}
	if err := report.Text(os.Stdout, merged); err != nil {
		fmt.Fprintln(os.Stderr, "toolscore merge:", err)
	}
	fmt.Fprintf(os.Stderr, "merged %d outputs into %s\n", len(dirs), filepath.Join(*out, "results.json"))
	if expectationsFail(merged, failOn, os.Stderr) {
		return 1
	}
	return 0
}

// rebaseTees makes each example's transcript path, relative to the input directory it came
// from, relative to the merged output instead, so it still leads to the file.
func rebaseTees(res *tally.Results, from, to string) {
	for _, c := range res.Cells {
		if c == nil {
			continue
		}
		for o, ex := range c.Examples {
			if ex.Tee == "" || filepath.IsAbs(ex.Tee) {
				continue
			}
			if rel, err := filepath.Rel(to, filepath.Join(from, ex.Tee)); err == nil {
				ex.Tee = filepath.ToSlash(rel)
				c.Examples[o] = ex
			}
		}
	}
}

// concatRuns writes every input's runs.jsonl into path, one after the other, each line as it
// was; a file whose last line lacks its newline gets one, so lines never run together.
func concatRuns(path string, dirs []string) error {
	dst, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating the merged runs.jsonl: %w", err)
	}
	for _, dir := range dirs {
		if err := appendRuns(dst, filepath.Join(dir, "runs.jsonl")); err != nil {
			dst.Close()
			return err
		}
	}
	return dst.Close()
}

func appendRuns(dst io.Writer, path string) error {
	src, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("reading runs: %w", err)
	}
	defer src.Close()
	n, err := io.Copy(dst, src)
	if err != nil {
		return fmt.Errorf("copying %s: %w", path, err)
	}
	if n == 0 {
		return nil
	}
	last := make([]byte, 1)
	if _, err := src.ReadAt(last, n-1); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if last[0] != '\n' {
		if _, err := dst.Write([]byte("\n")); err != nil {
			return fmt.Errorf("writing the merged runs.jsonl: %w", err)
		}
	}
	return nil
}
