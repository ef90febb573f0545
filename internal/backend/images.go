package backend

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing/fstest"
	"text/template"
	"time"

	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/volume"

	"github.com/toolscore/toolscore/internal/client"
)

//go:embed images
var imageFiles embed.FS

// The Dockerfile of a client folder (internal/client/clients) that brings none, one per
// runtime: the folder says its package, the template how its runtime installs it.
//
//go:embed templates
var templates embed.FS

// ImageSpec is an image toolscore builds: an embedded Dockerfile directory, extra context
// files, build arguments, and whether the build must reach package registries.
type ImageSpec struct {
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

// context returns the build context's files, Dockerfile first in the hash so its changes count.
func (s ImageSpec) context() (map[string][]byte, error) {
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
func (s ImageSpec) Base() string {
	if b := s.Args["BASE_IMAGE"]; b != "" {
		return b
	}
	files, _ := s.context()
	if m := baseArg.FindSubmatch(files["Dockerfile"]); m != nil {
		return string(m[1])
	}
	return ""
}

// Tag is the image's tag: its name and a hash of every input, so an image is rebuilt exactly
// when something that goes into it changes.
func (s ImageSpec) Tag() (string, error) {
	files, err := s.context()
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

// EnsureImage returns the image's tag, building it through the API unless an image with that
// tag (that is, those inputs) already exists. Build output goes to log.
func (d *Docker) EnsureImage(ctx context.Context, s ImageSpec, log io.Writer) (string, bool, error) {
	tag, err := s.Tag()
	if err != nil {
		return "", false, err
	}
	have, err := d.api.ImageList(ctx, image.ListOptions{Filters: filters.NewArgs(filters.Arg("reference", tag))})
	if err != nil {
		return "", false, fmt.Errorf("listing images: %w", err)
	}
	if len(have) > 0 {
		d.noteWorkdir(tag, have[0].Labels)
		return tag, false, nil
	}
	files, _ := s.context()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, name := range sortedNames(files) {
		mode := int64(0o644)
		if name == "toolscore" || name == "goadapter" || s.Exec[name] {
			mode = 0o755
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: mode, Size: int64(len(files[name])), Typeflag: tar.TypeReg}); err != nil {
			return "", false, err
		}
		tw.Write(files[name])
	}
	if err := tw.Close(); err != nil {
		return "", false, err
	}
	args := map[string]*string{}
	for k, v := range s.Args {
		args[k] = &v
	}
	opts := build.ImageBuildOptions{
		Tags: []string{tag}, BuildArgs: args, Remove: true, ForceRemove: true,
		Labels: map[string]string{LabelMarker: "1", LabelInputs: tag},
	}
	if s.Network {
		opts.NetworkMode = "host"
	}
	resp, err := d.api.ImageBuild(ctx, &buf, opts)
	if err != nil {
		return "", false, fmt.Errorf("building %s: %w", tag, err)
	}
	defer resp.Body.Close()
	// The build reports progress and failure as a stream of JSON messages.
	dec := json.NewDecoder(resp.Body)
	for {
		var m struct {
			Stream string `json:"stream"`
			Error  string `json:"error"`
		}
		if err := dec.Decode(&m); err == io.EOF {
			break
		} else if err != nil {
			return "", false, fmt.Errorf("reading the build of %s: %w", tag, err)
		}
		if m.Error != "" {
			return "", false, fmt.Errorf("building %s: %s", tag, strings.TrimSpace(m.Error))
		}
		if log != nil && m.Stream != "" {
			io.WriteString(log, m.Stream)
		}
	}
	if have, err := d.api.ImageList(ctx, image.ListOptions{Filters: filters.NewArgs(filters.Arg("reference", tag))}); err == nil && len(have) > 0 {
		d.noteWorkdir(tag, have[0].Labels)
	}
	return tag, true, nil
}

// LabelWorkdir marks an image whose run work directory already belongs to the cell user.
const LabelWorkdir = "io.toolscore.workdir"

// noteWorkdir remembers whether the image tag has the run's work directory made for the cell
// user, so its runs without input files skip the copy-in.
func (d *Docker) noteWorkdir(tag string, labels map[string]string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.workdir == nil {
		d.workdir = map[string]string{}
	}
	d.workdir[tag] = labels[LabelWorkdir]
}

// BuiltinImage is the cell image of the built-in clients: the static binary on BASE_IMAGE.
func BuiltinImage(binary []byte, baseImage string) ImageSpec {
	s := ImageSpec{Name: "builtin", Extra: map[string][]byte{"toolscore": binary}, Args: map[string]string{}}
	if baseImage != "" {
		s.Args["BASE_IMAGE"] = baseImage
	}
	return s
}

// ClientImage is the cell image of a contained client (internal/client.Image): its library (or
// agent CLI) installed on a node or python base, the static toolscore binary layered on. version,
// when set, installs that version of the library or CLI instead of the pinned one. The base
// image is replaced by the one im.BaseEnv names when that is set (CI without a registry).
func ClientImage(im client.Image, binary []byte, version string) (ImageSpec, error) {
	s := ImageSpec{Name: im.Dir, Extra: map[string][]byte{"toolscore": binary}, Args: map[string]string{}, Network: true}
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

// ReadyImage is the cell image of a client whose image the manifest names: that image, with the
// static binary layered on. id is the ready image's id when it is here already (see ImageID),
// so the cell image follows the tag when it moves.
func ReadyImage(ref, id string, binary []byte) ImageSpec {
	return ImageSpec{Name: "ready", Extra: map[string][]byte{"toolscore": binary}, Args: map[string]string{"BASE_IMAGE": ref, "IMAGE_ID": id}}
}

// InstallImage layers a command server's install step on a client's cell image (base, one of
// ours, named by the hash of its inputs, so this one is cached by hash too).
func InstallImage(base, install string) ImageSpec {
	return ImageSpec{Name: "install", Args: map[string]string{"BASE_IMAGE": base, "INSTALL": install}, Network: true}
}

// ImageID is the id of the image ref names on this engine, or "" when it is not here (a build
// from it pulls it).
func (d *Docker) ImageID(ctx context.Context, ref string) (string, error) {
	have, err := d.api.ImageList(ctx, image.ListOptions{Filters: filters.NewArgs(filters.Arg("reference", ref))})
	if err != nil {
		return "", fmt.Errorf("looking for image %s: %w", ref, err)
	}
	if len(have) == 0 {
		return "", nil
	}
	return have[0].ID, nil
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

// Sweep removes containers and volumes of ours that outlived their sweep: those past their
// deadline, and those whose owning process on this host is gone. With all, it removes every one
// of ours (toolscore clean). It returns how many it removed.
func (d *Docker) Sweep(ctx context.Context, all bool) (int, error) {
	cs, err := d.api.ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("label", LabelMarker+"=1"))})
	if err != nil {
		return 0, fmt.Errorf("listing containers: %w", err)
	}
	n := 0
	for _, c := range cs {
		if all || d.leftover(c.Labels) {
			if err := d.api.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true}); err == nil {
				n++
			}
		}
	}
	vs, err := d.api.VolumeList(ctx, volume.ListOptions{Filters: filters.NewArgs(filters.Arg("label", LabelMarker+"=1"))})
	if err != nil {
		return n, fmt.Errorf("listing volumes: %w", err)
	}
	for _, v := range vs.Volumes {
		if all || d.leftover(v.Labels) {
			if err := d.api.VolumeRemove(ctx, v.Name, true); err == nil {
				n++
			}
		}
	}
	return n, nil
}

// leftover says whether something labelled by a sweep belongs to a sweep that is over: past its
// deadline, or made by an owner this process can see is gone. An owner it cannot judge (of
// another machine, boot or PID namespace, or an older label that does not say) may still be
// running, so its things are left until their deadline.
func (d *Docker) leftover(labels map[string]string) bool {
	if labels[LabelSession] == d.session {
		return false
	}
	if dl, err := strconv.ParseInt(labels[LabelDeadline], 10, 64); err == nil && time.Now().Unix() > dl {
		return true
	}
	o, err := ParseOwner(labels[LabelOwner])
	if err != nil {
		return false
	}
	gone, known := o.Gone()
	return known && gone
}

// RemoveMine removes the containers of this sweep still there (none, when every run cleaned up
// after itself) and says how many there were.
func (d *Docker) RemoveMine(ctx context.Context) (int, error) {
	cs, err := d.api.ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("label", LabelSession+"="+d.session))})
	if err != nil {
		return 0, err
	}
	for _, c := range cs {
		_ = d.api.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
	}
	return len(cs), nil
}

// ImageInfo is one of our images.
type ImageInfo struct {
	Tag     string
	ID      string
	Size    int64
	Created time.Time
}

// ListImages lists the images toolscore built.
func (d *Docker) ListImages(ctx context.Context) ([]ImageInfo, error) {
	ims, err := d.api.ImageList(ctx, image.ListOptions{Filters: filters.NewArgs(filters.Arg("label", LabelMarker+"=1"))})
	if err != nil {
		return nil, fmt.Errorf("listing images: %w", err)
	}
	var out []ImageInfo
	for _, im := range ims {
		tag := "<none>"
		if len(im.RepoTags) > 0 {
			tag = im.RepoTags[0]
		}
		out = append(out, ImageInfo{Tag: tag, ID: im.ID, Size: im.Size, Created: time.Unix(im.Created, 0)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tag < out[j].Tag })
	return out, nil
}

// PruneImages removes our images except those tagged keep.
func (d *Docker) PruneImages(ctx context.Context, keep ...string) (int, error) {
	ims, err := d.ListImages(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, im := range ims {
		if contains(keep, im.Tag) {
			continue
		}
		if _, err := d.api.ImageRemove(ctx, im.ID, image.RemoveOptions{Force: true, PruneChildren: true}); err == nil {
			n++
		}
	}
	return n, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
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
// when no manifest names one (its VersionArg's default), "" when it pins by lockfile instead.
func DefaultVersion(im client.Image) string {
	if im.VersionArg == "" || im.Folder != nil { // a client folder pins by lockfile
		return ""
	}
	dockerfile, _ := imageFiles.ReadFile("images/" + im.Dir + "/Dockerfile")
	m := regexp.MustCompile(`(?m)^ARG ` + regexp.QuoteMeta(im.VersionArg) + `=(\S+)`).FindSubmatch(dockerfile)
	if m == nil {
		return ""
	}
	return string(m[1])
}
