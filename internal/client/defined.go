package client

import (
	"os"
	"slices"
	"strings"

	"github.com/toolscore/toolscore/internal/install"
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
			Recipe:  install.Recipe{Runtime: runtime, Files: os.DirFS(dir), Steps: slices.Clone(steps)},
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
