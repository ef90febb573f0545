// Package dirsum lists a folder's regular files with their sizes and SHA-256s, and checks the
// folder against that list later: the install cache and the cell cache keep one in each entry,
// so an entry cut short, edited (same size too) or half removed since is seen.
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
	"path/filepath"
	"slices"
)

// File is what the list holds of one file: its size, checked first because it is cheap, and
// its content's SHA-256 in hex.
type File struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// Sums is the list, by path relative to the folder, with forward slashes.
type Sums map[string]File

// Write lists every regular file of dir, except the list itself, into dir/name.
func Write(dir, name string) error {
	sums := Sums{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel = filepath.ToSlash(rel); rel == name {
			return nil
		}
		sum, n, err := HashFile(p)
		if err != nil {
			return err
		}
		sums[rel] = File{n, sum}
		return nil
	})
	if err != nil {
		return err
	}
	b, _ := json.Marshal(sums)
	return os.WriteFile(filepath.Join(dir, name), b, 0o644)
}

// Changed says what of dir differs from s, "" when nothing: every size first, so an entry cut
// short is found without reading any content, then every file's hash. done is what made the
// files ("installed", "stored"), for the message.
func (s Sums) Changed(dir, done string) string {
	for _, rel := range slices.Sorted(maps.Keys(s)) {
		info, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(rel)))
		switch {
		case err != nil:
			return fmt.Sprintf("its file %q is missing", rel)
		case !info.Mode().IsRegular() || info.Size() != s[rel].Size:
			return fmt.Sprintf("its file %q is not what was %s: its size changed", rel, done)
		}
	}
	for _, rel := range slices.Sorted(maps.Keys(s)) {
		sum, _, err := HashFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil || sum != s[rel].SHA256 {
			return fmt.Sprintf("its file %q is not what was %s: its content changed", rel, done)
		}
	}
	return ""
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
