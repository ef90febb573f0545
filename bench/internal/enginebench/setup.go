package enginebench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"

	"github.com/toolscore/toolscore/internal/cellimage"
)

// DefaultHost is the engine this repository's scripts/dockerd.sh starts.
const DefaultHost = "unix:///tmp/toolscore-dockerd/docker.sock"

// Connect connects to the engine as the docker backend does (DOCKER_HOST, API version
// negotiation), setting DOCKER_HOST to DefaultHost when it is unset so that the sweeps the
// benchmark starts use the same engine, and asks the engine's version (for the header line),
// failing early when no engine answers within 5 s. The caller closes the client.
func Connect(ctx context.Context) (*client.Client, types.Version, error) {
	if os.Getenv("DOCKER_HOST") == "" {
		os.Setenv("DOCKER_HOST", DefaultHost)
	}
	api, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, types.Version{}, fmt.Errorf("docker client: %w", err)
	}
	pctx, pcancel := context.WithTimeout(ctx, 5*time.Second)
	sv, err := api.ServerVersion(pctx)
	pcancel()
	if err != nil {
		err = fmt.Errorf("no Docker engine answered at %s (start one with scripts/dockerd.sh): %w", api.DaemonHost(), err)
		api.Close()
		return nil, types.Version{}, err
	}
	return api, sv, nil
}

// BaseImages are the variables naming the base images the cell images are built on, with the
// tags they default to. A benchmark expects them already built on the engine: it never pulls
// or removes them.
var BaseImages = [][2]string{
	{"TOOLSCORE_NODE_IMAGE", "toolscore/base-node:bookworm"},
	{"TOOLSCORE_PYTHON_IMAGE", "toolscore/base-python:bookworm"},
	{"TOOLSCORE_JAVA_IMAGE", "toolscore/base-java:bookworm"},
	{"TOOLSCORE_RUST_IMAGE", "toolscore/rust:bookworm"},
}

// DefaultBaseImages sets each variable of BaseImages that is unset to its default, so that the
// benchmark and the toolscore commands it starts build on the same bases.
func DefaultBaseImages() {
	for _, kv := range BaseImages {
		if os.Getenv(kv[0]) == "" {
			os.Setenv(kv[0], kv[1])
		}
	}
}

// DescribeBases is "VAR=tag (short id), ..." for the base images the variables of bases name,
// for the header; an error when the engine does not have one, since it is not pulled here.
func DescribeBases(ctx context.Context, api *client.Client, bases [][2]string) (string, error) {
	var out []string
	for _, kv := range bases {
		ins, err := api.ImageInspect(ctx, os.Getenv(kv[0]))
		if err != nil {
			return "", fmt.Errorf("the base image %s=%s is not on the engine (it is not pulled here): %w", kv[0], os.Getenv(kv[0]), err)
		}
		out = append(out, fmt.Sprintf("%s=%s (%s)", kv[0], os.Getenv(kv[0]), ShortID(ins.ID)))
	}
	return strings.Join(out, ", "), nil
}

// CommandLine is how the program was invoked, for the first line of its output, with go run's
// temporary binary named as the package it was built from (pkg, e.g. "./bench/imagebench").
func CommandLine(pkg string) string {
	name := os.Args[0]
	if strings.Contains(name, "go-build") {
		name = "go run " + pkg
	}
	return strings.Join(append([]string{name}, os.Args[1:]...), " ")
}

// TempDir makes the benchmark's temporary directory ($TMP in what it prints), with symlinks
// resolved so that the paths it hands on and compares are one, and says so when it is kept;
// cleanup removes it unless keep.
func TempDir(prefix string, keep bool) (dir string, cleanup func(), err error) {
	if dir, err = os.MkdirTemp("", prefix); err != nil {
		return "", nil, err
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return "", nil, err
	}
	if keep {
		fmt.Printf("temporary directory (kept): %s\n", dir)
		return dir, func() {}, nil
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// ModuleRoot is the directory of the module the go command is run in (go env GOMOD), where
// ./cmd/toolscore is built from.
func ModuleRoot(ctx context.Context) (string, error) {
	gomod, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	return filepath.Dir(strings.TrimSpace(string(gomod))), nil
}

// BuildToolscore compiles the static toolscore binary of the module at root into dir/name
// (CGO_ENABLED=0, as the cell images need it), with main.version set when version is not
// empty, checks that it is static, and prints the command and the binary's version line.
func BuildToolscore(ctx context.Context, root, dir, name, version string) (string, error) {
	out := filepath.Join(dir, name)
	args := []string{"build"}
	if version != "" {
		args = append(args, "-ldflags=-X main.version="+version)
	}
	args = append(args, "-o", out, "./cmd/toolscore")
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	shown := "CGO_ENABLED=0 go " + strings.Join(args, " ")
	shown = strings.Replace(shown, out, "$TMP/"+name, 1)
	if o, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s: %w\n%s", shown, err, o)
	}
	if _, err := cellimage.StaticBinary(out); err != nil {
		return "", err
	}
	v, err := exec.CommandContext(ctx, out, "version").Output()
	if err != nil {
		return "", fmt.Errorf("%s version: %w", out, err)
	}
	fmt.Printf("built: (cd %s && %s): %s\n", root, shown, strings.TrimSpace(string(v)))
	return out, nil
}

// RemoveImages removes the image tags given, which must be tags the benchmark built itself,
// each with PruneChildren so that only their own layers go (those below are shared with images
// that stay). It returns how many are gone (a tag already gone counts) and what could not be
// removed.
func RemoveImages(api *client.Client, tags []string) (removed int, errs []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, t := range tags {
		if _, err := api.ImageRemove(ctx, t, image.RemoveOptions{PruneChildren: true}); err != nil && !client.IsErrNotFound(err) {
			errs = append(errs, fmt.Sprintf("%s: %v", t, err))
			continue
		}
		removed++
	}
	return removed, errs
}

// Toolscore is the toolscore binary a benchmark runs, at dir/toolscore: bin copied there when
// given (so that what the benchmark prints names $TMP/toolscore whatever was given), else built
// from the module the go command is run in by BuildToolscore; static either way, as users build
// it and as a cell image needs it.
func Toolscore(ctx context.Context, dir, bin string) (string, error) {
	if bin == "" {
		root, err := ModuleRoot(ctx)
		if err != nil {
			return "", err
		}
		return BuildToolscore(ctx, root, dir, "toolscore", "")
	}
	if _, err := cellimage.StaticBinary(bin); err != nil {
		return "", err
	}
	b, err := os.ReadFile(bin)
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, "toolscore")
	if err := os.WriteFile(out, b, 0o755); err != nil {
		return "", err
	}
	fmt.Printf("toolscore: %s, copied to $TMP/toolscore\n", bin)
	return out, nil
}
