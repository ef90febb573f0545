package client

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolscore/toolscore/internal/cache"
	"github.com/toolscore/toolscore/internal/install"
	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenario"
)

// Defined is the descriptor of a client a manifest defines (scenario.Client.Defined): the
// manifest's folder, less the manifest itself, is installed with the manifest's steps, and its
// command runs from the install. files, when given, are the only files and folders of it the
// install copies (and its key hashes), with those command names. It is not registered: it is
// the manifest's, not toolscore's.
func Defined(name, runtime string, command, steps, files []string, agent bool, manifest string) Descriptor {
	dir := filepath.Dir(manifest)
	argv := slices.Clone(command)
	var only []string
	for _, f := range files {
		only = append(only, path.Clean(strings.TrimPrefix(filepath.ToSlash(f), "./")))
	}
	for i, w := range argv {
		// A file of the manifest's folder is one of the install's, which Local.Argv resolves
		// by its "./".
		if scenario.IsManifestFile(w) && !strings.HasPrefix(w, "./") {
			argv[i] = "./" + w
		}
		if scenario.IsManifestFile(w) && only != nil {
			only = append(only, path.Clean(strings.TrimPrefix(filepath.ToSlash(w), "./")))
		}
	}
	return Descriptor{
		Name:     name,
		Agent:    agent,
		Manifest: true,
		Local: &Local{
			Recipe:  install.Recipe{Runtime: runtime, Files: manifestFS{os.DirFS(dir), dir, filepath.Base(manifest), caches(), only}, Steps: slices.Clone(steps)},
			Command: argv,
		},
	}
}

// DefinedAgentArgv is how a run starts an agent a manifest defines, whose adapter is argv:
// through toolscore (self), which serves it the scripted model and reads what the model was
// shown (internal/agent.Defined).
func DefinedAgentArgv(self string, argv []string) []string {
	return append([]string{self, "agent", "defined", "--"}, argv...)
}

// manifestFS is the manifest's folder as a defined client's install copies it: without the
// manifest (editing the scenario changes nothing the client runs), toolscore's caches and its
// own output (the folder a sweep writes to by default, and any folder holding a sweep's
// output), which would otherwise change the install's inputs, so reinstall it and miss every
// cell of the cell cache, at every sweep. A link to a file inside the folder is that file;
// other links are left out, as the install copies only regular files.
type manifestFS struct {
	fs.FS
	root, manifest string
	// caches are toolscore's cache folders where it knows them, left out where the folder
	// holds them; any other folder holding entries of a cell cache or an install cache (a
	// sweep's --cache) is left out too (cache). Neither is of the client's files.
	caches []string
	// only, when not nil, are the files and folders kept (the client's files:), by slash
	// path: every other entry of the folder is left out.
	only []string
}

// kept says whether rel is one of only, in one of its folders, or a folder holding one of them.
func (m manifestFS) kept(rel string) bool {
	if m.only == nil {
		return true
	}
	return slices.ContainsFunc(m.only, func(f string) bool {
		return f == "." || rel == f || strings.HasPrefix(f, rel+"/") || strings.HasPrefix(rel, f+"/")
	})
}

// caches are the absolute paths of the cache folders toolscore uses unless told otherwise:
// TOOLSCORE_CACHE, the install cache, TOOLSCORE_CACHE_DIR (the cell cache) and the user cache
// folder's toolscore, whose cells are the default cell cache.
func caches() []string {
	var out []string
	for _, env := range []string{"TOOLSCORE_CACHE", "TOOLSCORE_CACHE_DIR"} {
		if c := os.Getenv(env); c != "" && c != "off" {
			out = append(out, c)
		}
	}
	if r, err := install.Root(); err == nil {
		out = append(out, r)
	}
	if c, err := os.UserCacheDir(); err == nil {
		out = append(out, filepath.Join(c, "toolscore"))
	}
	for i, c := range out {
		if abs, err := filepath.Abs(c); err == nil {
			out[i] = abs
		}
	}
	return out
}

// ReadDir lists a folder, less the manifest and the output folders in it, with the links it
// keeps shown as the files they name.
func (m manifestFS) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(m.FS, name)
	kept := entries[:0]
	for _, e := range entries {
		rel := path.Join(name, e.Name())
		switch {
		case rel == m.manifest && !e.IsDir() || !m.kept(rel):
			continue
		case e.IsDir():
			if m.output(rel) || m.cache(rel) {
				continue
			}
		case e.Type()&fs.ModeSymlink != 0:
			info, ok := m.linked(rel)
			if !ok {
				continue
			}
			e = fs.FileInfoToDirEntry(info)
		}
		kept = append(kept, e)
	}
	return kept, err
}

// linked is the file the link rel names, when it is a regular file inside the folder.
func (m manifestFS) linked(rel string) (fs.FileInfo, bool) {
	link := filepath.Join(m.root, filepath.FromSlash(rel))
	real, err := filepath.EvalSymlinks(link)
	if err != nil {
		return nil, false
	}
	root, err := filepath.EvalSymlinks(m.root)
	if err != nil {
		return nil, false
	}
	if r, err := filepath.Rel(root, real); err != nil || !filepath.IsLocal(r) {
		return nil, false
	}
	info, err := os.Stat(link) // named as the link, with the file's mode and size
	if err != nil || !info.Mode().IsRegular() {
		return nil, false
	}
	return info, true
}

// cache says whether dir is a cache of toolscore's: one of caches (the same folder, by
// whatever path), or a folder of cell cache or install cache entries.
func (m manifestFS) cache(dir string) bool {
	if info, err := os.Stat(filepath.Join(m.root, filepath.FromSlash(dir))); err == nil {
		for _, c := range m.caches {
			if ci, err := os.Stat(c); err == nil && os.SameFile(info, ci) {
				return true
			}
		}
	}
	return m.holdsEntry(dir, cache.MetaFile) || m.holdsEntry(dir, install.DoneFile)
}

// holdsEntry says whether one of dir's folders holds a file named marker: an entry of a cell
// cache (its meta) or of an install cache (its record), the sweeps' doing, not the client's.
func (m manifestFS) holdsEntry(dir, marker string) bool {
	entries, err := fs.ReadDir(m.FS, dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if info, err := fs.Stat(m.FS, path.Join(dir, e.Name(), marker)); e.IsDir() && err == nil && info.Mode().IsRegular() {
			return true
		}
	}
	return false
}

func (m manifestFS) output(dir string) bool {
	if path.Base(dir) == outdir.Root {
		return true
	}
	for _, f := range []string{record.SweepFile, record.LockFile} {
		if _, err := fs.Stat(m.FS, path.Join(dir, f)); err == nil {
			return true
		}
	}
	return false
}
