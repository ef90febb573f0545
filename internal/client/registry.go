package client

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolscore/toolscore/internal/install"
	"github.com/toolscore/toolscore/record"
)

// Descriptor is everything toolscore knows about one client or agent. A client whose adapter
// runs in an image of its own language is a folder of clients/ (ReadFolder); a Go client
// registers one from its own file, and an agent, a folder of clients/ too, from internal/agent
// with its Go adapter (AgentFolder; so a program that runs them imports that package). Every lookup reads it: the names a manifest may use, the command
// a run starts, the cell image, where a real model's key is, toolscore version, the usage text
// and docs/clients.md.
type Descriptor struct {
	// Name is what a manifest calls the client; with Paths, it names each path as Name/path.
	Name  string
	Paths []string
	// Agent marks an agent: it is given the scenario's prompt, and its observation (the
	// model's view and an answer) is graded by grade.Agent.
	Agent bool
	// KeyEnv is where the runner's environment holds the key of an agent's real model unless
	// the manifest says otherwise: its vendor's usual variable.
	KeyEnv string
	// Module is the Go module of a client compiled into toolscore, which toolscore version
	// reports at the version built in.
	Module string
	// Image is the cell image of a contained client (its library or CLI is not Go); the zero
	// Image means the client runs in the built-in image, toolscore itself.
	Image Image
	// Command starts a contained client in its image, the path appended.
	Command []string
	// Run is the adapter in toolscore's own process (toolscore client or agent NAME), given
	// the path named ("" for a client without Paths).
	Run func(ctx context.Context, r Request, path string) (*record.Observation, error)
	// Local is how the client runs outside a container: installed into a folder of the
	// install cache, then started from there. Nil for a client toolscore runs in its own
	// process (the Go clients) or only in its image.
	Local *Local
	// Manifest marks a client a manifest defines (Defined): never registered, installed from
	// the manifest's folder.
	Manifest bool
	// Does says in one line what the adapter does, for the table of docs/clients.md.
	Does string
	// Downloads is how often its registry says the package is downloaded, with the month it
	// counted, for the table of docs/clients.md ("" when no figure was found).
	Downloads string
	// Doc is the client's section of docs/clients.md (Markdown, from its heading on), "" for
	// a client the page describes in its hand-written prose.
	Doc string
}

// Local is a client installed on this machine (internal/install), and how a run starts it.
type Local struct {
	install.Recipe
	// Pinned replaces the recipe's steps when the manifest names a version; {version} in any
	// step is the version (the manifest's, else the one the client's Dockerfile pins, so both
	// backends install the same).
	Pinned []string
	// Command starts the client with the path appended; a word starting with "./" is a file of
	// the install. Empty: toolscore agent NAME, for an agent whose CLI the install holds.
	Command []string
	// Env are variables every run of the client gets; a value starting with "./" is a file of
	// the install.
	Env []string
}

// VersionedRecipe is the recipe that installs version: pinned is whether a manifest named it
// (else it is the default, or "").
func (l *Local) VersionedRecipe(version string, pinned bool) install.Recipe {
	r := l.Recipe
	if pinned && len(l.Pinned) > 0 {
		r.Steps = l.Pinned
	}
	r.Steps = slices.Clone(r.Steps)
	for i, s := range r.Steps {
		r.Steps[i] = strings.ReplaceAll(s, "{version}", version)
	}
	return r
}

// Argv is the command that starts the client installed in dir at path; self is toolscore's
// binary and name the descriptor's, for an agent run by toolscore agent NAME. A program named
// without a / is looked for in the install's bins first (install.LookBin).
func (l *Local) Argv(self, dir, name, path string) []string {
	if len(l.Command) == 0 {
		return []string{self, "agent", name}
	}
	argv := make([]string, 0, len(l.Command)+1)
	for _, w := range l.Command {
		argv = append(argv, inInstall(dir, w))
	}
	// The program is the install's own when it has one by that name (python3 of the venv, a
	// console script pip installed, a bin of node_modules), as the run's PATH has it first.
	if p := install.LookBin(dir, l.Runtime, argv[0]); p != "" {
		argv[0] = p
	}
	if path != "" {
		argv = append(argv, path)
	}
	return argv
}

// Environ is the variables a run of the client installed in dir gets. A run writes nothing into
// its install, which is checked before every run: Python would otherwise leave its bytecode
// cache in the __pycache__ folders of a client's own modules, whatever the client's runtime
// (a node adapter may start python too).
func (l *Local) Environ(dir string) []string {
	env := append(install.Env(dir, l.Runtime), "PYTHONDONTWRITEBYTECODE=1")
	for _, kv := range l.Env {
		k, v, _ := strings.Cut(kv, "=")
		env = append(env, k+"="+inInstall(dir, v))
	}
	return env
}

// inInstall resolves a word starting with "./" against the install's folder.
func inInstall(dir, w string) string {
	if rel, ok := strings.CutPrefix(w, "./"); ok {
		return filepath.Join(dir, filepath.FromSlash(rel))
	}
	return w
}

// Image is the cell image a contained client lives in, built by internal/cellimage.Client.
type Image struct {
	// Dir is the image's name: its client folder's, or its directory under
	// internal/cellimage/images when it has no folder.
	Dir string
	// BaseEnv names the variable that replaces the Dockerfile's BASE_IMAGE when set (CI
	// without a registry brings its own base).
	BaseEnv string
	// ArgEnv maps other build arguments to the variable that sets each when set: a build stage's
	// toolchain image (rmcp's RUST_IMAGE), which CI without a registry brings as it brings a base.
	ArgEnv map[string]string
	// VersionArg is the build argument that installs the version a manifest names instead of
	// the one the Dockerfile pins.
	VersionArg string
	// Borrow lists files of other image directories the build context takes as well, by their
	// path under internal/cellimage/images, so one adapter script can serve several images.
	Borrow []string
	// Folder is the client folder the image is made from (an agent's among them, whose
	// Dockerfile pins its CLI at VersionArg); nil for an image directory of
	// internal/cellimage/images.
	Folder *Folder
}

// The paths of an SDK-level client: the tool called straight away, or after tools/list (so a
// library that caches the published outputSchema can validate against it).
const (
	PathCall         = "call"
	PathListThenCall = "list-then-call"
)

// CallPaths are the paths every SDK-level client offers.
var CallPaths = []string{PathCall, PathListThenCall}

var (
	descriptors []Descriptor
	// byName resolves every name a manifest may use.
	byName = map[string]entry{}
)

// entry is a manifest name resolved: its descriptor's index and the path it names.
type entry struct {
	i    int
	path string
}

// Register adds a client or agent; it is called from an init function, and panics on a name
// taken twice or a descriptor that cannot run, so a mistake stops every test at once.
func Register(d Descriptor) {
	if d.Name == "" || (d.Run == nil && !d.Contained()) || (d.Contained() && len(d.Command) == 0) {
		panic(fmt.Sprintf("client.Register(%q): a client needs a name, and an in-process Run or an image and its Command", d.Name))
	}
	paths := d.Paths
	if len(paths) == 0 {
		paths = []string{""}
	}
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = d.Name
		if p != "" {
			names[i] += "/" + p
		}
		if _, dup := byName[names[i]]; dup {
			panic(fmt.Sprintf("client.Register: %q registered twice", names[i]))
		}
	}
	for i, n := range names {
		byName[n] = entry{len(descriptors), paths[i]}
	}
	descriptors = append(descriptors, d)
}

// Lookup resolves a name a manifest may use to its client's descriptor and the path it names.
func Lookup(name string) (d Descriptor, path string, ok bool) {
	e, ok := byName[name]
	if !ok {
		return Descriptor{}, "", false
	}
	return descriptors[e.i], e.path, true
}

// Contained says whether the client lives in a cell image of its own.
func (d Descriptor) Contained() bool { return d.Image.Dir != "" }

// Argv is the command that starts a contained client at path in its image.
func (d Descriptor) Argv(path string) []string {
	argv := slices.Clone(d.Command)
	if path != "" {
		argv = append(argv, path)
	}
	return argv
}

// Label names the client with all its paths, as toolscore version lists it: ts-sdk/*.
func (d Descriptor) Label() string {
	if len(d.Paths) > 0 {
		return d.Name + "/*"
	}
	return d.Name
}

// Descriptors lists every client and agent registered, sorted by name.
func Descriptors() []Descriptor {
	out := slices.Clone(descriptors)
	slices.SortFunc(out, func(a, b Descriptor) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// Images lists the cell images of the contained clients, one per directory, sorted.
func Images() []Image {
	var out []Image
	for _, d := range Descriptors() {
		if d.Contained() && !slices.ContainsFunc(out, func(im Image) bool { return im.Dir == d.Image.Dir }) {
			out = append(out, d.Image)
		}
	}
	slices.SortFunc(out, func(a, b Image) int { return cmp.Compare(a.Dir, b.Dir) })
	return out
}

// Versioned lists the names a manifest may pin a version of, sorted: those of a Go library,
// built for the pin (internal/cellimage.BuildGoAdapter), and of an image that installs one.
func Versioned() []string {
	var out []string
	for n, e := range byName {
		if d := descriptors[e.i]; d.Module != "" || d.Image.VersionArg != "" {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// Names lists every name a manifest may use, built in or contained, sorted.
func Names() []string { return slices.Sorted(maps.Keys(byName)) }

// AgentNames lists the agents, sorted.
func AgentNames() []string {
	var names []string
	for _, n := range Names() {
		if IsAgent(n) {
			names = append(names, n)
		}
	}
	return names
}

// IsAgent says whether the client named is an agent (its observation carries the model's view
// and an answer, graded by grade.Agent) rather than an SDK-level client.
func IsAgent(name string) bool {
	d, _, ok := Lookup(name)
	return ok && d.Agent
}
