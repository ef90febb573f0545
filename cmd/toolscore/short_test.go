package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxCommandLines is the most lines a function of cmd/ takes, from func to its closing brace: a
// command reads its flags, hands the work to the package that owns it and turns what comes
// back into an exit code.
const maxCommandLines = 80

// TestCommandFunctionsAreShort: no function of cmd/ (tests aside) is longer than
// maxCommandLines; a longer one holds logic that belongs in the package doing the work.
func TestCommandFunctionsAreShort(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			checked++
			if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > maxCommandLines {
				t.Errorf("%s: %s is %d lines, more than %d: move what it does into the package that owns it", fset.Position(fn.Pos()), fn.Name.Name, n, maxCommandLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked %d functions in cmd/: the walk missed the commands", checked)
	}
}
