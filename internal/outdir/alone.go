package outdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// AddAlone adds to res the runs the sweep in dir ran again alone (record.AloneFile), beside
// each cell's counts; a run of a cell res does not hold is passed over, as is a last line cut
// short.
func AddAlone(dir string, res *tally.Results) error {
	path := filepath.Join(dir, record.AloneFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the runs run alone: %w", err)
	}
	defer f.Close()
	index := map[string]*tally.Cell{}
	for _, c := range res.Cells {
		if c != nil {
			index[c.Key()] = c
		}
	}
	_, err = record.ReadRuns(f, path, func(_ int, r *record.Run) error {
		if c := index[r.Key()]; c != nil {
			r.Alone = true
			c.AddRun(r)
		}
		return nil
	})
	return err
}
