// Package docgen builds the demo's bundled documents from the Go
// distribution's own package documentation (GOROOT/src, BSD-3-Clause).
//
// Every non-internal package of the standard library and every command under
// cmd/ gives one document for its overview (the doc comment up to its first
// heading) and one per headed section of its doc comment. A document holds the
// first paragraphs of its section (code blocks dropped, lists flattened), so
// the set is small, jargon-heavy (goroutine, mutex, deflate, ASN.1, cgo, ...)
// and reproducible from a given Go release: the same GOROOT always gives the
// same bytes.
package docgen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/build"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Document is one bundled text: ID is the import path, followed by
// "#" and the heading for a section; Title is what the demo displays.
type Document struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// Options bound the size of the generated set.
type Options struct {
	// MaxParagraphs is the number of leading paragraphs kept per section.
	MaxParagraphs int
	// MaxChars truncates a document's text at the last sentence or word
	// boundary before this many bytes.
	MaxChars int
	// MinWords drops sections with fewer words (mostly "see below" stubs).
	MinWords int
}

// DefaultOptions are the settings behind demo/data/godocs.jsonl.
func DefaultOptions() Options {
	return Options{MaxParagraphs: 3, MaxChars: 900, MinWords: 6}
}

// buildContext fixes the platform whose files count as the package, so the
// output does not depend on the machine that runs the generator.
func buildContext(goroot string) build.Context {
	ctx := build.Default
	ctx.GOROOT = goroot
	ctx.GOOS = "linux"
	ctx.GOARCH = "amd64"
	ctx.CgoEnabled = true
	ctx.BuildTags = nil
	ctx.ReleaseTags = build.Default.ReleaseTags
	return ctx
}

// Generate walks goroot/src and returns the documents in import-path order.
func Generate(goroot string, opts Options) ([]Document, error) {
	if opts.MaxParagraphs < 1 || opts.MaxChars < 80 || opts.MinWords < 0 {
		return nil, fmt.Errorf("docgen options %+v: need MaxParagraphs ≥ 1, MaxChars ≥ 80, MinWords ≥ 0", opts)
	}
	src := filepath.Join(goroot, "src")
	if fi, err := os.Stat(src); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("goroot %s: no src directory (is it a Go installation?)", goroot)
	}
	var dirs []string
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != src && (name == "testdata" || name == "internal" || name == "vendor" ||
			strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if path != src {
			dirs = append(dirs, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", src, err)
	}
	ctx := buildContext(goroot)
	var docs []Document
	for _, dir := range dirs {
		rel, err := filepath.Rel(src, dir)
		if err != nil {
			return nil, fmt.Errorf("package dir %s: %w", dir, err)
		}
		importPath := filepath.ToSlash(rel)
		text, err := packageDoc(ctx, dir)
		if err != nil {
			return nil, fmt.Errorf("package %s: %w", importPath, err)
		}
		if text == "" {
			continue
		}
		docs = append(docs, sections(importPath, text, opts)...)
	}
	slices.SortStableFunc(docs, func(a, b Document) int { return strings.Compare(a.ID, b.ID) })
	return dedupe(docs), nil
}

// packageDoc returns the raw doc comment of the package in dir ("" when the
// directory holds no buildable package or the package has no doc comment).
func packageDoc(ctx build.Context, dir string) (string, error) {
	pkg, err := ctx.ImportDir(dir, build.ImportComment)
	if err != nil {
		// A directory without Go files for linux/amd64, or holding several
		// unrelated programs, is not a package of the distribution.
		var noGo *build.NoGoError
		var multi *build.MultiplePackageError
		if errors.As(err, &noGo) || errors.As(err, &multi) {
			return "", nil
		}
		return "", fmt.Errorf("import %s: %w", dir, err)
	}
	files := append(append([]string(nil), pkg.GoFiles...), pkg.CgoFiles...)
	// A doc.go, when present, holds the package documentation by convention.
	slices.SortStableFunc(files, func(a, b string) int {
		return boolRank(b == "doc.go") - boolRank(a == "doc.go")
	})
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return "", fmt.Errorf("parse %s: %w", name, err)
		}
		if f.Doc != nil {
			return f.Doc.Text(), nil
		}
	}
	return "", nil
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// section is a heading (empty for the overview) and its kept paragraphs.
type section struct {
	heading string
	paras   []string
}

// sections splits a doc comment at its headings and renders each part.
func sections(importPath, text string, opts Options) []Document {
	// Every [Name] is taken as a doc link, so it renders as plain Name.
	p := comment.Parser{LookupSym: func(recv, name string) bool { return true }}
	d := p.Parse(text)
	parts := []section{{}}
	cur := &parts[0]
	add := func(s string) {
		if s = collapse(s); s != "" && len(cur.paras) < opts.MaxParagraphs {
			cur.paras = append(cur.paras, s)
		}
	}
	for _, b := range d.Content {
		switch b := b.(type) {
		case *comment.Heading:
			parts = append(parts, section{heading: collapse(plain(b.Text))})
			cur = &parts[len(parts)-1]
		case *comment.Paragraph:
			add(plain(b.Text))
		case *comment.List:
			var items []string
			for _, it := range b.Items {
				for _, c := range it.Content {
					if para, ok := c.(*comment.Paragraph); ok {
						items = append(items, collapse(plain(para.Text)))
					}
				}
			}
			add(strings.Join(items, " "))
		case *comment.Code:
			// Examples and command synopses: not prose.
		}
	}
	var docs []Document
	for _, s := range parts {
		body := truncate(strings.Join(s.paras, " "), opts.MaxChars)
		id, title := importPath, importPath
		if s.heading != "" {
			id = importPath + "#" + s.heading
			title = importPath + ": " + s.heading
			body = s.heading + ". " + body
		}
		if len(strings.Fields(body)) < opts.MinWords {
			continue
		}
		docs = append(docs, Document{ID: id, Title: title, Text: body})
	}
	return docs
}

// plain renders inline text (links become their text).
func plain(text []comment.Text) string {
	var b strings.Builder
	for _, t := range text {
		switch t := t.(type) {
		case comment.Plain:
			b.WriteString(string(t))
		case comment.Italic:
			b.WriteString(string(t))
		case *comment.Link:
			b.WriteString(plain(t.Text))
		case *comment.DocLink:
			b.WriteString(plain(t.Text))
		}
	}
	return b.String()
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// truncate cuts s at the last sentence end (or else the last space) before max bytes.
func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := s[:max]
	if i := strings.LastIndex(cut, ". "); i > max/2 {
		return cut[:i+1]
	}
	if i := strings.LastIndexByte(cut, ' '); i > 0 {
		return cut[:i] + " …"
	}
	return cut
}

// dedupe keeps the first document of each ID (two headings of one package may
// share their text) and drops exact repeats of an earlier text.
func dedupe(docs []Document) []Document {
	ids := make(map[string]bool, len(docs))
	texts := make(map[string]bool, len(docs))
	out := docs[:0]
	for _, d := range docs {
		if ids[d.ID] || texts[d.Text] {
			continue
		}
		ids[d.ID] = true
		texts[d.Text] = true
		out = append(out, d)
	}
	return out
}

// WriteJSONL writes one JSON object per line, without HTML escaping, so the
// file diffs cleanly.
func WriteJSONL(w io.Writer, docs []Document) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i, d := range docs {
		if err := enc.Encode(d); err != nil {
			return fmt.Errorf("encode document %d (%s): %w", i+1, d.ID, err)
		}
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("write documents: %w", err)
	}
	return nil
}

// GoRoot returns the Go installation that `go env GOROOT` names, or "" when
// the go command is not on the PATH.
func GoRoot() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
