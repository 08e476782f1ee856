package outpath

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Check refuses an output that is another output, an input file (spelt
// otherwise), a file inside an input directory, a directory or in a missing
// directory, and accepts a fresh file beside the inputs.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(in, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	inputs := []File{{"--in", in}, {"DIR", sub}, {"--none", ""}}
	for out, want := range map[string]string{
		filepath.Join(dir, "sub", "..", "in.txt"): "is the input --in",
		filepath.Join(sub, "deep", "x.png"):       "inside the input directory DIR",
		sub:                                       "is the input DIR",
		dir:                                       "is a directory",
		filepath.Join(dir, "no", "x"):             "cannot write to directory",
	} {
		if err := Check([]File{{"--out", out}}, inputs); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("output %s: err = %v, want %q", out, err, want)
		}
	}
	out := filepath.Join(dir, "out.bin")
	if err := Check([]File{{"--out", out}, {"--other", ""}}, inputs); err != nil {
		t.Errorf("a fresh output: %v", err)
	}
	if err := Check([]File{{"--out", out}, {"--bundle", dir + "/./out.bin"}}, nil); err == nil || !strings.Contains(err.Error(), "is also --out") {
		t.Errorf("two outputs, one file: err = %v", err)
	}
	if Within(dir, sub) || Within(filepath.Join(dir, "subx", "a"), sub) || !Within(filepath.Join(sub, "a"), sub) {
		t.Error("Within: wrong answer for a parent, a sibling with a common prefix or a child")
	}
}

// TestSamePath: two spellings of one file are the same path: relative and
// absolute, through a symbolic link to its directory, or a hard link.
func TestSamePath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	file := filepath.Join(dir, "x.vec")
	if !SamePath("x.vec", file) || !SamePath(filepath.Join(link, "x.vec"), file) || !SamePath("./sub/../x.vec", file) {
		t.Error("relative, symlinked or unclean spellings of one path not recognised")
	}
	if SamePath("y.vec", file) || SamePath("", ".") || SamePath(dir, "") {
		t.Error("two files taken for one (or an empty path for the working directory)")
	}
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.vec")
	if err := os.Link(file, hard); err == nil && !SamePath(hard, file) {
		t.Error("a hard link to the file not recognised")
	}
}

// TestCheckWritableNamesTheDirectory: an output in a missing directory, under
// a file or in a directory that cannot be written is refused with the
// directory and the reason, never the name of the file the check creates.
func TestCheckWritableNamesTheDirectory(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nonexist", "dir")
	err := CheckWritable(filepath.Join(missing, "x.vec"))
	if err == nil || !strings.Contains(err.Error(), "cannot write to directory "+missing+", which does not exist") || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing directory: %v", err)
	}
	cases := []error{err}
	err = CheckWritable(filepath.Join(file, "x.vec"))
	if err == nil || !strings.Contains(err.Error(), "cannot write to directory "+file+": not a directory") {
		t.Errorf("directory that is a file: %v", err)
	}
	cases = append(cases, err)
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		err = CheckWritable(filepath.Join(ro, "x.vec"))
		if err == nil || !strings.Contains(err.Error(), "cannot write to directory "+ro) || !errors.Is(err, fs.ErrPermission) {
			t.Errorf("read-only directory: %v", err)
		}
		cases = append(cases, err)
	}
	for _, err := range cases {
		if err != nil && strings.Contains(err.Error(), "text2vec-am-check") {
			t.Errorf("%v names the check's own file", err)
		}
	}
}
