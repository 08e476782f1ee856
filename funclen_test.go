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

// maxFuncLines is the house rule: no production function over 80 lines.
const maxFuncLines = 80

// TestNoLongFunctions holds every production function of the module (test
// files excluded) to maxFuncLines, counted from the func line to the closing
// brace.
func TestNoLongFunctions(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	productionFiles(t, fset, func(f *ast.File) {
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			checked++
			n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if n > maxFuncLines {
				t.Errorf("%s: %s is %d lines (at most %d)", fset.Position(fn.Pos()), fn.Name.Name, n, maxFuncLines)
			}
		}
	})
	if checked < 500 {
		t.Fatalf("only %d functions found: the walk missed the tree", checked)
	}
}

// productionFiles parses every production Go file of the module (test
// files, testdata and hidden directories left out) into fset and calls fn
// with each.
func productionFiles(t *testing.T, fset *token.FileSet, fn func(*ast.File)) {
	t.Helper()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		fn(f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
