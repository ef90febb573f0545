package client

import (
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/toolscore/toolscore/internal/install"
	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenario"
)

// Defined is the descriptor of a client a manifest defines (scenario.Client.Defined): dir, the
// manifest's folder, is installed with the manifest's steps, and its command runs from the
// install. It is not registered: it is the manifest's, not toolscore's.
func Defined(name, runtime string, command, steps []string, agent bool, dir string) Descriptor {
	argv := slices.Clone(command)
	for i, w := range argv {
		// A file of the manifest's folder is one of the install's, which Local.Argv resolves
		// by its "./".
		if scenario.IsManifestFile(w) && !strings.HasPrefix(w, "./") {
			argv[i] = "./" + w
		}
	}
	return Descriptor{
		Name:     name,
		Agent:    agent,
		Manifest: true,
		Local: &Local{
			Recipe:  install.Recipe{Runtime: runtime, Files: manifestFS{os.DirFS(dir)}, Steps: slices.Clone(steps)},
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

// manifestFS is the manifest's folder as a defined client's install copies it: without
// toolscore's own output (the folder a sweep writes to by default, and any folder holding a
// sweep's output), which would otherwise be copied in and change the install's inputs, so
// reinstall it, at every sweep started from the manifest's folder.
type manifestFS struct{ fs.FS }

// ReadDir lists a folder, less the output folders in it.
func (m manifestFS) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(m.FS, name)
	kept := entries[:0]
	for _, e := range entries {
		if !e.IsDir() || !m.output(path.Join(name, e.Name())) {
			kept = append(kept, e)
		}
	}
	return kept, err
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
