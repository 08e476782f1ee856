package main

import (
	"errors"
	"fmt"
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

// codePackage is what the code says of one package of the module: the
// module's packages its non-test files import, without build tags and with
// the plot tag, sorted.
type codePackage struct {
	name          string // "main" for a command
	imports, plot []string
}

// TestArchitectureImports checks the package diagram at the top of
// docs/architecture.md against the code: every package of the production
// program (what a command or the Weaviate module reaches) has a line, and no
// other package does; no line names a package that does not exist; each
// line's arrow lists exactly the module's packages that the package's
// non-test files import, and a package whose plot build imports more says
// so in "(the plot build: …)".
func TestArchitectureImports(t *testing.T) {
	text, err := os.ReadFile(architecturePage)
	if err != nil {
		t.Fatal(err)
	}
	code, err := modulePackages()
	if err != nil {
		t.Fatal(err)
	}
	production := productionPackages(code)
	doc, lines, err := diagramImports(string(text), code)
	if err != nil {
		t.Fatalf("%s: %v", architecturePage, err)
	}
	for pkg, p := range code {
		listed, ok := doc[pkg]
		switch {
		case !production[pkg] && ok:
			t.Errorf("%s: the diagram has a line for %s, which only tests use", architecturePage, pkg)
		case !production[pkg]:
		case !ok:
			t.Errorf("%s: the diagram has no line for %s (it imports %v)", architecturePage, pkg, p.imports)
		case !slices.Equal(listed, p.imports):
			t.Errorf("%s: the diagram's %s → %v, the code imports %v", architecturePage, pkg, listed, p.imports)
		}
		if extra := without(p.plot, p.imports); ok && len(extra) > 0 {
			if want := "(the plot build: " + strings.Join(extra, ", ") + ")"; !strings.Contains(lines[pkg], want) {
				t.Errorf("%s: the line of %s lacks %q", architecturePage, pkg, want)
			}
		}
	}
}

// modulePackages returns the packages of the module by directory ("main.go"
// for the root).
func modulePackages() (map[string]codePackage, error) {
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		return nil, err
	}
	m := regexp.MustCompile(`(?m)^module (\S+)$`).FindSubmatch(mod)
	if m == nil {
		return nil, errors.New("go.mod: no module line")
	}
	prefix := string(m[1]) + "/"
	plot := build.Default
	plot.BuildTags = append(slices.Clone(plot.BuildTags), "plot")
	ours := func(ctx *build.Context, dir string) (*build.Package, []string, error) {
		p, err := ctx.ImportDir(dir, 0)
		if err != nil {
			return nil, nil, err
		}
		var imports []string
		for _, imp := range p.Imports {
			if rest, ok := strings.CutPrefix(imp, prefix); ok {
				imports = append(imports, rest)
			}
		}
		slices.Sort(imports)
		return p, imports, nil
	}
	out := map[string]codePackage{}
	err = filepath.WalkDir(".", func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if dir != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
			return filepath.SkipDir
		}
		p, imports, err := ours(&build.Default, dir)
		if _, none := errors.AsType[*build.NoGoError](err); none {
			return nil
		} else if err != nil {
			return err
		}
		_, withPlot, err := ours(&plot, dir)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(dir)
		if dir == "." {
			pkg = "main.go"
		}
		out[pkg] = codePackage{name: p.Name, imports: imports, plot: withPlot}
		return nil
	})
	return out, err
}

// productionPackages returns the packages the commands (package main) and
// the Weaviate module (built into a program outside this tree) reach by
// their non-test imports, the plot build's included; the others serve
// tests only.
func productionPackages(code map[string]codePackage) map[string]bool {
	reached := map[string]bool{}
	var visit func(pkg string)
	visit = func(pkg string) {
		if reached[pkg] {
			return
		}
		reached[pkg] = true
		for _, imp := range code[pkg].plot {
			visit(imp)
		}
	}
	for pkg, p := range code {
		if p.name == "main" || pkg == "module" {
			visit(pkg)
		}
	}
	return reached
}

// braceRE matches a diagram's "dir/{a, b}", which stands for dir/a, dir/b.
var braceRE = regexp.MustCompile(`([\w/]+)/\{([^}]*)\}`)

// diagramImports reads the diagram, the page's first code block, and returns
// each package's listed imports and its line. A package's line is "pkg → a,
// b, …" (a list ending in a comma goes on in the next, indented line; the
// list ends at two spaces or " (", where its description starts) or "pkg"
// alone (it imports nothing of ours). Any line with an arrow, any line that
// is not indented and any line that starts with a path is a package's;
// another indented line is a description, and a line without an arrow
// ending in ":" a heading.
func diagramImports(page string, code map[string]codePackage) (doc map[string][]string, lines map[string]string,
	err error) {
	_, rest, ok := strings.Cut(page, "\n```\n")
	block, _, ok2 := strings.Cut(rest, "\n```")
	if !ok || !ok2 {
		return nil, nil, errors.New("no diagram (a code block)")
	}
	doc, lines = map[string][]string{}, map[string]string{}
	var cur string
	more := false
	for line := range strings.SplitSeq(block, "\n") {
		trimmed := strings.TrimSpace(line)
		indented := trimmed != "" && line != trimmed
		if more {
			if !indented {
				return nil, nil, fmt.Errorf("the list of %s ends in a comma, but the next line is not indented: %q", cur, line)
			}
			var list []string
			list, more = diagramList(trimmed)
			doc[cur], lines[cur] = append(doc[cur], list...), lines[cur]+" "+trimmed
			continue
		}
		fields := strings.Fields(trimmed)
		_, after, arrow := strings.Cut(trimmed, "→")
		description := indented && code[fields0(fields)].name == "" && !strings.Contains(fields0(fields), "/")
		if len(fields) == 0 || !arrow && (strings.HasSuffix(trimmed, ":") || description) {
			continue // a blank line, a heading or a description
		}
		if cur = fields[0]; code[cur].name == "" {
			return nil, nil, fmt.Errorf("the diagram names %s, which is no package of the module", cur)
		}
		if _, dup := doc[cur]; dup {
			return nil, nil, fmt.Errorf("the diagram has two lines for %s", cur)
		}
		doc[cur], lines[cur] = []string{}, trimmed
		if arrow {
			doc[cur], more = diagramList(strings.TrimSpace(after))
		}
	}
	if more {
		return nil, nil, fmt.Errorf("the list of %s ends in a comma at the end of the diagram", cur)
	}
	for pkg := range doc {
		slices.Sort(doc[pkg])
	}
	return doc, lines, nil
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

// fields0 is the first of fields, or "".
func fields0(fields []string) string {
	if len(fields) == 0 {
		return ""
	}
	return fields[0]
}

// without returns the elements of a that b lacks.
func without(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
