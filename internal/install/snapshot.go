package install

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
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
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
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
		s[filepath.ToSlash(rel)] = st
		return nil
	})
	return s, err
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
	now, err := take(dir)
	if err != nil {
		return fmt.Errorf("the install in %s cannot be read whole: %w", dir, err)
	}
	for _, rel := range slices.Sorted(maps.Keys(now)) {
		if _, ok := before[rel]; !ok {
			return fmt.Errorf("the install in %s changed during the sweep: it has a file %q that was not installed", dir, rel)
		}
	}
	// The record last: the file a run edited says more than the record it rewrote to match.
	rels := slices.Sorted(maps.Keys(before))
	rels = append(slices.DeleteFunc(rels, func(rel string) bool { return rel == doneFile }), doneFile)
	for _, rel := range rels {
		if st, ok := now[rel]; !ok {
			return fmt.Errorf("the install in %s changed during the sweep: its file %q is gone", dir, rel)
		} else if st != before[rel] {
			return fmt.Errorf("the install in %s changed during the sweep: its file %q was written or replaced", dir, rel)
		}
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
