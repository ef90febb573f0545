package outdir

import (
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

// Sweep is sweep.json.
type Sweep struct {
	// Manifest is the scenario's manifest, its absolute path ("" for the embedded one), and
	// SHA256 the digest of its bytes when the sweep started: a resume refuses another manifest.
	Manifest string `json:"manifest"`
	SHA256   string `json:"manifest_sha256"`
	// Args is how the command asked for the sweep (its flags), for the command to read back.
	Args json.RawMessage `json:"args,omitempty"`
	// Plan is results.json before the first run: every cell with its planned runs, none counted.
	Plan *tally.Results `json:"plan"`
	// Expect lists the manifest's expectations with the cells each selects, to check them again.
	Expect []tally.Selection `json:"expect,omitempty"`
	// ID is drawn at random when the sweep starts (a resume keeps it): two output directories
	// with one ID are one sweep, copied, whose runs merge must not count twice.
	ID string `json:"id,omitempty"`
	// Build is the toolscore that started the sweep, its version and its binary's SHA-256,
	// and Adapters what each client ran as, by client ID (its install, image or adapter):
	// a resume by another build, or with a client's adapter changed, would mix two sweeps.
	Build    string            `json:"toolscore_build,omitempty"`
	Adapters map[string]string `json:"adapters,omitempty"`
}

// WriteSweep writes sweep.json into dir, whole or not at all (a sweep killed while writing it
// leaves the one before, or none).
func WriteSweep(dir string, s *Sweep) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("writing %s: %w", record.SweepFile, err)
	}
	return writeAtomic(dir, record.SweepFile, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// ClearCounts removes from dir the files made from a sweep's counts (results.json and the
// reports), which a sweep starting or resuming there makes stale: until it writes its own, the
// directory's counts are those of its runs.jsonl (Rebuild), never another sweep's.
func ClearCounts(dir string) error {
	// A merge's list of its inputs goes too: the runs a sweep writes there are its own.
	for _, name := range append(Files(), MergedFile) {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing the %s of the sweep before: %w", name, err)
		}
	}
	// Temp files a killed toolscore left while writing those go with them.
	stray, _ := filepath.Glob(filepath.Join(dir, tempPrefix+"*"))
	for _, path := range stray {
		_ = os.Remove(path)
	}
	return nil
}

// ReadSweep reads the sweep.json of the output directory dir; a directory without one is
// fs.ErrNotExist, with a message that says what that means.
func ReadSweep(dir string) (*Sweep, error) {
	path := filepath.Join(dir, record.SweepFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s has no %s: not the output directory of a sweep, or of one stopped before it began: %w", dir, record.SweepFile, err)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	var s Sweep
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s is not a toolscore %s: %w", path, record.SweepFile, err)
	}
	if s.Plan == nil || s.Plan.Scenario == "" {
		return nil, fmt.Errorf("%s is not a toolscore %s: it has no plan", path, record.SweepFile)
	}
	if err := s.Plan.NullCell(); err != nil {
		return nil, fmt.Errorf("%s is not a usable toolscore %s: plan: %w", path, record.SweepFile, err)
	}
	return &s, nil
}

// Rebuild makes the counts of the sweep in dir from its sweep.json and runs.jsonl, for a sweep
// that ended before it wrote results.json (killed): every whole record is counted, and the
// expectations checked as the sweep would have.
func Rebuild(dir string) (*tally.Results, error) {
	s, err := ReadSweep(dir)
	if err != nil {
		return nil, err
	}
	res := s.Plan
	index := map[string]*tally.Cell{}
	planned := 0
	for _, c := range res.Cells {
		index[c.Key()] = c
		planned += c.Planned
	}
	path := filepath.Join(dir, record.RunsFile)
	f, err := os.Open(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading runs: %w", err)
	}
	ran := 0
	if f != nil {
		defer f.Close()
		_, err = record.ReadRuns(f, path, func(line int, r *record.Run) error {
			c := index[r.Key()]
			if c == nil {
				return fmt.Errorf("%s:%d: a run of %s, which is not a cell of the sweep %s planned", path, line, r.Key(), record.SweepFile)
			}
			c.AddRun(r)
			ran++
			return nil
		})
		if err != nil {
			return nil, err
		}
		if st, err := f.Stat(); err == nil {
			res.Finished = st.ModTime().UTC()
		}
	}
	res.Interrupted = ran < planned
	if err := AddAlone(dir, res); err != nil {
		return nil, err
	}
	res.Expectations = tally.CheckSelected(s.Expect, res)
	return res, nil
}
