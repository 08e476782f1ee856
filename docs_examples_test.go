package main

import (
	"fmt"
	"os"
	"regexp"
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

// TestNNFiguresInDocs checks the nearest words docs/model.md quotes for
// nn -k 3 xyzzyq against the command's output.
func TestNNFiguresInDocs(t *testing.T) {
	out := helpOutput("nn", "-k", "3", "xyzzyq")
	var quoted []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("nn printed %q", out)
		}
		quoted = append(quoted, fmt.Sprintf("`%s %s`", f[1], f[2]))
	}
	want := "`nn -k 3 xyzzyq` gives " + strings.Join(quoted, ", ")
	text, err := os.ReadFile("docs/model.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(string(text)), " "), want) {
		t.Errorf("docs/model.md does not say %q", want)
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
