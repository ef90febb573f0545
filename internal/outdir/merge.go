package outdir

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

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
		if err == nil {
			err = in.readRuns()
		}
		if err != nil {
			return nil, err
		}
		for _, before := range seen {
			if err := before.conflict(in); err != nil {
				return nil, err
			}
			if err := before.overlap(in); err != nil {
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
// manifest's digest and its shard; the sweeps a merged output was made of (its MergedFile); and
// the runs its runs.jsonl holds, each a cell and run number, in order.
type input struct {
	dir    string
	fi     fs.FileInfo
	sweep  *Sweep
	merged []Part
	runs   []runRef
	// reused holds, for each run the cell cache gave, when the sweep that ran it started.
	reused map[runRef]time.Time
}

// runRef is one run of a cell: its cell's key and its number.
type runRef struct {
	cell string
	run  int
}

// MergedFile, in a merged output, lists the sweeps whose runs it holds (Part), so that a later
// merge can tell it from, and refuse it beside, one of them.
const MergedFile = "merged.json"

// Part is one sweep a merged output holds the runs of: its sweep.json's ID, shard and manifest
// digest, and its directory as the merge that read it was given it.
type Part struct {
	Dir      string `json:"dir"`
	ID       string `json:"id,omitempty"`
	Shard    string `json:"shard,omitempty"`
	SHA256   string `json:"manifest_sha256,omitempty"`
	Scenario string `json:"scenario,omitempty"`
	// Started is when the sweep started: what the runs another sweep reused from it say.
	Started time.Time `json:"started"`
}

func readInput(dir string) (input, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return input{}, fmt.Errorf("reading %s: %w", dir, err)
	}
	in := input{dir: dir, fi: fi}
	s, err := ReadSweep(dir)
	switch {
	case err == nil:
		in.sweep = s
	case !errors.Is(err, fs.ErrNotExist):
		return input{}, err
	}
	if in.sweep == nil {
		b, err := os.ReadFile(filepath.Join(dir, MergedFile))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return input{}, fmt.Errorf("reading %s: %w", filepath.Join(dir, MergedFile), err)
		}
		if err == nil {
			var m struct {
				Parts []Part `json:"parts"`
			}
			if err := json.Unmarshal(b, &m); err != nil {
				return input{}, fmt.Errorf("reading %s: %w", filepath.Join(dir, MergedFile), err)
			}
			in.merged = m.Parts
		}
	}
	return in, nil
}

// readRuns reads which runs in's runs.jsonl holds.
func (in *input) readRuns() error {
	path := filepath.Join(in.dir, record.RunsFile)
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	_, err = record.ReadRunsAny(f, path, func(_ int, r *record.Run) error {
		ref := runRef{r.Key(), r.Run}
		in.runs = append(in.runs, ref)
		if r.ReusedFrom != nil {
			if in.reused == nil {
				in.reused = map[runRef]time.Time{}
			}
			in.reused[ref] = *r.ReusedFrom
		}
		return nil
	})
	return err
}

// parts are the sweeps whose runs in holds: its own, or those a merge made it of; none for an
// output of a toolscore before sweep.json.
func (in input) parts() []Part {
	if in.sweep == nil {
		return in.merged
	}
	s := in.sweep
	return []Part{{Dir: in.dir, ID: s.ID, Shard: s.Plan.Shard, SHA256: s.SHA256, Scenario: s.Plan.Scenario, Started: s.Plan.Started}}
}

// common is the first run of b that a holds too, if any.
func common(a, b input) (runRef, bool) {
	has := make(map[runRef]bool, len(a.runs))
	for _, r := range a.runs {
		has[r] = true
	}
	for _, r := range b.runs {
		if has[r] {
			return r, true
		}
	}
	return runRef{}, false
}

// overlap says why a and b, which hold the same run of a cell, cannot be merged: they hold runs
// of one sweep (one is a merge of the other, or both merge it), one reused the other's runs
// from the cell cache, or they hold runs of one plan where one is a shard of it (an unsharded
// sweep and its shards, shards of two shard counts). Two whole sweeps of one plan are more runs
// of the same cells, and add up.
func (a input) overlap(b input) error {
	r, ok := common(a, b)
	if !ok {
		return nil
	}
	if err := reusedFrom(a, b); err != nil {
		return err
	}
	if err := reusedFrom(b, a); err != nil {
		return err
	}
	twice := fmt.Sprintf("run %d of the cell %s is in both, and would be counted twice", r.run, r.cell)
	for _, pa := range a.parts() {
		for _, pb := range b.parts() {
			if pa.ID != "" && pa.ID == pb.ID {
				return fmt.Errorf("%s and %s overlap: both hold the runs of one sweep (%s, id %s), and %s; give each sweep once",
					a.dir, b.dir, shardName(pa.Shard), pa.ID, twice)
			}
		}
	}
	// The pair named is one whose runs can meet; two slices of one count (i/n and j/n) meet
	// only when one was dealt by --shard-by and the other not, named when no other pair is.
	var slices error
	for _, pa := range a.parts() {
		for _, pb := range b.parts() {
			if pa.SHA256 == "" || pa.SHA256 != pb.SHA256 || pa.Shard == "" && pb.Shard == "" {
				continue // two whole sweeps: more runs of the same cells
			}
			if pa.Shard == pb.Shard {
				return fmt.Errorf("%s and %s overlap: both hold %s of one plan of %q, and %s; give each shard once",
					a.dir, b.dir, shardName(pa.Shard), pa.Scenario, twice)
			}
			err := fmt.Errorf("%s and %s overlap: they hold %s and %s of one plan of %q, and %s; merge the shards of one plan, or its whole sweep, not both",
				a.dir, b.dir, shardName(pa.Shard), shardName(pb.Shard), pa.Scenario, twice)
			if !disjoint(pa.Shard, pb.Shard) {
				return err
			}
			slices = cmp.Or(slices, err)
		}
	}
	return slices
}

// reusedFrom says, when b took from the cell cache a run of a's own sweep that a holds too,
// that the one run would be counted twice.
func reusedFrom(a, b input) error {
	has := make(map[runRef]bool, len(a.runs))
	for _, r := range a.runs {
		has[r] = true
	}
	for _, r := range b.runs {
		from, ok := b.reused[r]
		if !ok || !has[r] {
			continue
		}
		for _, pa := range a.parts() {
			if pa.Started.Equal(from) {
				return fmt.Errorf("%s and %s overlap: %s reused from the cell cache the runs of the sweep in %s (started %s), and run %d of the cell %s is one run in both, which would be counted twice; merge one of them",
					a.dir, b.dir, b.dir, a.dir, from.UTC().Format(time.RFC3339), r.run, r.cell)
			}
		}
	}
	return nil
}

// disjoint says whether two shards of one deal never hold the same run: two slices i/n and
// j/n of one count n.
func disjoint(a, b string) bool {
	_, na, oka := strings.Cut(a, "/")
	_, nb, okb := strings.Cut(b, "/")
	return oka && okb && na == nb && a != b
}

// shardName is how the messages name a sweep's shard.
func shardName(shard string) string {
	if shard == "" {
		return "the whole matrix"
	}
	return "shard " + shard
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
	if err := writeParts(out, dirs); err != nil {
		return err
	}
	return Write(out, merged)
}

// writeParts writes out's MergedFile: the sweeps of every input in dirs, a merged input's own
// parts in its place, so that merging out again beside one of them is refused.
func writeParts(out string, dirs []string) error {
	parts := []Part{}
	for _, dir := range dirs {
		in, err := readInput(dir)
		if err != nil {
			return err
		}
		parts = append(parts, in.parts()...)
	}
	b, err := json.MarshalIndent(struct {
		Parts []Part `json:"parts"`
	}{parts}, "", "  ")
	if err != nil {
		return fmt.Errorf("writing %s: %w", MergedFile, err)
	}
	return writeAtomic(out, MergedFile, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
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
