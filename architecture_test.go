package main

import (
	"errors"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const architecturePage = "docs/architecture.md"

// testOnlyPackages are the packages the diagram of docs/architecture.md
// leaves out, as it says: test support and packages of tests only.
var testOnlyPackages = []string{
	"internal/testmodel", "internal/testhttp", "internal/fakeweaviate", "internal/shareddata",
	"adapter/witness/witnesstest", "tests", "deploy", "adapter/contract", "trainer/skipgram/fasttextbench",
}

// TestArchitectureImports checks the package diagram at the top of
// docs/architecture.md against the code: every package of the module (the
// test-only ones aside) has a line, no line names a package that does not
// exist, and each line's arrow lists exactly the module's packages that the
// package's non-test files import (here, without build tags).
func TestArchitectureImports(t *testing.T) {
	text, err := os.ReadFile(architecturePage)
	if err != nil {
		t.Fatal(err)
	}
	code, err := moduleImports(t)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := diagramImports(string(text), code)
	if err != nil {
		t.Fatalf("%s: %v", architecturePage, err)
	}
	for pkg, imports := range code {
		if slices.Contains(testOnlyPackages, pkg) {
			continue
		}
		listed, ok := doc[pkg]
		if !ok {
			t.Errorf("%s: the diagram has no line for %s (it imports %v)", architecturePage, pkg, imports)
			continue
		}
		if !slices.Equal(listed, imports) {
			t.Errorf("%s: the diagram's %s → %v, the code imports %v", architecturePage, pkg, listed, imports)
		}
	}
}

// moduleImports returns, for each package of the module by its directory
// ("main.go" for the root), the module's packages its non-test files import,
// sorted.
func moduleImports(t *testing.T) (map[string][]string, error) {
	t.Helper()
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		return nil, err
	}
	m := regexp.MustCompile(`(?m)^module (\S+)$`).FindSubmatch(mod)
	if m == nil {
		return nil, errors.New("go.mod: no module line")
	}
	prefix := string(m[1]) + "/"
	out := map[string][]string{}
	err = filepath.WalkDir(".", func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); dir != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
			return filepath.SkipDir
		}
		p, err := build.Default.ImportDir(dir, 0)
		if _, none := errors.AsType[*build.NoGoError](err); none {
			return nil
		} else if err != nil {
			return err
		}
		var ours []string
		for _, imp := range p.Imports {
			if rest, ok := strings.CutPrefix(imp, prefix); ok {
				ours = append(ours, rest)
			}
		}
		slices.Sort(ours)
		name := filepath.ToSlash(dir)
		if dir == "." {
			name = "main.go"
		}
		out[name] = ours
		return nil
	})
	return out, err
}

// braceRE matches a diagram's "dir/{a, b}", which stands for dir/a, dir/b.
var braceRE = regexp.MustCompile(`([\w/]+)/\{([^}]*)\}`)

// diagramImports reads the diagram, the page's first code block: a line
// "pkg → a, b, …" (a list ending in a comma goes on in the next line; the
// list ends at two spaces or " (", where its description starts) or "pkg"
// alone (it imports nothing of ours). An indented line that does not start
// with a package of code is a description; a line ending in ":" a heading.
func diagramImports(page string, code map[string][]string) (map[string][]string, error) {
	_, rest, ok := strings.Cut(page, "\n```\n")
	block, _, ok2 := strings.Cut(rest, "\n```")
	if !ok || !ok2 {
		return nil, errors.New("no diagram (a code block)")
	}
	doc := map[string][]string{}
	var cur string
	more := false
	for line := range strings.SplitSeq(block, "\n") {
		trimmed := strings.TrimSpace(line)
		if more {
			var list []string
			list, more = diagramList(trimmed)
			doc[cur] = append(doc[cur], list...)
			continue
		}
		fields := strings.Fields(trimmed)
		if len(fields) == 0 || strings.HasSuffix(trimmed, ":") {
			continue
		}
		if _, known := code[fields[0]]; !known {
			if line != trimmed {
				continue // an indented description
			}
			return nil, errors.New("the diagram names " + fields[0] + ", which is no package of the module")
		}
		cur = fields[0]
		if _, dup := doc[cur]; dup {
			return nil, errors.New("the diagram has two lines for " + cur)
		}
		doc[cur] = []string{}
		if _, after, arrow := strings.Cut(trimmed, "→"); arrow {
			doc[cur], more = diagramList(strings.TrimSpace(after))
		}
	}
	for pkg := range doc {
		slices.Sort(doc[pkg])
	}
	return doc, nil
}

// diagramList returns the packages listed at the start of s and whether the
// list goes on in the next line.
func diagramList(s string) (list []string, more bool) {
	s = braceRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := braceRE.FindStringSubmatch(m)
		var out []string
		for item := range strings.SplitSeq(sub[2], ",") {
			out = append(out, sub[1]+"/"+strings.TrimSpace(item))
		}
		return strings.Join(out, ", ")
	})
	if i := strings.Index(s, "  "); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, " ("); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	more = strings.HasSuffix(s, ",")
	for item := range strings.SplitSeq(strings.TrimSuffix(s, ","), ",") {
		if item = strings.TrimSpace(item); item != "" {
			list = append(list, item)
		}
	}
	return list, more
}
