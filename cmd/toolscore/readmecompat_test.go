package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeCompatIsGenerated: each page's compatibility page is exactly what toolscore report
// --format compat renders from the real sweep kept beside it, never text kept by hand: the
// README's block from docs/ledger-results.json, docs/spec-2026.md's from
// docs/spec-2026-results.json (scripts/readme-compat regenerates both from a new sweep), and
// docs/compat.md's blocks from the results each names in its marker. UPDATE_DOCS=1 rewrites the
// blocks from the results kept.
func TestReadmeCompatIsGenerated(t *testing.T) {
	root := filepath.Join("..", "..")
	for page, results := range map[string]string{
		"docs/spec-2026.md": "docs/spec-2026-results.json",
		"docs/compat.md":    "", // each block names its results
	} {
		t.Run(page, func(t *testing.T) {
			path := filepath.Join(root, page)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			text, blocks := string(data), 0
			var out strings.Builder
			for {
				before, rest, ok := strings.Cut(text, "<!-- compat:begin")
				if !ok {
					out.WriteString(text)
					break
				}
				marker, rest, ok := strings.Cut(rest, "-->\n")
				block, after, ok2 := strings.Cut(rest, "<!-- compat:end -->\n")
				if !ok || !ok2 {
					t.Fatalf("%s: a <!-- compat:begin --> without its <!-- compat:end -->", page)
				}
				from := results
				if named := strings.TrimSpace(marker); named != "" {
					from = named
				}
				if from == "" {
					t.Fatalf("%s: a compat block names no results", page)
				}
				abs, _ := filepath.Abs(filepath.Join(root, from))
				stdout, stderr, code := toolscore(t, t.TempDir(), "report", abs, "--format", "compat")
				if code != 0 {
					t.Fatalf("report --format compat exited %d: %s", code, stderr)
				}
				// The page renders on GitHub as ours: its tables keep their columns, no element
				// but its own and its anchors.
				checkMarkdown(t, page+" from "+from, stdout, "", anchorLinks)
				if stdout != block && os.Getenv("UPDATE_DOCS") != "1" {
					t.Errorf("the compatibility page in %s is not what %s renders (run UPDATE_DOCS=1 go test ./cmd/toolscore -run TestReadmeCompatIsGenerated, or scripts/readme-compat OUT_DIR for a new sweep):\n%s\nrenders:\n%s", page, from, block, stdout)
				}
				out.WriteString(before + "<!-- compat:begin" + marker + "-->\n" + stdout + "<!-- compat:end -->\n")
				text = after
				blocks++
			}
			if blocks == 0 {
				t.Fatalf("%s has no <!-- compat:begin --> ... <!-- compat:end --> block", page)
			}
			if os.Getenv("UPDATE_DOCS") == "1" && out.String() != string(data) {
				if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
