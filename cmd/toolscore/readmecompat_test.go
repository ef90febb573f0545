package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeCompatIsGenerated: each page's measured table is exactly what toolscore report
// --format compat renders from the real sweep kept beside it (the README's from
// docs/ledger-results.json, docs/spec-2026.md's from docs/spec-2026-results.json; regenerate
// with scripts/readme-compat), never a table kept by hand.
func TestReadmeCompatIsGenerated(t *testing.T) {
	root := filepath.Join("..", "..")
	for page, results := range map[string]string{
		"README.md":         "docs/ledger-results.json",
		"docs/spec-2026.md": "docs/spec-2026-results.json",
	} {
		t.Run(page, func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join(root, page))
			if err != nil {
				t.Fatal(err)
			}
			_, rest, ok := strings.Cut(string(text), "<!-- compat:begin -->\n")
			block, _, ok2 := strings.Cut(rest, "<!-- compat:end -->\n")
			if !ok || !ok2 {
				t.Fatalf("%s has no <!-- compat:begin --> ... <!-- compat:end --> block", page)
			}
			abs, _ := filepath.Abs(filepath.Join(root, results))
			stdout, stderr, code := toolscore(t, t.TempDir(), "report", abs, "--format", "compat")
			if code != 0 {
				t.Fatalf("report --format compat exited %d: %s", code, stderr)
			}
			if stdout != block {
				t.Errorf("the table in %s is not what %s renders (run scripts/readme-compat OUT_DIR, naming the page and results for any but the README):\n%s\nrenders:\n%s", page, results, block, stdout)
			}
		})
	}
}
