package main

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// stockModuleConfigRE matches the moduleConfig of a collection example for a
// stock vectorizer module that calls serve, up to the end of its settings.
var stockModuleConfigRE = regexp.MustCompile(`"moduleConfig":\s*\{\s*"(text2vec-(?:transformers|cohere|openai))":\s*\{[^}]*\}`)

// noClassNameRE matches the setting that keeps the class name out of the texts.
var noClassNameRE = regexp.MustCompile(`"vectorizeClassName":\s*false`)

// TestStockCollectionsLeaveOutClassName checks that every documented
// collection for a stock module that calls serve sets vectorizeClassName to
// false: the modules' default puts the collection's name in front of every
// text, and so into every context the memory keeps.
func TestStockCollectionsLeaveOutClassName(t *testing.T) {
	found := 0
	for _, file := range docFiles {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range stockModuleConfigRE.FindAllStringSubmatch(string(text), -1) {
			found++
			if !noClassNameRE.MatchString(m[0]) {
				t.Errorf("%s: the %s collection example lacks \"vectorizeClassName\": false: %s", file, m[1], m[0])
			}
		}
	}
	if found < 3 {
		t.Errorf("found %d stock collection examples, want the transformers, cohere and openai ones", found)
	}
}

// nnQuoteRE matches what docs/model.md quotes of nn -k 3 xyzzyq: three
// words with their cosines.
var nnQuoteRE = regexp.MustCompile("`nn -k 3 xyzzyq` gives `(\\S+) ([0-9.]+)`, `(\\S+) ([0-9.]+)`,? (?:and )?`(\\S+) ([0-9.]+)`")

// TestNNFiguresInDocs checks the nearest words docs/model.md quotes for
// nn -k 3 xyzzyq against the command's output: the same words in the same
// order, each cosine within 0.002 (the kernel sets of other CPUs round
// differently).
func TestNNFiguresInDocs(t *testing.T) {
	out := helpOutput("nn", "-k", "3", "xyzzyq")
	text, err := os.ReadFile("docs/model.md")
	if err != nil {
		t.Fatal(err)
	}
	m := nnQuoteRE.FindStringSubmatch(strings.Join(strings.Fields(string(text)), " "))
	if m == nil {
		t.Fatalf("docs/model.md quotes no figures of `nn -k 3 xyzzyq`")
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("nn printed %q", out)
	}
	for i, line := range lines {
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("nn printed %q", out)
		}
		got, _ := strconv.ParseFloat(f[2], 64)
		quoted, _ := strconv.ParseFloat(m[2*i+2], 64)
		if f[1] != m[2*i+1] || math.Abs(got-quoted) > 0.002 {
			t.Errorf("docs/model.md quotes %s %s as nearest word %d; nn gives %s %s", m[2*i+1], m[2*i+2], i+1, f[1], f[2])
		}
	}
}

// TestMemoryLimitFlagsDocumented checks that the configuration page's table
// of the memory's limits names every --memory-max-* flag of serve.
func TestMemoryLimitFlagsDocumented(t *testing.T) {
	text, err := os.ReadFile(configPage)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(text), "### The context memory's limits\n")
	section, _, _ = strings.Cut(section, "\n\n### ")
	if !ok {
		t.Fatalf("%s has no section on the context memory's limits", configPage)
	}
	for _, f := range serveFlagDefaults() {
		if strings.HasPrefix(f.name, "memory-max-") && !strings.Contains(section, "| `--"+f.name+"` |") {
			t.Errorf("%s: the table of the memory's limits has no row for --%s", configPage, f.name)
		}
	}
}
