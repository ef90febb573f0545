package report

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// How much of a transcript the HTML report reads (excerptScan) and shows of each line
// (excerptLine); the rest is in the file.
const (
	excerptScan = 256 << 10
	excerptLine = 1536
)

// RunEvidence is what the HTML report shows of one example run: its runs.jsonl record and the
// start of its transcript.
type RunEvidence struct {
	Record *record.Run
	// Excerpt is the start of the transcript at Tee, read from the output directory.
	Excerpt string
}

// Evidence holds the example runs of a sweep, by cell key and run number.
type Evidence map[string]map[int]*RunEvidence

// of returns the record of run in cell c, or nil.
func (e Evidence) of(c *tally.Cell, run int) *RunEvidence {
	if e == nil {
		return nil
	}
	return e[c.Key()][run]
}

// ReadEvidence reads, from the output directory dir, the runs.jsonl records of the runs that
// r's cells name as examples, and the start of each one's transcript. A directory with no
// runs.jsonl (results.json copied alone) has no evidence beyond results.json: nil, no error.
func ReadEvidence(dir string, r *tally.Results) (Evidence, error) {
	want := map[string]map[int]bool{}
	for _, c := range r.Cells {
		if c == nil {
			continue
		}
		for _, ex := range c.Examples {
			if want[c.Key()] == nil {
				want[c.Key()] = map[int]bool{}
			}
			want[c.Key()][ex.Run] = true
		}
	}
	path := filepath.Join(dir, record.RunsFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the runs' evidence: %w", err)
	}
	defer f.Close()
	ev := Evidence{}
	_, err = record.ReadRunsAny(f, path, func(_ int, run *record.Run) error {
		key := run.Key()
		if !want[key][run.Run] {
			return nil
		}
		if ev[key] == nil {
			ev[key] = map[int]*RunEvidence{}
		}
		if _, dup := ev[key][run.Run]; dup { // merged shards never repeat a run; keep the first
			return nil
		}
		ev[key][run.Run] = &RunEvidence{Record: run, Excerpt: excerpt(dir, run.Tee)}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ev, nil
}

// excerpt is the part of the transcript tee (relative to dir) a reader wants first: the
// target call as the client sent it and the answer as the proxy passed it on (each line cut
// to excerptLine bytes), or the transcript's start when those are not found; "" when it cannot
// be read. A path that leaves dir is not followed, as a hand-edited runs.jsonl could name any
// file.
func excerpt(dir, tee string) string {
	if tee == "" || filepath.IsAbs(tee) || !filepath.IsLocal(tee) {
		return ""
	}
	f, err := record.Open(filepath.Join(dir, tee))
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, excerptScan)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	var b strings.Builder
	for l := range strings.Lines(string(head)) {
		// The proxy writes dir first, then match on the target call and fault on its answer.
		if strings.HasPrefix(l, `{"time":`) && (strings.Contains(l, `","dir":"to-server","match":`) || strings.Contains(l, `","dir":"to-client","fault":`)) {
			b.WriteString(cut(l, excerptLine))
		}
	}
	if b.Len() == 0 {
		return cut(string(head), excerptLine)
	}
	return b.String()
}

// cut keeps the first n bytes of s, on a rune boundary, marking a cut with "…\n".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…\n"
}
