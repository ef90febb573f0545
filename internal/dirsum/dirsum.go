// Package dirsum lists a folder's files (regular files with their sizes and SHA-256s, symbolic
// links with their targets) and checks the folder against that list later: the install cache and
// the cell cache keep one for each entry, so an entry cut short, edited (same size too), half
// removed or added to since is seen.
package dirsum

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
)

// File is what the list holds of one file: its size, checked first because it is cheap, and
// its content's SHA-256 in hex; or, for a symbolic link, where it points.
type File struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	// Link is a symbolic link's target as it was made (a venv's bin/python, npm's .bin links):
	// a link pointed elsewhere later runs another program.
	Link string `json:"link,omitempty"`
}

// Sums is the list, by path relative to the folder, with forward slashes.
type Sums map[string]File

// List lists every regular file and symbolic link of dir, except the file self at its top (the
// list itself). Named pipes, sockets and devices are not listed (a pipe would block the read), so
// Changed finds them as files that were not there.
func List(dir, self string) (Sums, error) {
	sums := Sums{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel = filepath.ToSlash(rel); rel == self {
			return nil
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			sums[rel] = File{Link: target}
		case d.Type().IsRegular():
			sum, n, err := HashFile(p)
			if err != nil {
				return err
			}
			sums[rel] = File{n, sum, ""}
		}
		return nil
	})
	return sums, err
}

// Write lists dir (List) into dir/name.
func Write(dir, name string) error {
	sums, err := List(dir, name)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(sums)
	return os.WriteFile(filepath.Join(dir, name), b, 0o644)
}

// Changed says what of dir differs from s, "" when nothing. Every file of dir is looked at,
// without following links: one the list does not name (a file a run planted), one it names
// that is missing or is now another kind (a link where a file was), a link pointing elsewhere,
// then every size, so an entry cut short is found without reading any content, then every
// file's hash. A listed path that is not inside dir is refused without being looked at. self is
// the list's own file at the top of dir, which it does not name; done is what made the files
// ("installed", "stored"), for the message.
func (s Sums) Changed(dir, self, done string) string {
	for _, rel := range slices.Sorted(maps.Keys(s)) {
		if !Inside(rel) {
			return fmt.Sprintf("its list names %q, which is not inside it", rel)
		}
	}
	found := map[string]fs.FileMode{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel = filepath.ToSlash(rel); !d.IsDir() && rel != self {
			found[rel] = d.Type()
		}
		return nil
	})
	if err != nil {
		return fmt.Sprintf("it cannot be read whole: %v", err)
	}
	for _, rel := range slices.Sorted(maps.Keys(found)) {
		if _, ok := s[rel]; !ok {
			return fmt.Sprintf("it has a file %q that was not %s", rel, done)
		}
	}
	for _, rel := range slices.Sorted(maps.Keys(s)) {
		mode, ok := found[rel]
		want := s[rel]
		switch {
		case !ok:
			return fmt.Sprintf("its file %q is missing", rel)
		case want.Link != "":
			if target, err := os.Readlink(filepath.Join(dir, filepath.FromSlash(rel))); mode&fs.ModeSymlink == 0 || err != nil || target != want.Link {
				return fmt.Sprintf("its link %q is not what was %s: it points elsewhere", rel, done)
			}
		case !mode.IsRegular():
			return fmt.Sprintf("its file %q is not what was %s: it is no longer a plain file", rel, done)
		}
	}
	for _, rel := range slices.Sorted(maps.Keys(s)) {
		if s[rel].Link != "" {
			continue
		}
		info, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil || !info.Mode().IsRegular() || info.Size() != s[rel].Size {
			return fmt.Sprintf("its file %q is not what was %s: its size changed", rel, done)
		}
	}
	for _, rel := range slices.Sorted(maps.Keys(s)) {
		if s[rel].Link != "" {
			continue
		}
		sum, _, err := HashFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil || sum != s[rel].SHA256 {
			return fmt.Sprintf("its file %q is not what was %s: its content changed", rel, done)
		}
	}
	return ""
}

// Inside says whether rel, a path with forward slashes read from a list or a record a run may
// have written, names something inside the folder it is relative to: not absolute, no "..",
// written the one way Clean writes it, and not the folder itself.
func Inside(rel string) bool {
	return rel != "" && rel != "." && path.Clean(rel) == rel && filepath.IsLocal(filepath.FromSlash(rel))
}

// HashFile streams p through SHA-256, so a file of any size costs no more memory than a buffer.
func HashFile(p string) (sum string, n int64, err error) {
	f, err := os.Open(p)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	if n, err = io.Copy(h, f); err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
