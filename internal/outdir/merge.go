package outdir

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// Merge reads the output directories dirs, of one scenario (shards of a matrix, or more runs
// of the same cells), and adds their counts up, with each example's transcript path made
// relative to out, where WriteMerged will put them. It writes nothing: every error here is one
// of the inputs.
func Merge(out string, dirs []string) (*tally.Results, error) {
	outAbs, err := filepath.Abs(out)
	if err != nil {
		return nil, fmt.Errorf("--out %s: %w", out, err)
	}
	var inputs []*tally.Results
	var seen []input
	given := map[string]string{} // absolute path -> as given
	for i, dir := range dirs {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
		if first, ok := given[abs]; ok {
			return nil, fmt.Errorf("%s is given twice (as %s and %s): its runs would be counted twice", abs, first, dir)
		}
		given[abs] = dir
		if abs == outAbs {
			return nil, fmt.Errorf("--out %s is one of the inputs; merge into another directory", out)
		}
		res, err := ReadResults(Results(dir))
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(filepath.Join(dir, record.RunsFile)); err != nil {
			return nil, fmt.Errorf("%s has %s but no %s: %w", dir, record.ResultsFile, record.RunsFile, err)
		}
		if i > 0 && res.Scenario != inputs[0].Scenario {
			return nil, fmt.Errorf("%s and %s hold different scenarios (%q and %q); merge outputs of one scenario only",
				dirs[0], dir, inputs[0].Scenario, res.Scenario)
		}
		in, err := readInput(dir)
		if err != nil {
			return nil, err
		}
		for _, before := range seen {
			if err := before.conflict(in); err != nil {
				return nil, err
			}
		}
		seen = append(seen, in)
		rebaseTees(res, abs, outAbs)
		inputs = append(inputs, res)
	}
	return tally.Merge(inputs...)
}

// input is what says which sweep an input of Merge is: its directory, and from its sweep.json
// (nil when it has none: a merged output, or one an older toolscore wrote) the sweep's ID, its
// manifest's digest and its shard.
type input struct {
	dir   string
	fi    fs.FileInfo
	sweep *Sweep
}

func readInput(dir string) (input, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return input{}, fmt.Errorf("reading %s: %w", dir, err)
	}
	s, err := ReadSweep(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return input{dir: dir, fi: fi}, nil
	}
	if err != nil {
		return input{}, err
	}
	return input{dir: dir, fi: fi, sweep: s}, nil
}

// conflict says why a and b cannot be merged: one directory or one sweep given twice (its
// runs would count twice), the same shard of one plan twice, or sweeps of two manifests that
// share a name (their counts and expectations do not add up).
func (a input) conflict(b input) error {
	if os.SameFile(a.fi, b.fi) {
		return fmt.Errorf("%s and %s are one directory (a link to it?): its runs would be counted twice; give it once", a.dir, b.dir)
	}
	if a.sweep == nil || b.sweep == nil {
		return nil
	}
	sa, sb := a.sweep, b.sweep
	shard := "the whole matrix"
	if sa.Plan.Shard != "" {
		shard = "shard " + sa.Plan.Shard
	}
	switch {
	case sa.SHA256 != sb.SHA256:
		return fmt.Errorf("%s and %s are sweeps of two different manifests named %q (sha256 %.12s and %.12s): their counts and expectations do not add up; merge the outputs of one manifest",
			a.dir, b.dir, sa.Plan.Scenario, sa.SHA256, sb.SHA256)
	case sa.ID != "" && sa.ID == sb.ID:
		return fmt.Errorf("%s and %s hold one sweep (%s, id %s): one is a copy of the other, and its runs would be counted twice; give it once",
			a.dir, b.dir, shard, sa.ID)
	case sa.Plan.Shard != "" && sa.Plan.Shard == sb.Plan.Shard:
		return fmt.Errorf("%s and %s are both %s of one plan of %q: its runs would be counted twice; give each shard once",
			a.dir, b.dir, shard, sa.Plan.Scenario)
	}
	return nil
}

// WriteMerged makes the output directory out of what Merge added up from dirs: their
// runs.jsonl one after the other, then results.json and summary.md of the whole.
func WriteMerged(out string, dirs []string, merged *tally.Results) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := concatRuns(out, record.RunsFile, dirs); err != nil {
		return err
	}
	// A merged directory is no sweep's: a sweep.json left by one would be resumed over it.
	if err := os.Remove(filepath.Join(out, record.SweepFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return Write(out, merged)
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

// concatRuns writes every input's runs.jsonl into the file name in dir, one after the other,
// each line as it was, whole or not at all (writeAtomic); a file whose last line lacks its
// newline gets one, so lines never run together, and a last line cut short (a sweep killed
// while writing it) is left out, as its counts leave it.
func concatRuns(dir, name string, dirs []string) error {
	return writeAtomic(dir, name, func(w io.Writer) error {
		for _, in := range dirs {
			if err := appendRuns(w, filepath.Join(in, record.RunsFile)); err != nil {
				return err
			}
		}
		return nil
	})
}

func appendRuns(dst io.Writer, path string) error {
	src, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("reading runs: %w", err)
	}
	defer src.Close()
	good, err := wholeLines(src)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if _, err := io.CopyN(dst, src, good); err != nil {
		return fmt.Errorf("copying %s: %w", path, err)
	}
	if good == 0 {
		return nil
	}
	last := make([]byte, 1)
	if _, err := src.ReadAt(last, good-1); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if last[0] != '\n' {
		if _, err := dst.Write([]byte("\n")); err != nil {
			return fmt.Errorf("writing the merged %s: %w", record.RunsFile, err)
		}
	}
	return nil
}

// wholeLines is the length of what r holds less a last line cut short: one without its newline
// that is not JSON, what a sweep killed while writing a record leaves.
func wholeLines(r io.Reader) (int64, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var n int64
	for {
		b, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			if len(bytes.TrimSpace(b)) == 0 || json.Valid(b) {
				n += int64(len(b))
			}
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n += int64(len(b))
	}
}
