package runner

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/toolscore/toolscore/internal/proxy"
	"github.com/toolscore/toolscore/record"
)

// Recordings are the transcripts of a previous sweep, by run, for a sweep that plays each run
// against its own recording instead of a live server (toolscore run --replay).
type Recordings struct {
	dir string
	// byCell holds each run's transcript by its cell's key and run; byName the same with the
	// client's version left out, so another version of a client meets the same bytes.
	byCell, byName map[string]string
	// Recorded is what the recording holds.
	Recorded Recorded
}

// Recorded lists the values of each axis a recording has runs of (each once, in the order
// met) and its largest run number: the sweep that was recorded, which a replay repeats by
// default.
type Recorded struct {
	Clients, Faults, Schemas, Protocols, Transports, Tools []string
	Runs                                                   int
}

func (m *Recorded) add(rec record.Run) {
	for _, a := range []struct {
		list *[]string
		v    string
	}{{&m.Clients, rec.Client}, {&m.Faults, rec.Fault}, {&m.Schemas, rec.Schema}, {&m.Protocols, rec.Protocol}, {&m.Transports, rec.Transport}, {&m.Tools, rec.Tool}} {
		if a.v != "" && !slices.Contains(*a.list, a.v) {
			*a.list = append(*a.list, a.v)
		}
	}
	m.Runs = max(m.Runs, rec.Run)
}

// recordingFile is the recorded transcript's name in a replayed run's directory.
const recordingFile = "recorded.jsonl"

// LoadRecordings reads which transcript each run of the sweep in dir wrote, from its runs.jsonl.
func LoadRecordings(dir string) (*Recordings, error) {
	path := filepath.Join(dir, record.RunsFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("the sweep to replay: %w", err)
	}
	defer f.Close()
	r := &Recordings{dir: dir, byCell: map[string]string{}, byName: map[string]string{}}
	_, err = record.ReadRunsAny(f, path, func(n int, rec *record.Run) error {
		if rec.Tee == "" || filepath.IsAbs(rec.Tee) || strings.HasPrefix(filepath.Clean(rec.Tee), "..") {
			return fmt.Errorf("%s: record %d: field tee: %q is not a path inside %s", path, n, rec.Tee, dir)
		}
		tee := filepath.Join(dir, rec.Tee)
		r.byCell[runKey(rec.Cell, rec.Client, rec.Run)] = tee
		r.byName[runKey(rec.Cell, clientName(rec.Client), rec.Run)] = tee
		r.Recorded.add(*rec)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(r.byCell) == 0 {
		return nil, fmt.Errorf("%s holds no run to replay", path)
	}
	return r, nil
}

// runKey names run of cell c as played by client.
func runKey(c record.Cell, client string, run int) string {
	c.Client = client
	return c.Key() + "#" + strconv.Itoa(run)
}

// clientName is a client's id without its version: go-sdk/call@v1.8.0 is go-sdk/call.
func clientName(id string) string {
	name, rest, ok := strings.Cut(id, "@")
	if !ok {
		return id
	}
	if _, model, ok := strings.Cut(rest, ":"); ok {
		return name + ":" + model
	}
	return name
}

// Missing counts the runs of the plan p that r holds no recording of, and names
// the first: a replay plays recorded runs only, and says so before it starts rather than
// grading a run it cannot replay.
func (r *Recordings) Missing(p Plan) (n, of int, first string) {
	for j := range p.Jobs() {
		of++
		if _, ok := r.For(j); !ok {
			if n++; n == 1 {
				first = fmt.Sprintf("%s run %d", j.Cell.Key(), j.Run)
			}
		}
	}
	return n, of, first
}

// For is the transcript job j replays: the same client's run of the same cell, else another
// version's.
func (r *Recordings) For(j Job) (string, bool) {
	c := j.Cell.Coordinates()
	if p, ok := r.byCell[runKey(c, c.Client, j.Run)]; ok {
		return p, true
	}
	p, ok := r.byName[runKey(c, clientName(c.Client), j.Run)]
	return p, ok
}

// writeRecording copies the transcript job j replays into its directory dir, from where every
// backend carries it in; nothing when the sweep is live.
func (o Options) writeRecording(j Job, dir string) error {
	if o.Replay == nil {
		return nil
	}
	src, ok := o.Replay.For(j)
	if !ok {
		return fmt.Errorf("%s holds no recording of %s run %d to replay", o.Replay.dir, j.Cell.Key(), j.Run)
	}
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("reading the recording to replay: %w", err)
	}
	defer in.Close()
	out, err := os.Create(filepath.Join(dir, recordingFile))
	if err != nil {
		return fmt.Errorf("writing the recording to replay: %w", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copying the recording to replay: %w", err)
	}
	return out.Close()
}

// replayFlags are the flags of the proxy a replayed run wraps around `toolscore replay` of its
// recording (see the recording source, source_recording.go): the clean fault, the schema and protocol as they are, so the recorded bytes reach
// the client untouched and the run still gets a transcript of its own.
func (o Options) replayFlags(work string) proxy.Flags {
	pf := proxy.DefaultFlags()
	pf.Tool, pf.Schema, pf.Tee = o.Scenario.Tool, string(proxy.AsIs), filepath.Join(work, record.TeeFile)
	return pf
}
