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

// TestCheckDistinct: CheckDistinct refuses an output that is an input (a
// file, or inside a directory) or one of the other outputs, and, unlike
// Check, takes an output whose directory does not exist yet.
func TestCheckDistinct(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(in, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	inputs := []File{{"--in", in}, {"DIR", filepath.Join(dir, "corpus")}}
	if err := os.Mkdir(inputs[1].Path, 0o755); err != nil {
		t.Fatal(err)
	}
	sep := string(filepath.Separator)
	later := filepath.Join(dir, "later", "x.txt") // its directory is made after the check
	others := []File{{"--out", filepath.Join(dir, "out.bin")}, {"--later", later}}
	for _, c := range []struct {
		out  File
		want string
	}{
		{File{"--out2", in}, "--out2 " + in + " is the input --in: writing it would destroy that input"},
		{File{"--out2", dir + sep + "corpus" + sep + ".." + sep + "in.txt"}, "is the input --in " + in},
		{File{"--out2", filepath.Join(dir, "corpus", "new", "x")}, "is inside the input directory DIR"},
		{File{"--out2", others[0].Path}, "--out2 " + others[0].Path + " is also --out " + others[0].Path +
			": one output would overwrite the other"},
		{File{"--out2", dir + sep + "." + sep + "later" + sep + "x.txt"}, "is also --later " + later},
	} {
		if err := CheckDistinct(c.out, others, inputs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: err = %v, want one containing %q", c.out.Flag, c.out.Path, err, c.want)
		}
	}
	fresh := File{"--out2", filepath.Join(dir, "later", "y.txt")}
	if err := CheckDistinct(fresh, others, inputs); err != nil {
		t.Errorf("an output in a directory not made yet: %v", err)
	}
	if err := CheckDistinct(File{"--none", ""}, others, inputs); err != nil {
		t.Errorf("an empty path: %v", err)
	}
	if err := Check([]File{fresh}, inputs); !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "--out2: ") {
		t.Errorf("Check of an output in a missing directory: %v, want CheckWritable's error (fs.ErrNotExist) after the flag", err)
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
// directory (absolute), the component at fault and the reason, said once,
// never the name of the file the check creates; the error is an
// *fs.PathError of the directory.
func TestCheckWritableNamesTheDirectory(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nonexist", "dir")
	var cases []error
	for _, c := range []struct {
		path, dir, want string
		notExist        bool
	}{
		{filepath.Join(missing, "x.vec"), missing,
			"cannot write to directory " + missing + ": " + filepath.Join(dir, "nonexist") + " does not exist", true},
		{filepath.Join(dir, "new", "x.vec"), filepath.Join(dir, "new"),
			"cannot write to directory " + filepath.Join(dir, "new") + ", which does not exist", true},
		{filepath.Join(file, "x.vec"), file,
			"cannot write to directory " + file + ", which is a file, not a directory", false},
		{filepath.Join(file, "sub", "x.vec"), filepath.Join(file, "sub"),
			"cannot write to directory " + filepath.Join(file, "sub") + ": " + file + " is a file, not a directory", false},
	} {
		err := CheckWritable(c.path)
		if err == nil || !strings.HasSuffix(err.Error(), c.want) || errors.Is(err, fs.ErrNotExist) != c.notExist {
			t.Errorf("%s: %v, want one ending %q (errors.Is ErrNotExist %v)", c.path, err, c.want, c.notExist)
		}
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Path != c.dir {
			t.Errorf("%s: %v: not an *fs.PathError of %s", c.path, err, c.dir)
		}
		cases = append(cases, err)
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		err := CheckWritable(filepath.Join(ro, "x.vec"))
		var pe *fs.PathError
		if err == nil || !strings.HasSuffix(err.Error(), "cannot write to directory "+ro+": permission denied") ||
			!errors.Is(err, fs.ErrPermission) || !errors.As(err, &pe) || pe.Path != ro {
			t.Errorf("read-only directory: %v", err)
		}
		cases = append(cases, err)
		t.Chdir(ro)
		err = CheckWritable("x.vec")
		if err == nil || !strings.Contains(err.Error(), "cannot write to directory "+ro+": ") {
			t.Errorf("relative path in a read-only working directory: %v, want one naming %s", err, ro)
		}
	}
	for _, err := range cases {
		if err != nil && strings.Contains(err.Error(), "text2vec-am-check") {
			t.Errorf("%v names the check's own file", err)
		}
	}
}

// TestCheckWritableRelative: a relative output is refused naming its
// directory absolute ("." would say nothing).
func TestCheckWritableRelative(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("afile", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"nonexist/x.vec": "output nonexist/x.vec: cannot write to directory " + filepath.Join(dir, "nonexist") +
			", which does not exist",
		"afile/sub/x.vec": "output afile/sub/x.vec: cannot write to directory " + filepath.Join(dir, "afile", "sub") +
			": " + filepath.Join(dir, "afile") + " is a file, not a directory",
		"x.vec/":          "output x.vec/ names a directory (it ends in /): give the path of a file",
		"nonexist/x.vec/": "output nonexist/x.vec/ names a directory (it ends in /)",
	} {
		if err := CheckWritable(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
	if err := CheckWritable("x.vec"); err != nil {
		t.Errorf("x.vec in a writable working directory: %v", err)
	}
}

// TestBelowThroughLinks: Below and Within resolve the links on the way,
// also above directories not created yet, and name what lies on disk.
func TestBelowThroughLinks(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	if err := os.MkdirAll(filepath.Join(corpus, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(corpus, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	hidden := filepath.Join(corpus, ".to-sub")
	if err := os.Symlink(filepath.Join(corpus, "sub"), hidden); err != nil {
		t.Fatal(err)
	}
	sep := string(filepath.Separator)
	for _, c := range []struct {
		path, dir, want string
		ok              bool
	}{
		{filepath.Join(link, "new", "deeper", "x.ckpt"), corpus, "new" + sep + "deeper" + sep + "x.ckpt", true},
		{filepath.Join(corpus, "new", "x.ckpt"), link, "new" + sep + "x.ckpt", true},
		{filepath.Join(hidden, "x.vec"), corpus, "sub" + sep + "x.vec", true},
		{filepath.Join(link, "..", "x.vec"), corpus, "", false},
		{corpus, link, "", false},
	} {
		rel, ok := Below(c.path, c.dir)
		if rel != c.want || ok != c.ok || Within(c.path, c.dir) != c.ok {
			t.Errorf("Below(%s, %s) = %q, %v; want %q, %v", c.path, c.dir, rel, ok, c.want, c.ok)
		}
	}
}

// TestCheckNamesTheLinkedInput: an output that is an input under another
// name (a link to it) is refused naming both paths; one spelt as the input
// is named once.
func TestCheckNamesTheLinkedInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(in, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "out.vec")
	if err := os.Symlink(in, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	inputs := []File{{"--corpus", in}}
	want := "--out " + link + " is the input --corpus " + in + ": writing it would destroy that input"
	if err := Check([]File{{"--out", link}}, inputs); err == nil || err.Error() != want {
		t.Errorf("a link to the input: %v, want %q", err, want)
	}
	want = "--out " + in + " is the input --corpus: writing it would destroy that input"
	if err := Check([]File{{"--out", in}}, inputs); err == nil || err.Error() != want {
		t.Errorf("the input itself: %v, want %q", err, want)
	}
}

// TestDotDotAfterLink: a ".." that follows a link to a directory leads to
// the parent of the link's target, as the system opens the path, not to the
// directory holding the link: an output spelt so lies in the target's
// parent, and names the same file as that parent's entry.
func TestDotDotAfterLink(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "corpus")
	if err := os.MkdirAll(filepath.Join(corpus, "texts"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "shortcut")
	if err := os.Symlink(filepath.Join(corpus, "texts"), link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	sep := string(filepath.Separator)
	up := link + sep + ".." + sep // not cleaned: filepath.Join would drop the link
	for _, c := range []struct {
		path, want string
	}{
		{up + "m.vec", "m.vec"},
		{up + "new" + sep + "m.vec", "new" + sep + "m.vec"},
		{up + "texts" + sep + ".." + sep + "m.vec", "m.vec"},
		{link + sep + "new" + sep + ".." + sep + "m.vec", "texts" + sep + "m.vec"},
	} {
		if rel, ok := Below(c.path, corpus); rel != c.want || !ok {
			t.Errorf("Below(%s, %s) = %q, %v; want %q, true", c.path, corpus, rel, ok, c.want)
		}
	}
	if !SamePath(up+"m.vec", filepath.Join(corpus, "m.vec")) {
		t.Errorf("SamePath(%s, %s) = false before either exists", up+"m.vec", filepath.Join(corpus, "m.vec"))
	}
	if Within(up+"m.vec", dir) && !Within(up+"m.vec", corpus) {
		t.Errorf("%s is taken for an entry of %s", up+"m.vec", dir)
	}
}
