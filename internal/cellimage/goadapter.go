package cellimage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/toolscore/toolscore/internal/client/goadapter"
)

// GoAdapterPath is where a Go client's adapter built for a version pin lives in its cell image.
const GoAdapterPath = "/opt/toolscore/goadapter"

// goAdapterMain is the adapter's whole program: the package does the work.
const goAdapterMain = `package main

import (
	"os"

	"github.com/toolscore/toolscore/internal/client/goadapter"
)

func main() { os.Exit(goadapter.Main(os.Args[1:], os.Stdout, os.Stderr)) }
`

// GoCommand is the go command that builds the adapter of module at version, or why it cannot be
// built on this machine; it builds nothing.
func GoCommand(module, version string) (string, error) {
	if !strings.HasPrefix(version, "v") {
		version = "v" + version
	}
	gocmd, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("%s %s is built from source, which needs the go command on PATH: %w", module, version, err)
	}
	if module != goadapter.GoSDKModule && module != goadapter.MCPGoModule {
		return "", fmt.Errorf("%s is not a Go client library toolscore can build (%s, %s)", module, goadapter.GoSDKModule, goadapter.MCPGoModule)
	}
	return gocmd, nil
}

// BuildGoAdapter builds the Go clients' adapter (internal/client/goadapter) with module at version,
// and the other Go library at the version built into toolscore, and returns the static binary's
// path. It builds with this machine's go command and module proxy settings, as any Go module is
// built; a build is kept in the user's cache by its inputs, so a version is built once.
func BuildGoAdapter(ctx context.Context, module, version string, log io.Writer) (string, error) {
	gocmd, err := GoCommand(module, version)
	if err != nil {
		return "", err
	}
	if !strings.HasPrefix(version, "v") {
		version = "v" + version
	}
	pins := map[string]string{goadapter.GoSDKModule: goadapter.ModuleVersion(goadapter.GoSDKModule), goadapter.MCPGoModule: goadapter.ModuleVersion(goadapter.MCPGoModule)}
	pins[module] = version
	files := map[string][]byte{"cmd/goadapter/main.go": []byte(goAdapterMain)}
	err = fs.WalkDir(goadapter.Source(), ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := fs.ReadFile(goadapter.Source(), p)
		files["internal/client/goadapter/"+p] = b
		return err
	})
	if err != nil {
		return "", err
	}
	goVersion, err := exec.CommandContext(ctx, gocmd, "env", "GOVERSION").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOVERSION: %w", err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s %s\n%s %s\n", bytes.TrimSpace(goVersion), goadapter.GoSDKModule, pins[goadapter.GoSDKModule], goadapter.MCPGoModule, pins[goadapter.MCPGoModule])
	for _, name := range sortedNames(files) {
		fmt.Fprintf(h, "file %s %d\n", name, len(files[name]))
		h.Write(files[name])
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	out := filepath.Join(cache, "toolscore", "goadapter", hex.EncodeToString(h.Sum(nil))[:16], "goadapter")
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	src, err := os.MkdirTemp("", "toolscore-goadapter-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(src)
	files["go.mod"] = []byte("module github.com/toolscore/toolscore\n\ngo 1.23\n")
	for name, b := range files {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return "", err
		}
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return "", err
	}
	// Built beside its place and renamed into it, so two builds at once cannot mix.
	f, err := os.CreateTemp(filepath.Dir(out), "build-")
	if err != nil {
		return "", err
	}
	f.Close()
	tmp := f.Name()
	defer os.Remove(tmp)
	steps := [][]string{
		{"get", module + "@" + version, goadapter.GoSDKModule + "@" + pins[goadapter.GoSDKModule], goadapter.MCPGoModule + "@" + pins[goadapter.MCPGoModule]},
		{"mod", "tidy"},
		{"build", "-trimpath", "-o", tmp, "./cmd/goadapter"},
	}
	fmt.Fprintf(log, "building the Go adapter with %s %s\n", module, version)
	for _, step := range steps {
		cmd := exec.CommandContext(ctx, gocmd, step...)
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "GOWORK=off", "CGO_ENABLED=0", "GOFLAGS=-mod=mod")
		var output bytes.Buffer
		cmd.Stdout, cmd.Stderr = &output, &output
		if err := cmd.Run(); err != nil {
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				return "", fmt.Errorf("go %s: %w", step[0], err)
			}
			return "", fmt.Errorf("%s %s does not build with toolscore's Go adapter (go %s): %s", module, version, step[0], lastLines(output.String(), 6))
		}
	}
	return out, os.Rename(tmp, out)
}

// lastLines is the end of a tool's output, on one line, for an error.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "; ")
}

// GoAdapter is the cell image of a Go client at a version pin: its adapter binary layered
// on the built-in image base (a tag EnsureImage gave).
func GoAdapter(base string, adapter []byte) Spec {
	return Spec{Name: "goadapter", Extra: map[string][]byte{"goadapter": adapter}, Args: map[string]string{"BASE_IMAGE": base}}
}
