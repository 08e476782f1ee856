package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/cli"
)

// docFiles are the documents whose shell examples must match the binary.
var docFiles = []string{"README.md", "CHANGELOG.md", "docs/configuration.md", "docs/operations.md", "docs/security.md",
	"docs/evaluation.md", "docs/benchmarks.md", "docs/model.md", "docs/architecture.md"}

// invocation is one text2vec-am command line found in a document.
type invocation struct {
	where string   // file:line
	args  []string // after the binary name
}

// binaryRE matches the start of a text2vec-am invocation in a shell line:
// the built binary (./text2vec-am, text2vec-am, a path ending in it) or go run.
var binaryRE = regexp.MustCompile(`(?:^|[\s;&|(])(?:\S*/)?(?:text2vec-am|go run \.)\s+`)

// shellInvocations returns every text2vec-am command line inside the fenced
// code blocks of the Markdown text, continuation lines joined.
func shellInvocations(t *testing.T, file string, text []byte) []invocation {
	t.Helper()
	var out []invocation
	inBlock := false
	var pending strings.Builder
	pendingLine := 0
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inBlock = !inBlock
			pending.Reset()
			continue
		}
		if !inBlock {
			continue
		}
		if pending.Len() == 0 {
			pendingLine = n
		}
		if strings.HasSuffix(line, `\`) {
			pending.WriteString(strings.TrimSuffix(line, `\`) + " ")
			continue
		}
		pending.WriteString(line)
		full := pending.String()
		pending.Reset()
		if i := strings.Index(full, " #"); i >= 0 { // a trailing comment
			full = full[:i]
		}
		if strings.HasPrefix(strings.TrimSpace(full), "#") {
			continue
		}
		loc := binaryRE.FindStringIndex(full)
		if loc == nil {
			continue
		}
		rest := full[loc[1]:]
		// The command ends at a pipe, a redirection or a command separator.
		if i := strings.IndexAny(rest, "|;&>"); i >= 0 {
			rest = rest[:i]
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "-") && fields[0] != "-h" {
			continue
		}
		out = append(out, invocation{where: file + ":" + strconv.Itoa(pendingLine), args: fields})
	}
	return out
}

// helpOutput runs the binary's Main with args and returns what it printed.
func helpOutput(args ...string) string {
	var out bytes.Buffer
	cli.Main(context.Background(), "text2vec-am", commands(), args, &out, &out)
	return out.String()
}

// flagLineRE matches a flag of flag.PrintDefaults: "  -name" for a boolean,
// "  -name type" for a flag that takes a value.
var flagLineRE = regexp.MustCompile(`(?m)^\s+-([A-Za-z0-9][A-Za-z0-9-]*)(?:[ \t]+(\S+))?[ \t]*$`)

// commandChecker checks documented command lines against the binary's
// commands and their flags (learned from each command's -h output).
type commandChecker struct {
	names   map[string]bool
	flagsOf map[string]map[string]bool // command path → flag name → takes a value
}

func newCommandChecker() *commandChecker {
	c := &commandChecker{names: map[string]bool{}, flagsOf: map[string]map[string]bool{}}
	for _, cmd := range commands() {
		c.names[cmd.Name] = true
	}
	return c
}

// check returns the problems of the text2vec-am command lines in the
// Markdown text and how many command lines it checked.
func (c *commandChecker) check(t *testing.T, file string, text []byte) (problems []string, checked int) {
	for _, inv := range shellInvocations(t, file, text) {
		cmd := inv.args[0]
		if cmd == "help" || cmd == "-h" || cmd == "." { // "go build -o text2vec-am ."
			continue
		}
		if !c.names[cmd] {
			problems = append(problems, fmt.Sprintf("%s: text2vec-am %s: no such command", inv.where, cmd))
			continue
		}
		checked++
		path := []string{cmd}
		rest := inv.args[1:]
		// eval and memory dispatch to a task named by the next word.
		if (cmd == "eval" || cmd == "memory") && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
			path = append(path, rest[0])
			rest = rest[1:]
		}
		key := strings.Join(path, " ")
		defined, ok := c.flagsOf[key]
		if !ok {
			defined = map[string]bool{}
			usage := helpOutput(append(append([]string{}, path...), "-h")...)
			for _, m := range flagLineRE.FindAllStringSubmatch(usage, -1) {
				defined[m[1]] = m[2] != ""
			}
			if !strings.Contains(strings.ToLower(usage), "usage") {
				problems = append(problems, fmt.Sprintf("%s: text2vec-am %s -h printed no usage: %q", inv.where, key, usage))
			}
			c.flagsOf[key] = defined
		}
		positional := ""
		for i := 0; i < len(rest); i++ {
			a := rest[i]
			if a == "..." || a == "…" { // an elided part of the line
				break
			}
			if !strings.HasPrefix(a, "-") || a == "-" {
				if positional == "" {
					positional = a
				}
				continue
			}
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if name == "h" || name == "help" {
				continue
			}
			takesValue, ok := defined[name]
			if !ok {
				problems = append(problems, fmt.Sprintf("%s: text2vec-am %s has no flag -%s", inv.where, key, name))
			}
			if takesValue && !hasValue {
				i++ // its value
			}
			if positional != "" && cmd != "memory" {
				problems = append(problems, fmt.Sprintf("%s: text2vec-am %s: flag %s after the argument %q is read as an argument", inv.where, key, a, positional))
			}
		}
	}
	return problems, checked
}

// TestDocumentedCommandsExist checks every text2vec-am command line in the
// project's Markdown documents against the binary: the (sub)command exists,
// every flag it passes is one the command defines, and no flag comes after
// a positional argument (Go's flag package would take it as an argument).
func TestDocumentedCommandsExist(t *testing.T) {
	c := newCommandChecker()
	total := 0
	for _, file := range docFiles {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("read %s: %v", file, err)
		}
		problems, n := c.check(t, file, text)
		for _, p := range problems {
			t.Error(p)
		}
		total += n
	}
	if total < 20 {
		t.Fatalf("found only %d text2vec-am command lines in %v; the extraction is broken", total, docFiles)
	}
	t.Logf("checked %d documented command lines", total)
}

// TestCommandCheckerFindsMistakes feeds the checker a document with known
// mistakes, so that TestDocumentedCommandsExist cannot pass by checking nothing.
func TestCommandCheckerFindsMistakes(t *testing.T) {
	doc := "Prose with text2vec-am serve --nope is not checked.\n" +
		"```sh\n" +
		"go build -o text2vec-am .\n" +
		"./text2vec-am serve --addr 127.0.0.1:9 --no-such-flag 3\n" +
		"text2vec-am eval retrieval --embeddings e.vec \\\n" +
		"  docs.jsonl queries.jsonl --alpha 0.5\n" +
		"go run . frobnicate\n" +
		"./text2vec-am memory warm --memory-dir d a.txt # comment --bogus\n" +
		"./text2vec-am eval chimeras --embeddings e.vec --am a.am x.txt | tee out.md\n" +
		"```\n"
	problems, n := newCommandChecker().check(t, "doc.md", []byte(doc))
	want := []string{
		"doc.md:4: text2vec-am serve has no flag -no-such-flag",
		`doc.md:5: text2vec-am eval retrieval: flag --alpha after the argument "docs.jsonl" is read as an argument`,
		"doc.md:7: text2vec-am frobnicate: no such command",
	}
	if n != 4 || !slices.Equal(problems, want) {
		t.Fatalf("checked %d lines, problems:\n%s\nwant 4 lines and:\n%s", n, strings.Join(problems, "\n"), strings.Join(want, "\n"))
	}
}

// mdLinkRE matches a relative Markdown link to a file: [text](path) or
// [text](path#anchor), not a URL.
var mdLinkRE = regexp.MustCompile(`\]\(([^):#\s]+)(?:#[^)\s]*)?\)`)

// TestDocumentLinksResolve checks that every relative link of the documents
// names a file of the repository.
func TestDocumentLinksResolve(t *testing.T) {
	for _, file := range docFiles {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("read %s: %v", file, err)
		}
		dir := filepath.Dir(file)
		for _, m := range mdLinkRE.FindAllStringSubmatch(string(text), -1) {
			if _, err := os.Stat(filepath.Join(dir, m[1])); err != nil {
				t.Errorf("%s links to %s, which does not exist", file, m[1])
			}
		}
	}
}

// demoMRRRE matches the demo's MRR@10 line: base, then AM.
var demoMRRRE = regexp.MustCompile(`MRR@10\s+([0-9.]+)\s+([0-9.]+)`)

// TestDemoNumbersInDocs runs the demo on the embedded model and checks that
// the MRR@10 figures the README and the evaluation page quote are the ones it prints.
func TestDemoNumbersInDocs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo: skipped under -short")
	}
	out := helpOutput("demo")
	m := demoMRRRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the demo printed no MRR@10 line:\n%s", out)
	}
	for _, file := range []string{"README.md", "docs/evaluation.md"} {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range m[1:] {
			if !strings.Contains(string(text), v) {
				t.Errorf("%s does not quote the demo's MRR@10 %s (the demo prints %q)", file, v, m[0])
			}
		}
		if !strings.Contains(string(text), m[0]) {
			t.Errorf("%s does not quote the demo's line %q", file, m[0])
		}
	}
}
