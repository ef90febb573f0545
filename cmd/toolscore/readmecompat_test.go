package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeCompatIsGenerated: the README's measured table is exactly what toolscore report
// --format compat renders from the real sweep kept in docs/ledger-results.json (regenerate both
// with scripts/readme-compat OUT_DIR), never a table kept by hand.
func TestReadmeCompatIsGenerated(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "<!-- compat:begin -->\n")
	block, _, ok2 := strings.Cut(rest, "<!-- compat:end -->\n")
	if !ok || !ok2 {
		t.Fatal("README.md has no <!-- compat:begin --> ... <!-- compat:end --> block")
	}
	abs, _ := filepath.Abs(filepath.Join(root, "docs", "ledger-results.json"))
	stdout, stderr, code := toolscore(t, t.TempDir(), "report", abs, "--format", "compat")
	if code != 0 {
		t.Fatalf("report --format compat exited %d: %s", code, stderr)
	}
	if stdout != block {
		t.Errorf("the README's table is not what docs/ledger-results.json renders (run scripts/readme-compat OUT_DIR):\n%s\nrenders:\n%s", block, stdout)
	}
}
