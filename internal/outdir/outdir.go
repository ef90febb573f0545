package outdir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/tally"
)

// Root is where output directories go when the command names none.
const Root = "toolscore-out"

// Results is the path of results.json in the output directory dir.
func Results(dir string) string { return filepath.Join(dir, record.ResultsFile) }

// Stamped is a new output directory under Root, named prefix and the time, e.g.
// toolscore-out/merged-20260331-120000.
func Stamped(prefix string) string {
	return filepath.Join(Root, prefix+time.Now().Format("20060102-150405"))
}

// Write writes into dir, beside runs.jsonl, the file of each report format that has one
// (report.Formats): results.json, summary.md and those of WriteReports.
func Write(dir string, res *tally.Results) error {
	var errs []error
	for _, f := range report.Formats() {
		if f.File != "" && !f.Baseline {
			errs = append(errs, writeFormat(dir, f, res, report.Inputs{}))
		}
	}
	return errors.Join(append(errs, WriteReports(dir, res, nil))...)
}

// WriteReports writes the files of the report formats that can name a baseline's changes,
// naming those of cmp (nil: no baseline): report.html (with the evidence of runs.jsonl in
// dir), junit.xml and ctrf.json.
func WriteReports(dir string, res *tally.Results, cmp *report.Comparison) error {
	ev, err := report.ReadEvidence(dir, res)
	errs := []error{err}
	for _, f := range report.Formats() {
		if f.File != "" && f.Baseline {
			errs = append(errs, writeFormat(dir, f, res, report.Inputs{Evidence: ev, Baseline: cmp}))
		}
	}
	return errors.Join(errs...)
}

// Files are the files of an output directory made from a sweep's counts: results.json and
// the other report formats' files.
func Files() []string {
	var names []string
	for _, f := range report.Formats() {
		if f.File != "" {
			names = append(names, f.File)
		}
	}
	return names
}

// write writes the file name in dir as render renders res (see writeAtomic).
func write(dir, name string, res *tally.Results, render func(io.Writer, *tally.Results) error) error {
	return writeAtomic(dir, name, func(w io.Writer) error { return render(w, res) })
}

// writeFormat writes the file of format f in dir, rendered from res and in.
func writeFormat(dir string, f *report.Format, res *tally.Results, in report.Inputs) error {
	return write(dir, f.File, res, func(w io.Writer, r *tally.Results) error { return f.Results(w, r, in) })
}

// tempPrefix starts the name of a file being written into an output directory: readers open
// files by their own names, so a temp file a killed toolscore left is never read.
const tempPrefix = ".tmp-"

// writeAtomic writes the file name in dir whole or not at all: render writes a temp file in
// dir, which is synced and renamed over name, so a kill or a failed render at any point leaves
// the file before (or none) beside, at worst, a stray temp file.
func writeAtomic(dir, name string, render func(io.Writer) error) error {
	f, err := os.CreateTemp(dir, tempPrefix+name+"-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	tmp := f.Name()
	err = render(f)
	if err == nil {
		err = f.Chmod(0o644) // CreateTemp makes it 0600; the output is for everyone to read
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
		var le *os.LinkError
		if errors.As(err, &le) {
			// The temporary name says nothing to the user: what is in the file's way does.
			if info, serr := os.Lstat(filepath.Join(dir, name)); serr == nil && info.IsDir() {
				err = fmt.Errorf("putting the whole file in place: %s is a directory (%w)", name, le.Err)
			} else {
				err = fmt.Errorf("putting the whole file in place: %w", le.Err)
			}
		}
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", name, err)
	}
	// The rename is durable once the directory is synced; a directory that cannot be synced
	// still holds the whole file or the one before.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// ReadResults reads a results.json, or the one in the output directory path; every error
// names the file, and a JSON syntax error says where in it.
//
// A sweep killed before it wrote results.json has its counts made again from its sweep.json
// and runs.jsonl (see Rebuild).
func ReadResults(path string) (*tally.Results, error) {
	path = resultsPath(path)
	data, err := os.ReadFile(path)
	if err != nil {
		return rebuilt(path, err)
	}
	return parseResults(path, data)
}

// rebuilt is what Rebuild makes of the directory of the results.json at path, which could not
// be read (err): when it is missing beside a sweep.json, the counts of the runs that finished.
func rebuilt(path string, err error) (*tally.Results, error) {
	dir := filepath.Dir(path)
	if filepath.Base(path) == record.ResultsFile && errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(filepath.Join(dir, record.SweepFile)); serr == nil {
			return Rebuild(dir)
		}
		if _, rerr := os.Stat(filepath.Join(dir, record.RunsFile)); rerr == nil {
			return nil, fmt.Errorf("%s has a %s but neither %s nor %s (a sweep stopped by a toolscore that did not write it): its runs cannot be counted: %w",
				dir, record.RunsFile, record.ResultsFile, record.SweepFile, err)
		}
	}
	return nil, fmt.Errorf("reading results: %w", err)
}

// parseResults reads the results.json at path, which holds data.
func parseResults(path string, data []byte) (*tally.Results, error) {
	return tally.ReadResults(bytes.NewReader(data), path)
}

// ReadCounts reads the counts of path: a results.json, an output directory holding one, or a
// baseline file that toolscore baseline wrote. Every error names the file; a missing one is
// fs.ErrNotExist.
func ReadCounts(path string) (*tally.Results, error) {
	path = resultsPath(path)
	data, err := os.ReadFile(path)
	if err != nil {
		return rebuilt(path, err)
	}
	var peek struct {
		Format string `json:"format"`
	}
	// A file that does not even parse is left to parseResults, which says where it breaks.
	if json.Unmarshal(data, &peek) != nil || peek.Format == "" {
		return parseResults(path, data)
	}
	var b tally.Baseline
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("%s is not a toolscore baseline: %w", path, err)
	}
	if err := b.Check(); err != nil {
		return nil, fmt.Errorf("%s is not a usable toolscore baseline: %w", path, err)
	}
	return b.Results(), nil
}

// resultsPath is path, or the results.json in it when path is a directory (also when the
// directory has none yet).
func resultsPath(path string) string {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return Results(path)
	}
	return path
}

// Newest is the results.json that the latest sweep or merge wrote under Root.
func Newest() (string, error) {
	matches, err := filepath.Glob(Results(filepath.Join(Root, "*")))
	if err != nil {
		return "", err
	}
	var newest string
	var when time.Time
	for _, m := range matches {
		st, err := os.Stat(m)
		if err != nil {
			continue
		}
		if newest == "" || st.ModTime().After(when) {
			newest, when = m, st.ModTime()
		}
	}
	if newest == "" {
		return "", errors.New("no results under ./" + Root + ": name the results.json (or its directory) to take the baseline from")
	}
	return newest, nil
}

// Dir is the output directory of path: path itself, or the directory of the results.json it
// names.
func Dir(path string) string { return filepath.Dir(resultsPath(path)) }
