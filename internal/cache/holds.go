package cache

import (
	"io/fs"
	"path"
)

// HoldsEntries says whether the folder dir of fsys is a cell cache: one of its folders holds an
// entry's entry.json (a finished entry, or one a sweep is making). What copies a folder (a
// defined client's install of its manifest's folder) leaves such a folder out: its entries are
// the sweeps' doing, not the client's files.
func HoldsEntries(fsys fs.FS, dir string) bool {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if info, err := fs.Stat(fsys, path.Join(dir, e.Name(), metaFile)); err == nil && info.Mode().IsRegular() {
			return true
		}
	}
	return false
}
