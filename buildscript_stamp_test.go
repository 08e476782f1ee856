package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// buildTwice runs the script from caller with the corpus paths first, then
// between(), then with the paths second (WORK the same), and returns how
// many times step 1 (train-embeddings) ran.
func buildTwice(t *testing.T, b fakeBuild, caller string, first, second []string, between func()) int {
	t.Helper()
	if out, code := b.run(t, caller, first, "WORK=work"); code != 0 {
		t.Fatalf("exit status %d: %s", code, out)
	}
	between()
	if out, code := b.run(t, caller, second, "WORK=work"); code != 0 {
		t.Fatalf("exit status %d: %s", code, out)
	}
	return len(b.commands(t)["train-embeddings"])
}

// writeAt writes text to path and sets its times to at.
func writeAt(t *testing.T, path, text string, at time.Time) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

// stepsAfterChange builds from a corpus directory, changes the file that
// place (given the caller's directory and the corpus directory in it)
// creates and names, builds again, and returns how many times step 1 ran.
func stepsAfterChange(t *testing.T, place func(caller, dir string) string) int {
	t.Helper()
	b := newFakeBuild(t)
	caller := t.TempDir()
	general, _ := corpusDir(t, caller)
	path := place(caller, filepath.Join(caller, general))
	writeAt(t, path, "some text\n", time.Now())
	paths := []string{general}
	return buildTwice(t, b, caller, paths, paths, func() {
		writeAt(t, path, "some text, changed\n", time.Now().Add(time.Hour))
	})
}

// TestBuildScriptStampFollowsLinkedFiles: a corpus directory's symbolic
// links to files are read by the trainers (trainer/corpus follows them), so
// a change to a linked file makes step 1 run again.
func TestBuildScriptStampFollowsLinkedFiles(t *testing.T) {
	n := stepsAfterChange(t, func(caller, dir string) string {
		target := filepath.Join(caller, "elsewhere.txt")
		if err := os.Symlink(target, filepath.Join(dir, "b.txt")); err != nil {
			t.Fatal(err)
		}
		return target
	})
	if n != 2 {
		t.Errorf("train-embeddings ran %d times, want 2: the linked corpus file changed", n)
	}
}

// TestBuildScriptStampCorpusOrder: the corpus paths' order is the order
// the trainers read them in, which changes the subword model, so a build
// with the same paths in another order does not reuse step 1's files.
func TestBuildScriptStampCorpusOrder(t *testing.T) {
	b := newFakeBuild(t)
	caller := t.TempDir()
	general, mydocs := corpusDir(t, caller)
	if n := buildTwice(t, b, caller, []string{general, mydocs}, []string{mydocs, general}, func() {}); n != 2 {
		t.Errorf("train-embeddings ran %d times, want 2: the corpus order changed", n)
	}
}

// TestBuildScriptStampSkipsHiddenFiles: the trainers skip names starting
// with "." in a corpus directory (an editor's swap file, .git), so a change
// to one does not make step 1 run again.
func TestBuildScriptStampSkipsHiddenFiles(t *testing.T) {
	hidden := func(_, dir string) string { return filepath.Join(dir, ".a.txt.swp") }
	if n := stepsAfterChange(t, hidden); n != 1 {
		t.Errorf("train-embeddings ran %d times, want 1: only a file the trainers skip changed", n)
	}
}

// TestBuildScriptInstallOverOut: --install with OUT naming
// defaultmodel/default.am itself is refused before anything is built.
func TestBuildScriptInstallOverOut(t *testing.T) {
	b := newFakeBuild(t)
	caller := t.TempDir()
	general, _ := corpusDir(t, caller)
	set := []string{"WORK=work", "OUT=" + filepath.Join(b.root, "defaultmodel", "default.am")}
	out, code := b.run(t, caller, []string{"--install", general}, set...)
	steps := len(b.commands(t)["train-embeddings"])
	if code != 2 || !strings.Contains(out, "OUT is defaultmodel/default.am") || steps != 0 {
		t.Errorf("exit status %d after %d steps, want 2 naming OUT before any: %s", code, steps, out)
	}
}
