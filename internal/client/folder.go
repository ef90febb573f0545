package client

import (
	"bytes"
	"cmp"
	"context"
	"embed"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing/fstest"

	"github.com/goccy/go-yaml"

	"github.com/toolscore/toolscore/internal/install"
	"github.com/toolscore/toolscore/record"
)

// The clients whose adapter runs in an image of their own language (an SDK or framework of
// node, python, java or rust) are each a folder of clients/: client.yaml (FolderSpec), the adapter
// and its lockfiles, and doc.md, the client's section of docs/clients.md. Adding one is adding a
// folder: nothing else names it. An agent CLI is a folder too (agent: true), its Dockerfile
// pinning the CLI, but its adapter is Go: internal/agent registers it (AgentFolder).
//
//go:embed clients
var builtinFolders embed.FS

// agentFolders are the agent folders read, by name, for internal/agent to register.
var agentFolders = map[string]Descriptor{}

func init() {
	sub, err := fs.Sub(builtinFolders, "clients")
	if err != nil {
		panic(err)
	}
	ds, err := ReadFolders(sub)
	if err != nil {
		panic(fmt.Sprintf("internal/client/clients: %v", err))
	}
	for _, d := range ds {
		if d.Agent {
			agentFolders[d.Name] = d
			continue
		}
		Register(d)
	}
}

// AgentFolder is the descriptor the agent folder name describes, with run, its adapter in Go
// (toolscore agent NAME), for internal/agent to register. It panics when there is no such
// folder, as Register does on a mistake, so a misnamed agent stops every test at once.
func AgentFolder(name string, run func(ctx context.Context, r Request, path string) (*record.Observation, error)) Descriptor {
	d, ok := agentFolders[name]
	if !ok {
		panic(fmt.Sprintf("client.AgentFolder(%q): no agent folder internal/client/clients/%s", name, name))
	}
	d.Run = run
	return d
}

// AgentFolders lists the agent folders' names, sorted, registered or not.
func AgentFolders() []string { return slices.Sorted(maps.Keys(agentFolders)) }

// Folder is a client read from a folder of internal/client/clients: what its cell image and
// its local install are made from.
type Folder struct {
	// Files are the files the image and the install take: the adapter, its lockfiles, the
	// files it borrows from another folder, and a Dockerfile of its own if it has one (without
	// one, internal/backend renders its runtime's template); never client.yaml or doc.md.
	Files fs.FS
	// Runtime is install.Node, install.Python, install.Java or install.Rust.
	Runtime string
	// Package is the package of its registry (npm, PyPI, Maven group:artifact, a crate) the
	// lockfile pins and a manifest's version pin installs.
	Package string
	// Requirement is what pip installs at a version pin: Package, or Package with its extras.
	Requirement string
}

// Registry is the package registry of the folder's runtime, as toolscore version names it.
func (f *Folder) Registry() string {
	switch f.Runtime {
	case install.Python:
		return "PyPI"
	case install.Java:
		return "Maven"
	case install.Rust:
		return "crates.io"
	}
	return "npm"
}

// HasDockerfile says whether the folder brings its own Dockerfile instead of its runtime's
// template (a multi-stage build: the Java and Rust clients, each alone of its runtime).
func (f *Folder) HasDockerfile() bool {
	_, err := fs.Stat(f.Files, "Dockerfile")
	return err == nil
}

// FolderSpec is a folder's client.yaml. The folder's name is the client's name.
type FolderSpec struct {
	// Paths are the names under the client (ts-sdk/call); none, the client's name alone.
	Paths []string `yaml:"paths"`
	// Runtime is node, python, java or rust.
	Runtime string `yaml:"runtime"`
	// Package is what the lockfile pins and a version pin installs.
	Package string `yaml:"package"`
	// Requirement is what pip installs at a version pin, when not Package (extras).
	Requirement string `yaml:"requirement"`
	// Agent marks an agent CLI: its folder's Dockerfile installs the CLI at VersionArg, its
	// adapter is Go (internal/agent), and KeyEnv holds its vendor's key for a real model.
	Agent      bool   `yaml:"agent"`
	KeyEnv     string `yaml:"key_env"`
	VersionArg string `yaml:"version_arg"`
	// Does says in one line what the adapter does, for the table of docs/clients.md.
	Does string `yaml:"does"`
	// Downloads is the registry's figure of its downloads and when, for that table.
	Downloads string `yaml:"downloads"`
	// Borrow names files of other folders the client takes too, as FOLDER/FILE.
	Borrow []string `yaml:"borrow"`
	// Command starts the adapter in the image, the path appended; node and python have one.
	Command []string `yaml:"command"`
	// BaseEnv and ArgEnv, as Image's; BaseEnv defaults to the runtime's base variable.
	BaseEnv string            `yaml:"base_env"`
	ArgEnv  map[string]string `yaml:"arg_env"`
	// Local is how the client installs on this machine; node and python have one, an agent's
	// steps install its CLI at {version} and Env tells toolscore agent NAME where it is.
	Local *struct {
		Steps   []string `yaml:"steps"`
		Pinned  []string `yaml:"pinned"`
		Command []string `yaml:"command"`
		Env     []string `yaml:"env"`
	} `yaml:"local"`
}

// FolderVersionArg is the build argument that installs a manifest's version in the image of
// every client folder but an agent's (its version_arg, which its Dockerfile pins the CLI by).
const FolderVersionArg = "SDK_VERSION"

// packageName is a package name a Dockerfile and a shell can take as they are.
var packageName = regexp.MustCompile(`^[@A-Za-z0-9][@A-Za-z0-9._/:\[\],-]*$`)

// ReadFolders reads every client folder of root (internal/client/clients, or a copy of it),
// sorted by name.
func ReadFolders(root fs.FS) ([]Descriptor, error) {
	entries, err := fs.ReadDir(root, ".")
	if err != nil {
		return nil, err
	}
	var out []Descriptor
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		d, err := ReadFolder(root, e.Name())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		out = append(out, d)
	}
	return out, nil
}

// ReadFolder reads the client folder name of root into its descriptor.
func ReadFolder(root fs.FS, name string) (Descriptor, error) {
	raw, err := fs.ReadFile(root, name+"/client.yaml")
	if err != nil {
		return Descriptor{}, err
	}
	var s FolderSpec
	if err := yaml.UnmarshalWithOptions(raw, &s, yaml.Strict()); err != nil {
		return Descriptor{}, fmt.Errorf("client.yaml: %w", err)
	}
	doc, err := fs.ReadFile(root, name+"/doc.md")
	if err != nil {
		return Descriptor{}, fmt.Errorf("its section of docs/clients.md: %w", err)
	}
	if !packageName.MatchString(s.Package) || (s.Requirement != "" && !packageName.MatchString(s.Requirement)) {
		return Descriptor{}, fmt.Errorf("client.yaml: package %q or requirement %q is not a package name", s.Package, s.Requirement)
	}
	if s.Does == "" {
		return Descriptor{}, fmt.Errorf("client.yaml says nothing in does: about what the adapter does")
	}
	files := fstest.MapFS{}
	err = fs.WalkDir(root, name, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel := strings.TrimPrefix(p, name+"/")
		if rel == "client.yaml" || rel == "doc.md" {
			return nil
		}
		b, err := fs.ReadFile(root, p)
		files[rel] = &fstest.MapFile{Data: b, Mode: 0o644}
		return err
	})
	if err != nil {
		return Descriptor{}, err
	}
	for _, b := range s.Borrow {
		data, err := fs.ReadFile(root, b)
		if err != nil {
			return Descriptor{}, fmt.Errorf("borrowing %s: %w", b, err)
		}
		files[path.Base(b)] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	f := &Folder{Files: files, Runtime: s.Runtime, Package: s.Package, Requirement: s.Requirement}
	if f.Requirement == "" {
		f.Requirement = f.Package
	}
	d := Descriptor{Name: name, Paths: s.Paths, Does: s.Does, Downloads: s.Downloads, Doc: string(bytes.TrimSpace(doc)) + "\n",
		Image:   Image{Dir: name, BaseEnv: s.BaseEnv, ArgEnv: s.ArgEnv, VersionArg: FolderVersionArg, Folder: f},
		Command: s.Command}
	if s.Agent {
		return agentFolder(d, s)
	}
	if s.KeyEnv != "" || s.VersionArg != "" {
		return d, fmt.Errorf("client.yaml: key_env and version_arg are an agent's (agent: true)")
	}
	// The install's files are the image's, less a Dockerfile (internal/cellimage.ImageFS).
	local := &Local{Recipe: install.Recipe{Runtime: s.Runtime}}
	switch s.Runtime {
	case install.Node:
		d.Image.BaseEnv = cmp.Or(d.Image.BaseEnv, "TOOLSCORE_NODE_IMAGE")
		d.Command = orArgv(d.Command, []string{"node", "/opt/adapter/adapter.mjs"})
		local.Steps = []string{"npm ci --no-audit --no-fund --omit=dev"}
		local.Pinned = []string{"npm install --no-audit --no-fund --omit=dev " + s.Package + "@{version}"}
		local.Command = []string{"node", "./adapter.mjs"}
		local.Env = []string{"TOOLSCORE_TS_PACKAGE=" + s.Package}
	case install.Python:
		d.Image.BaseEnv = cmp.Or(d.Image.BaseEnv, "TOOLSCORE_PYTHON_IMAGE")
		d.Command = orArgv(d.Command, []string{"/opt/adapter/venv/bin/python", "/opt/adapter/adapter.py"})
		local.Steps = []string{"pip install -q -r requirements.txt"}
		local.Pinned = []string{`pip install -q "` + f.Requirement + `=={version}"`}
		local.Command = []string{"./venv/bin/python", "./adapter.py"}
	case install.Java:
		d.Image.BaseEnv = cmp.Or(d.Image.BaseEnv, "TOOLSCORE_JAVA_IMAGE")
	case install.Rust:
		if d.Image.BaseEnv == "" {
			return d, fmt.Errorf("client.yaml: a rust client names the base image's variable (base_env)")
		}
	default:
		return d, fmt.Errorf("client.yaml: runtime %q is none of node, python, java, rust", s.Runtime)
	}
	if s.Local != nil {
		local.Steps, local.Pinned, local.Command, local.Env = s.Local.Steps, s.Local.Pinned, s.Local.Command, s.Local.Env
	}
	if len(local.Steps) == 0 || len(local.Command) == 0 || len(d.Command) == 0 {
		return d, fmt.Errorf("client.yaml: a %s client says how it installs (local: steps, command) and starts in its image (command)", s.Runtime)
	}
	if _, err := fs.Stat(files, "Dockerfile"); err != nil && s.Runtime != install.Node && s.Runtime != install.Python {
		return d, fmt.Errorf("a %s client brings its own Dockerfile (only node and python have a template)", s.Runtime)
	}
	d.Local = local
	return d, nil
}

// agentFolder completes the descriptor of an agent folder: its own Dockerfile installs the CLI
// at the version its build argument pins, the cell starts toolscore agent NAME, and the local
// backend installs the CLI by the folder's steps and runs the same adapter.
func agentFolder(d Descriptor, s FolderSpec) (Descriptor, error) {
	d.Agent, d.KeyEnv = true, s.KeyEnv
	d.Image.VersionArg = s.VersionArg
	d.Command = orArgv(s.Command, []string{"/opt/toolscore/toolscore", "agent", d.Name})
	if len(s.Paths) > 0 || len(s.Borrow) > 0 {
		return d, fmt.Errorf("client.yaml: an agent has no paths and borrows nothing")
	}
	if s.KeyEnv == "" || s.VersionArg == "" {
		return d, fmt.Errorf("client.yaml: an agent names its vendor's key variable (key_env) and the build argument its Dockerfile pins the CLI by (version_arg)")
	}
	if !d.Image.Folder.HasDockerfile() {
		return d, fmt.Errorf("an agent brings its own Dockerfile, which installs its CLI")
	}
	if s.Runtime == install.Node {
		d.Image.BaseEnv = cmp.Or(d.Image.BaseEnv, "TOOLSCORE_NODE_IMAGE")
	}
	if d.Image.BaseEnv == "" {
		return d, fmt.Errorf("client.yaml: an agent of runtime %q names the base image's variable (base_env)", s.Runtime)
	}
	if s.Local == nil || len(s.Local.Steps) == 0 || len(s.Local.Pinned) > 0 {
		return d, fmt.Errorf("client.yaml: an agent says how its CLI installs at {version} (local: steps)")
	}
	// No command: the local backend runs toolscore agent NAME, which finds the CLI by Env.
	d.Local = &Local{Recipe: install.Recipe{Runtime: s.Runtime, Steps: s.Local.Steps}, Command: s.Local.Command, Env: s.Local.Env}
	return d, nil
}

// orArgv is argv, or def when there is none.
func orArgv(argv, def []string) []string {
	if len(argv) == 0 {
		return def
	}
	return argv
}
