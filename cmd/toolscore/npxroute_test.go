package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestInitNpxRoute takes the README's route for a real multi-tool npm server: toolscore init --
// npx -y PKG, filled in, run on the local backend. Each run's directory is its HOME, so a cell's
// tool in it must not break the PATH npx builds (a ':' once made every run server-exited), and
// npx fetches the server once into the server's own cache, not into every run's HOME.
func TestInitNpxRoute(t *testing.T) {
	if _, err := exec.LookPath("npx"); err != nil {
		if os.Getenv("TOOLSCORE_REQUIRE_NPM") != "" {
			t.Fatal("npx is not installed")
		}
		t.Skip("npx is not installed")
	}
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	dir := t.TempDir()
	const pkg = "@modelcontextprotocol/server-everything@2026.8.31"
	if _, stderr, code := toolscore(t, dir, "init", "--tools", "echo,get-sum", "--", "npx", "-y", pkg, "stdio"); code != 0 {
		t.Fatalf("init exited %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "scenario.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// echo takes a string, get-sum numbers: the preflight checks each against its inputSchema.
	filled := regexp.MustCompile(`(message: )"FILL IN[^"]*"`).ReplaceAllString(string(b), `${1}"hello"`)
	filled = regexp.MustCompile(`"FILL IN[^"]*"`).ReplaceAllString(filled, "2")
	if err := os.WriteFile(filepath.Join(dir, "scenario.yaml"), []byte(filled), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	_, stderr, code := toolscore(t, dir, "run", "scenario.yaml", "--backend", "local", "--clients", "raw", "--faults", "clean",
		"--runs", "2", "--out", out)
	if code != 0 {
		t.Fatalf("the filled starter exited %d:\n%s", code, stderr)
	}
	cells := readResultsDir(t, out).Cells
	if len(cells) == 0 {
		t.Fatal("no cells")
	}
	for _, c := range cells {
		if c.Counts() != "passed 2/2" {
			t.Errorf("raw %s %s on %s: %s (%v); want passed 2/2", c.Tool, c.Fault, c.Schema, c.Counts(), c.Examples)
		}
	}
	// npx's cache is the server's, shared by its runs: no run holds a copy of its own.
	filepath.WalkDir(filepath.Join(out, "runs"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && (d.Name() == ".npm" || d.Name() == "_npx") {
			t.Errorf("a run fetched the server into its own directory: %s", path)
			return filepath.SkipDir
		}
		if err == nil && strings.Contains(d.Name(), ":") {
			t.Errorf("a run's directory holds a ':', which breaks a PATH: %s", path)
		}
		return nil
	})
	npx, _ := filepath.Glob(filepath.Join(cache, "toolscore", "server", "*", "npm", "_npx"))
	if len(npx) != 1 {
		t.Errorf("the server's package cache %s holds %d npx folders; want 1", filepath.Join(cache, "toolscore", "server"), len(npx))
	}
}
