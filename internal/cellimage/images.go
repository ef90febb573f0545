package cellimage

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"sort"
	"testing/fstest"
	"text/template"

	"github.com/toolscore/toolscore/internal/client"
)

//go:embed images
var imageFiles embed.FS

// The Dockerfile of a client folder (internal/client/clients) that brings none, one per
// runtime: the folder says its package, the template how its runtime installs it.
//
//go:embed templates
var templates embed.FS

// Spec is an image toolscore builds: an embedded Dockerfile directory, extra context
// files, build arguments, and whether the build must reach package registries.
type Spec struct {
	Name    string // the directory under images/, and the image's name
	Extra   map[string][]byte
	Args    map[string]string
	Network bool // build network "host", for builds that fetch packages
	// Exec names the context files that are executable (a defined client's own programs).
	Exec map[string]bool
	// Files is the image's directory when it is not images/Name of this package (a client
	// folder's files, its Dockerfile among them).
	Files fs.FS
}

// Context returns the build context's files, Dockerfile first in the hash so its changes count.
func (s Spec) Context() (map[string][]byte, error) {
	files := map[string][]byte{}
	dir := s.Files
	if dir == nil {
		dir, _ = fs.Sub(imageFiles, "images/"+s.Name)
	}
	entries, err := fs.ReadDir(dir, ".")
	if err != nil {
		return nil, fmt.Errorf("no embedded image %q: %w", s.Name, err)
	}
	for _, e := range entries {
		b, err := fs.ReadFile(dir, e.Name())
		if err != nil {
			return nil, err
		}
		files[e.Name()] = b
	}
	for k, v := range s.Extra {
		files[k] = v
	}
	// What a Dockerfile copies (with --chown) to make the run's work directory in the image.
	files["workdir/.cell"] = nil
	return files, nil
}

// baseArg is a Dockerfile's BASE_IMAGE argument with its default.
var baseArg = regexp.MustCompile(`(?m)^ARG BASE_IMAGE=(\S+)`)

// Base is the image the spec builds on: its BASE_IMAGE build argument, or else the default its
// Dockerfile gives ("" when it gives none).
func (s Spec) Base() string {
	if b := s.Args["BASE_IMAGE"]; b != "" {
		return b
	}
	files, _ := s.Context()
	if m := baseArg.FindSubmatch(files["Dockerfile"]); m != nil {
		return string(m[1])
	}
	return ""
}

// Tag is the image's tag: its name and a hash of every input, so an image is rebuilt exactly
// when something that goes into it changes.
func (s Spec) Tag() (string, error) {
	files, err := s.Context()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, name := range sortedNames(files) {
		fmt.Fprintf(h, "file %s %d\n", name, len(files[name]))
		h.Write(files[name])
	}
	args := make([]string, 0, len(s.Args))
	for k, v := range s.Args {
		args = append(args, k+"="+v)
	}
	sort.Strings(args)
	fmt.Fprintf(h, "args %q\n", args)
	if len(s.Exec) > 0 {
		var exec []string
		for name := range s.Exec {
			exec = append(exec, name)
		}
		sort.Strings(exec)
		fmt.Fprintf(h, "exec %q\n", exec)
	}
	return "toolscore/cell-" + s.Name + ":" + hex.EncodeToString(h.Sum(nil))[:16], nil
}

func sortedNames(m map[string][]byte) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Builtin is the cell image of the built-in clients: the static binary on BASE_IMAGE.
func Builtin(binary []byte, baseImage string) Spec {
	s := Spec{Name: "builtin", Extra: map[string][]byte{"toolscore": binary}, Args: map[string]string{}}
	if baseImage != "" {
		s.Args["BASE_IMAGE"] = baseImage
	}
	return s
}

// Client is the cell image of a contained client (internal/client.Image): its library (or
// agent CLI) installed on a node or python base, the static toolscore binary layered on. version,
// when set, installs that version of the library or CLI instead of the pinned one. The base
// image is replaced by the one im.BaseEnv names when that is set (CI without a registry).
func Client(im client.Image, binary []byte, version string) (Spec, error) {
	s := Spec{Name: im.Dir, Extra: map[string][]byte{"toolscore": binary}, Args: map[string]string{}, Network: true}
	if im.Folder != nil {
		files, err := FolderFiles(im)
		if err != nil {
			return s, err
		}
		s.Files = files
	} else if _, err := fs.Stat(imageFiles, "images/"+im.Dir+"/Dockerfile"); im.Dir == "" || err != nil {
		return s, fmt.Errorf("no cell image %q", im.Dir)
	}
	for _, f := range im.Borrow {
		b, err := imageFiles.ReadFile("images/" + f)
		if err != nil {
			return s, fmt.Errorf("cell image %s borrows %s: %w", im.Dir, f, err)
		}
		s.Extra[path.Base(f)] = b
	}
	if base := os.Getenv(im.BaseEnv); im.BaseEnv != "" && base != "" {
		s.Args["BASE_IMAGE"] = base
	}
	for arg, env := range im.ArgEnv {
		if v := os.Getenv(env); v != "" {
			s.Args[arg] = v
		}
	}
	if version != "" {
		if im.VersionArg == "" {
			return s, fmt.Errorf("cell image %s installs no other version than its own (no version argument)", im.Dir)
		}
		s.Args[im.VersionArg] = version
	}
	return s, nil
}

// Ready is the cell image of a client whose image the manifest names: that image, with the
// static binary layered on. id is the ready image's id when it is here already (see ImageID),
// so the cell image follows the tag when it moves.
func Ready(ref, id string, binary []byte) Spec {
	return Spec{Name: "ready", Extra: map[string][]byte{"toolscore": binary}, Args: map[string]string{"BASE_IMAGE": ref, "IMAGE_ID": id}}
}

// Install layers a command server's install step on a client's cell image (base, one of
// ours, named by the hash of its inputs, so this one is cached by hash too).
func Install(base, install string) Spec {
	return Spec{Name: "install", Args: map[string]string{"BASE_IMAGE": base, "INSTALL": install}, Network: true}
}

// StaticBinary reads the toolscore binary at path, and refuses one that needs a dynamic loader:
// a cell image need not have the host's libc.
func StaticBinary(path string) ([]byte, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the toolscore binary %s: %w", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return nil, fmt.Errorf("%s is dynamically linked; build it with CGO_ENABLED=0 to run cells in containers", path)
		}
	}
	return os.ReadFile(path)
}

// FolderFiles is the image directory of a client folder: its files, with its runtime's
// template rendered as its Dockerfile unless it brings its own.
func FolderFiles(im client.Image) (fs.FS, error) {
	f := im.Folder
	if f.HasDockerfile() {
		return f.Files, nil
	}
	t, err := template.ParseFS(templates, "templates/"+f.Runtime+".Dockerfile")
	if err != nil {
		return nil, fmt.Errorf("client %s: no Dockerfile template for its runtime %q: %w", im.Dir, f.Runtime, err)
	}
	var dockerfile bytes.Buffer
	if err := t.Execute(&dockerfile, map[string]string{"Name": im.Dir, "Package": f.Package, "Requirement": f.Requirement}); err != nil {
		return nil, fmt.Errorf("client %s: rendering its Dockerfile: %w", im.Dir, err)
	}
	files := fstest.MapFS{"Dockerfile": &fstest.MapFile{Data: dockerfile.Bytes(), Mode: 0o644}}
	err = fs.WalkDir(f.Files, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := fs.ReadFile(f.Files, p)
		files[p] = &fstest.MapFile{Data: b, Mode: 0o644}
		return err
	})
	return files, err
}

// ImageFS is the files of a contained client's image directory and those it borrows: what the
// local backend installs the client from (internal/install), the same adapter and lockfiles.
func ImageFS(im client.Image) (fs.FS, error) {
	files := fstest.MapFS{}
	if im.Folder != nil {
		err := fs.WalkDir(im.Folder.Files, ".", func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || p == "Dockerfile" {
				return err
			}
			b, err := fs.ReadFile(im.Folder.Files, p)
			files[p] = &fstest.MapFile{Data: b, Mode: 0o644}
			return err
		})
		return files, err
	}
	entries, err := imageFiles.ReadDir("images/" + im.Dir)
	if err != nil {
		return nil, fmt.Errorf("no embedded image %q: %w", im.Dir, err)
	}
	for _, e := range entries {
		if e.Name() == "Dockerfile" {
			continue
		}
		b, _ := imageFiles.ReadFile("images/" + im.Dir + "/" + e.Name())
		files[e.Name()] = &fstest.MapFile{Data: b, Mode: 0o644}
	}
	for _, f := range im.Borrow {
		b, err := imageFiles.ReadFile("images/" + f)
		if err != nil {
			return nil, fmt.Errorf("image %q borrows %s: %w", im.Dir, f, err)
		}
		files[path.Base(f)] = &fstest.MapFile{Data: b, Mode: 0o644}
	}
	return files, nil
}

// DefaultVersion is the version of its library or CLI a contained client's Dockerfile installs
// when no manifest names one (its VersionArg's default, as an agent's pins its CLI), "" when it
// pins by lockfile instead.
func DefaultVersion(im client.Image) string {
	if im.VersionArg == "" {
		return ""
	}
	// A client folder's own Dockerfile, else its directory's here; a folder rendered from its
	// runtime's template, or whose Dockerfile leaves the argument empty, pins by lockfile.
	var dockerfile []byte
	if im.Folder != nil {
		dockerfile, _ = fs.ReadFile(im.Folder.Files, "Dockerfile")
	} else {
		dockerfile, _ = imageFiles.ReadFile("images/" + im.Dir + "/Dockerfile")
	}
	m := regexp.MustCompile(`(?m)^ARG ` + regexp.QuoteMeta(im.VersionArg) + `=(\S+)`).FindSubmatch(dockerfile)
	if m == nil {
		return ""
	}
	return string(m[1])
}
