package main

import (
	"go/ast"
	"go/token"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/cli"
)

// TestErrorTextsDoNotStartWithACommand: no error a production file makes
// (fmt.Errorf, errors.New, cli.UsageError) starts with the name of a command
// and a colon ("rebuild: …", "vecmap: …"), or with a group's subcommand
// ("memory warm %s: …"): cli.Main names the command before the error, and a
// library's error says what failed, not who called it.
func TestErrorTextsDoNotStartWithACommand(t *testing.T) {
	var prefixes []string // "rebuild:", "rebuild %", "rebuild --", "memory rebuild:", "memory rebuild "
	var walk func(path []string, cmds []cli.Command)
	walk = func(path []string, cmds []cli.Command) {
		for _, c := range cmds {
			p := append(slices.Clone(path), c.Name)
			// its name then a colon, a verb ("healthcheck %s:", "memory %s:")
			// or a flag ("rare-dev --corpus-out"): the name as a prefix
			prefixes = append(prefixes, c.Name+":", c.Name+" %", c.Name+" --")
			if len(p) > 1 {
				prefixes = append(prefixes, strings.Join(p, " ")+":", strings.Join(p, " ")+" ")
			}
			walk(p, c.Subcommands)
		}
	}
	walk(nil, commands())
	fset := token.NewFileSet()
	checked := 0
	errorTexts(t, fset, func(lit *ast.BasicLit) {
		checked++
		for _, p := range prefixes { // names hold no character a literal escapes
			if strings.HasPrefix(lit.Value[1:], p) {
				t.Errorf("%s: the error %s starts with the command %q",
					fset.Position(lit.Pos()), lit.Value, strings.TrimRight(p, ": "))
			}
		}
	})
	if checked < 500 {
		t.Fatalf("only %d error texts found: the walk missed the tree", checked)
	}
}

// repeatedName returns the first part of stderr, the output of the command
// path, that names the command right after its name ("memory stats: memory
// stats", "memory rebuild: usage error: memory rebuild", "rebuild:
// rebuild"), or "".
func repeatedName(path []string, stderr string) string {
	apart := func(i int) bool { return i < 0 || i == len(stderr) || strings.ContainsRune(" :\n", rune(stderr[i])) }
	for _, name := range []string{strings.Join(path, " "), path[len(path)-1]} {
		for _, between := range []string{": ", ": usage error: "} {
			twice := name + between + name
			for at := 0; at < len(stderr); at++ {
				i := strings.Index(stderr[at:], twice)
				if i < 0 {
					break
				}
				at += i
				if apart(at-1) && apart(at+len(twice)) {
					return twice
				}
			}
		}
	}
	return ""
}

// flagInErrorRE matches a flag an error text names ("--bundle-out").
var flagInErrorRE = regexp.MustCompile(`(?:^|[^-\w])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)`)

// TestErrorTextsNameRealFlags: every flag an error a production file makes
// names ("give --bundle-out") is a flag of some command (its -h lists it).
func TestErrorTextsNameRealFlags(t *testing.T) {
	flags := map[string]bool{}
	var walk func(path []string, cmds []cli.Command)
	walk = func(path []string, cmds []cli.Command) {
		for _, c := range cmds {
			p := append(slices.Clone(path), c.Name)
			walk(p, c.Subcommands)
			for _, line := range strings.Split(helpOutput(append(p, "-h")...), "\n") {
				if f, ok := strings.CutPrefix(strings.TrimSpace(line), "-"); ok {
					name, _, _ := strings.Cut(f, " ")
					flags[name] = true
				}
			}
		}
	}
	walk(nil, commands())
	if len(flags) < 100 {
		t.Fatalf("only %d flags found in the commands' help", len(flags))
	}
	fset := token.NewFileSet()
	errorTexts(t, fset, func(lit *ast.BasicLit) {
		for _, m := range flagInErrorRE.FindAllStringSubmatch(lit.Value, -1) {
			if !flags[m[1]] {
				t.Errorf("%s: the error %s names --%s, a flag no command has", fset.Position(lit.Pos()), lit.Value, m[1])
			}
		}
	})
}

// errorTexts calls fn with the text literal of every error a production
// file makes with fmt.Errorf, errors.New or cli.UsageError.
func errorTexts(t *testing.T, fset *token.FileSet, fn func(lit *ast.BasicLit)) {
	t.Helper()
	makers := map[string]bool{"fmt.Errorf": true, "errors.New": true, "cli.UsageError": true}
	productionFiles(t, fset, func(f *ast.File) {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, _ := sel.X.(*ast.Ident)
			lit, _ := call.Args[0].(*ast.BasicLit)
			if pkg != nil && lit != nil && lit.Kind == token.STRING && makers[pkg.Name+"."+sel.Sel.Name] {
				fn(lit)
			}
			return true
		})
	})
}
