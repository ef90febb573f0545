package report

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestFormatNamesStayInReport: no Go code outside this package spells a report format's
// name in a string, so adding a format touches report/ only (the CLI, the output directory
// and the Action read Formats). text and json are left out: they are also the words of
// other flags (toolscore clients --format text|json) and of the protocol's content blocks;
// internal/reporttest, which validates the reports' files for the tests, is left out too.
func TestFormatNamesStayInReport(t *testing.T) {
	var names []string
	for _, f := range Formats() {
		if f.Name != "text" && f.Name != "json" {
			names = append(names, append([]string{f.Name}, f.Also...)...)
		}
	}
	word := regexp.MustCompile(`(^|[\s|,(])(` + strings.Join(names, "|") + `)($|[\s|,)])`)
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (path == "../report" || path == "../internal/reporttest" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				s, _ := strconv.Unquote(lit.Value)
				if m := word.FindStringSubmatch(s); m != nil {
					t.Errorf("%s: %q spells the report format %s: name it through report.Formats", fset.Position(lit.Pos()), s, m[2])
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
