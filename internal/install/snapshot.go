package install

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/toolscore/toolscore/report"
)

// stat is what a snapshot keeps of one file: its kind, size, inode, status-change time and,
// for a link, its target. The status-change time (ctime) moves with every write, rename or
// mode change and cannot be set back by the user's own processes, as a modification time can:
// a file edited in place to the same size, its mtime restored, still shows.
type stat struct {
	mode  fs.FileMode
	size  int64
	ino   uint64
	ctime [2]int64
	link  string
}

// snapshot is every file of an install (links included, folders aside) as stat sees it.
type snapshot map[string]stat

// snapshots are the installs this process checked whole (Ensure), by folder: kept in memory,
// which a run cannot reach (a sweep makes itself non-dumpable), so a run cannot rewrite them as
// it can rewrite anything on disk.
var snapshots sync.Map

// take snapshots dir.
func take(dir string) (snapshot, error) {
	s := snapshot{}
	err := walkStats(dir, func(rel string, st stat) error {
		s[rel] = st
		return nil
	})
	return s, err
}

// walkStats calls f with the stat of every file of dir (folders aside), by slash path.
func walkStats(dir string, f func(rel string, st stat) error) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		st := stat{mode: info.Mode().Type(), size: info.Size()}
		st.ino, st.ctime = inode(info)
		if st.mode&fs.ModeSymlink != 0 {
			if st.link, err = os.Readlink(p); err != nil {
				return err
			}
		}
		return f(filepath.ToSlash(rel), st)
	})
}

// Unchanged fails when a file of the install in dir was added, removed, replaced or written
// since this process checked it whole (Ensure): a run wrote into it, and the runs after it would
// run something else than what was installed. It reads no content, only each file's status, so
// it is cheap enough for every run. An install this process did not check is not looked at.
func Unchanged(dir string) error {
	v, ok := snapshots.Load(dir)
	if !ok {
		return nil
	}
	before := v.(snapshot)
	changed := func(why string, rel string) error {
		// rel is a name a run may have made: plain text for the terminal and the CI log.
		return fmt.Errorf("the install in %s changed during the sweep: %s", dir, report.Plain(fmt.Sprintf(why, rel)))
	}
	// Compared as the walk goes, nothing kept: this runs before every run. The record last: the
	// file a run edited says more than the record it rewrote to match.
	seen, record := 0, false
	var found error
	err := walkStats(dir, func(rel string, st stat) error {
		want, ok := before[rel]
		switch {
		case !ok:
			found = changed("it has a file %q that was not installed", rel)
		case st != want && rel == doneFile:
			record = true
		case st != want:
			found = changed("its file %q was written or replaced", rel)
		}
		if found != nil {
			return fs.SkipAll
		}
		seen++
		return nil
	})
	switch {
	case found != nil:
		return found
	case err != nil:
		return fmt.Errorf("the install in %s cannot be read whole: %w", dir, err)
	case seen < len(before):
		now, _ := take(dir)
		for _, rel := range slices.Sorted(maps.Keys(before)) {
			if _, ok := now[rel]; !ok {
				return changed("its file %q is gone", rel)
			}
		}
	case record:
		return changed("its file %q was written or replaced", doneFile)
	}
	return nil
}

// remember snapshots the install in dir, just checked whole, for Unchanged.
func remember(dir string) error {
	s, err := take(dir)
	if err != nil {
		return err
	}
	snapshots.Store(dir, s)
	return nil
}
