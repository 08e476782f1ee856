// Command gendocs regenerates demo/data/godocs.jsonl from a Go distribution's
// package documentation. Run it through "go generate ./demo".
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"runtime"

	"github.com/text2vec-am/text2vec-am/demo/internal/docgen"
)

func main() {
	goroot := flag.String("goroot", docgen.GoRoot(), "Go installation whose src/ is read")
	out := flag.String("out", "data/godocs.jsonl", "output JSONL file")
	flag.Parse()
	if err := run(*goroot, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

func run(goroot, out string) error {
	docs, err := docgen.Generate(goroot, docgen.DefaultOptions())
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := docgen.WriteJSONL(&buf, docs); err != nil {
		return err
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	fmt.Printf("gendocs: %d documents from %s (%s) written to %s\n", len(docs), goroot, runtime.Version(), out)
	return nil
}
