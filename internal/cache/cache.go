package cache

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolscore/toolscore/internal/dirsum"
	"github.com/toolscore/toolscore/internal/filelock"
	"github.com/toolscore/toolscore/record"
)

// Files of an entry.
const (
	metaFile     = MetaFile        // Meta
	runsFile     = "runs.jsonl"    // the cell's runs' records, one a line
	filesDir     = "files"         // the runs' directories, at their paths in the output
	manifestFile = "manifest.json" // every other file's size and sha256, written last
)

// MetaFile is the name of an entry's meta in its folder: a folder holding one is a cell cache
// entry of toolscore's.
const MetaFile = "entry.json"

// Format is the version of an entry's layout; a key made with another is another key.
const Format = 1

// Meta says what an entry holds and where it comes from.
type Meta struct {
	Key string `json:"key"`
	// Cell is the cell's key (record.Cell.Key), for toolscore cache ls.
	Cell string `json:"cell"`
	// Sweep is when the sweep that ran the cell started: what a reused cell says it is from.
	Sweep time.Time `json:"sweep"`
	// Stored is when the entry was made, which prune goes by.
	Stored time.Time `json:"stored"`
	// Toolscore is the version that ran it.
	Toolscore string `json:"toolscore,omitempty"`
	// Runs is how many runs the entry holds, numbered 1 to Runs.
	Runs int `json:"runs"`
	// Inputs is what the key was made of, kept to say why two keys differ.
	Inputs json.RawMessage `json:"inputs,omitempty"`
}

// Run is one run of an entry: its line of runs.jsonl and its directory, relative to the output
// directory (runs/<cell>/run-<n>).
type Run struct {
	Number int
	Line   []byte
	Dir    string
}

// Entry is a finished cell read back from the cache, checked against its manifest.
type Entry struct {
	Meta Meta
	Runs []Run
	dir  string
	sums dirsum.Sums
}

// Cache is a folder of entries, one a key: DIR/<key>/. Entries are made beside it and renamed
// into place whole, so a reader never sees half of one, and never changed after.
type Cache struct {
	Dir string
}

// ErrMiss is a key the cache holds no entry for.
var ErrMiss = errors.New("no entry")

// DamagedError is an entry that fails its own manifest: cut short, edited, or half removed.
type DamagedError struct {
	Key, Why string
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("the cached cell %s is damaged (%s)", short(e.Key), e.Why)
}

func short(key string) string {
	if len(key) > 16 {
		return key[:16]
	}
	return key
}

// Has says whether the cache seems to hold an entry of key, reading none of it: a hint for what
// to prepare (a sweep installs no client whose cells all seem held), never a reason to reuse
// anything, which only Get's check gives.
func (c *Cache) Has(key string) bool {
	info, err := os.Lstat(filepath.Join(c.Dir, key, manifestFile))
	return err == nil && info.Mode().IsRegular()
}

// Get reads the entry of key and checks every file against its manifest: ErrMiss when there is
// none, a *DamagedError when it does not hold what was stored.
func (c *Cache) Get(key string) (*Entry, error) {
	dir := filepath.Join(c.Dir, key)
	// A run may have written anything here: the manifest is read only as a plain file, never
	// through a link to elsewhere.
	if info, err := os.Lstat(filepath.Join(dir, manifestFile)); err == nil && !info.Mode().IsRegular() {
		return nil, &DamagedError{key, "its " + manifestFile + " is not a plain file"}
	}
	b, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(dir); serr == nil {
			return nil, &DamagedError{key, "it has no manifest"}
		}
		return nil, ErrMiss
	}
	if err != nil {
		return nil, fmt.Errorf("reading the cache entry %s: %w", dir, err)
	}
	var sums dirsum.Sums
	if json.Unmarshal(b, &sums) != nil {
		return nil, &DamagedError{key, "its manifest is unreadable"}
	}
	if why := check(dir, sums); why != "" {
		return nil, &DamagedError{key, why}
	}
	e := &Entry{dir: dir, sums: sums}
	mb, _ := os.ReadFile(filepath.Join(dir, metaFile))
	if json.Unmarshal(mb, &e.Meta) != nil || e.Meta.Key != key {
		return nil, &DamagedError{key, "its " + metaFile + " is not its own"}
	}
	rb, _ := os.ReadFile(filepath.Join(dir, runsFile))
	for line := range bytes.Lines(rb) {
		var r struct {
			Run int    `json:"run"`
			Tee string `json:"tee"`
		}
		if json.Unmarshal(line, &r) != nil || r.Run < 1 {
			return nil, &DamagedError{key, "a record of its runs is unreadable"}
		}
		// The run's directory is removed and written in the output when it is reused: it must
		// be one of the output's run directories, never a path that leaves it.
		if dir := path.Dir(r.Tee); !dirsum.Inside(r.Tee) || path.Base(r.Tee) != record.TeeFile || !strings.HasPrefix(dir, record.RunsDir+"/") {
			return nil, &DamagedError{key, fmt.Sprintf("the record of its run %d names the transcript %q, not one inside the output's %s folder", r.Run, r.Tee, record.RunsDir)}
		}
		e.Runs = append(e.Runs, Run{Number: r.Run, Line: bytes.TrimRight(line, "\n"), Dir: filepath.Dir(filepath.FromSlash(r.Tee))})
	}
	if len(e.Runs) != e.Meta.Runs {
		return nil, &DamagedError{key, fmt.Sprintf("it holds %d runs, its record says %d", len(e.Runs), e.Meta.Runs)}
	}
	return e, nil
}

// check says what of dir differs from sums, "" when nothing: a file the manifest does not name
// is a difference too, and so is any link, which Put never stores.
func check(dir string, sums dirsum.Sums) string {
	if why := sums.Changed(dir, manifestFile, "stored"); why != "" {
		return why
	}
	for _, rel := range slices.Sorted(maps.Keys(sums)) {
		if sums[rel].Link != "" {
			return fmt.Sprintf("it has a link %q, which is never stored", rel)
		}
	}
	return ""
}

// Copy puts run r of the entry into the output directory out: its directory's files, each
// checked against the manifest as it is copied (an entry removed or edited since Get fails
// here, and nothing of the run is left behind).
func (e *Entry) Copy(out string, r Run) error {
	prefix := filesDir + "/" + filepath.ToSlash(r.Dir) + "/"
	dst := filepath.Join(out, r.Dir)
	if err := realDirs(out, r.Dir); err != nil {
		return err
	}
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	for _, rel := range slices.Sorted(maps.Keys(e.sums)) {
		if !strings.HasPrefix(rel, prefix) {
			continue
		}
		to := filepath.Join(out, filepath.FromSlash(strings.TrimPrefix(rel, filesDir+"/")))
		if err := copyChecked(filepath.Join(e.dir, filepath.FromSlash(rel)), to, e.sums[rel]); err != nil {
			_ = os.RemoveAll(dst)
			return fmt.Errorf("copying %s from the cache: %w", rel, err)
		}
	}
	return os.MkdirAll(dst, 0o755) // a run with no file still has its directory
}

// realDirs fails unless rel is inside out and each folder of it that exists is a folder, not a
// link: the run directory Copy removes and writes is then the output's own, wherever a run of
// this sweep pointed one of its folders.
func realDirs(out, rel string) error {
	rel = filepath.ToSlash(rel)
	if !dirsum.Inside(rel) {
		return fmt.Errorf("the run directory %q is not inside the output %s", rel, out)
	}
	p := out
	for _, part := range strings.Split(rel, "/") {
		p = filepath.Join(p, part)
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if !info.IsDir() {
			return fmt.Errorf("%s is not a folder of the output (a link or a file is there): nothing is written through it", p)
		}
	}
	return nil
}

// copyChecked copies from to to, and fails unless what it copied is want.
func copyChecked(from, to string, want dirsum.File) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	// O_EXCL: a file is made, never written through a link that is already there.
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if n != want.Size || hex.EncodeToString(h.Sum(nil)) != want.SHA256 {
		return errors.New("it is not what was stored")
	}
	return nil
}

// Dir is where the entry's files are: its runs' directories under files/.
func (e *Entry) Dir() string { return e.dir }

// RunDir is where run r's directory is in the entry.
func (e *Entry) RunDir(r Run) string { return filepath.Join(e.dir, filesDir, r.Dir) }

// Put stores a finished cell under meta.Key: the lines of its runs (records of runs.jsonl,
// whose tee names each run's directory relative to out) and those directories' files. The entry
// is made in a folder of its own beside the others and renamed into place whole; when another
// sweep put the same key first, theirs stays (an entry never changes) and Put returns nil.
// replace puts this one in place of the entry there: one whose server no longer answers as it
// recorded, which would otherwise never be reused again.
func (c *Cache) Put(ctx context.Context, meta Meta, out string, runs []Run, replace bool) error {
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	final := filepath.Join(c.Dir, meta.Key)
	if _, err := os.Stat(filepath.Join(final, manifestFile)); err == nil && !replace {
		return nil
	}
	tmp := filepath.Join(c.Dir, ".tmp-"+meta.Key+"-"+randomSuffix())
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // nothing left after a rename, everything after a failure
	var lines bytes.Buffer
	for _, r := range runs {
		lines.Write(r.Line)
		lines.WriteByte('\n')
		if err := realDirs(out, r.Dir); err != nil {
			return fmt.Errorf("copying run %d into the cache: %w", r.Number, err)
		}
		if err := copyTree(filepath.Join(out, r.Dir), filepath.Join(tmp, filesDir, r.Dir)); err != nil {
			return fmt.Errorf("copying run %d into the cache: %w", r.Number, err)
		}
	}
	meta.Runs = len(runs)
	mb, _ := json.MarshalIndent(meta, "", "  ")
	if err := os.WriteFile(filepath.Join(tmp, runsFile), lines.Bytes(), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, metaFile), mb, 0o644); err != nil {
		return err
	}
	if err := dirsum.Write(tmp, manifestFile); err != nil {
		return err
	}
	// The lock is the one a damaged entry's removal takes: this rename does not land in the
	// middle of another sweep's removal of the same key.
	unlock, err := filelock.Lock(ctx, final+".lock", "the cache entry")
	if err != nil {
		return err
	}
	defer unlock()
	if replace {
		if err := c.setAside(final); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, final); err != nil {
		if _, serr := os.Stat(filepath.Join(final, manifestFile)); serr == nil {
			return nil // another sweep stored it first
		}
		return err
	}
	return nil
}

// Discard removes the entry of key (a damaged one): renamed aside first, so no reader finds it
// half removed, then removed.
func (c *Cache) Discard(ctx context.Context, key string) error {
	final := filepath.Join(c.Dir, key)
	unlock, err := filelock.Lock(ctx, final+".lock", "the cache entry")
	if err != nil {
		return err
	}
	defer unlock()
	return c.setAside(final)
}

// setAside removes the entry at final, renamed aside first; the caller holds its lock.
func (c *Cache) setAside(final string) error {
	aside := filepath.Join(c.Dir, ".trash-"+filepath.Base(final)+"-"+randomSuffix())
	if err := os.Rename(final, aside); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	return os.RemoveAll(aside)
}

// List reads the meta of every entry, oldest first; an entry without one is listed with its key
// alone.
func (c *Cache) List() ([]Meta, error) {
	des, err := os.ReadDir(c.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Meta
	for _, d := range des {
		if !d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			continue
		}
		var m Meta
		if b, err := os.ReadFile(filepath.Join(c.Dir, d.Name(), metaFile)); err == nil {
			_ = json.Unmarshal(b, &m)
		}
		m.Key = d.Name() // the folder's name, not what a run may have written in its meta
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b Meta) int { return a.Stored.Compare(b.Stored) })
	return out, nil
}

// Prune removes the entries stored before cutoff (time.Now() empties the cache), and what
// sweeps that died left half made an hour ago or more. It returns how many entries it removed.
func (c *Cache) Prune(ctx context.Context, cutoff time.Time) (int, error) {
	des, err := os.ReadDir(c.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, d := range des {
		name := d.Name()
		switch {
		case strings.HasPrefix(name, ".tmp-") || strings.HasPrefix(name, ".trash-"):
			// Another sweep may be making it now: only what is an hour old goes.
			if info, err := d.Info(); err == nil && time.Since(info.ModTime()) > time.Hour {
				_ = os.RemoveAll(filepath.Join(c.Dir, name))
			}
		case d.IsDir():
			var m Meta
			b, _ := os.ReadFile(filepath.Join(c.Dir, name, metaFile))
			if json.Unmarshal(b, &m) == nil && !m.Stored.Before(cutoff) {
				continue
			}
			if err := c.Discard(ctx, name); err != nil {
				return n, err
			}
			_ = os.Remove(filepath.Join(c.Dir, name+".lock"))
			n++
		}
	}
	return n, nil
}

// copyTree copies the regular files under from to to; links, pipes and devices a run left are
// not copied (a pipe would block the read).
func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == from && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(dst)
		if err != nil {
			return err
		}
		w := bufio.NewWriter(out)
		_, err = io.Copy(w, in)
		if err == nil {
			err = w.Flush()
		}
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		return err
	})
}

func randomSuffix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Key is the SHA-256, in hex, of v as JSON (maps with sorted keys): the same inputs give the
// same key in every process.
func Key(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		// Inputs that cannot be encoded cannot be compared: a key of its own, never shared.
		return "unkeyable-" + randomSuffix()
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
