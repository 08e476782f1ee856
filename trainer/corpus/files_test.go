package corpus

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/internal/outpath"
)

// linkedCorpus makes a corpus directory (a.txt, sub/b.txt, a hidden
// directory, a hidden link to sub), a corpus file given by itself and a
// directory outside both, and returns the three; it skips the test where
// links cannot be made.
func linkedCorpus(t *testing.T) (dir, file, outside string) {
	t.Helper()
	root := t.TempDir()
	dir, file, outside = filepath.Join(root, "corpus"), filepath.Join(root, "c.txt"), filepath.Join(root, "out")
	writeFile(t, filepath.Join(dir, "a.txt"), []byte("some words\n"))
	writeFile(t, filepath.Join(dir, "sub", "b.txt"), []byte("more words\n"))
	writeFile(t, filepath.Join(dir, ".hidden", "h.txt"), []byte("skipped\n"))
	writeFile(t, file, []byte("a file\n"))
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "sub"), filepath.Join(dir, ".alias")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	return dir, file, outside
}

// link makes a symbolic link (hard false) or a hard link at name to target.
func link(t *testing.T, target, name string, hard bool) string {
	t.Helper()
	mk := os.Symlink
	if hard {
		mk = os.Link
	}
	if err := mk(target, name); err != nil {
		t.Skip("no links here:", err)
	}
	return name
}

// TestCheckOutputsRefuses: an output that is a corpus path, lies where the
// walk of a corpus directory reads it (also by a hidden link to a visible
// directory), or is a file of the corpus under another name (a link either
// way, a hard link, a link in the corpus to where it will be written) is
// refused with ErrOutputInCorpus, by an error naming the flag, the output
// and the corpus file or directory.
func TestCheckOutputsRefuses(t *testing.T) {
	dir, file, outside := linkedCorpus(t)
	lead := filepath.Join(outside, "lead-target.vec") // not written yet: the corpus link to it dangles
	link(t, lead, filepath.Join(dir, "sub", "lead.txt"), false)
	for _, c := range []struct {
		paths    []string
		out      string
		wantPath string // besides the output
	}{
		{[]string{dir}, filepath.Join(dir, "m.vec"), dir},
		{[]string{dir}, filepath.Join(dir, "new", "m.vec"), dir},
		{[]string{dir}, dir, dir},
		{[]string{dir}, filepath.Join(dir, ".alias", "m.vec"), dir},
		{[]string{file}, file, file},
		{[]string{file}, link(t, file, filepath.Join(outside, "to-file.vec"), false), file},
		{[]string{dir}, link(t, filepath.Join(dir, "a.txt"), filepath.Join(outside, "to-a.vec"), false),
			filepath.Join(dir, "a.txt")},
		{[]string{dir}, link(t, filepath.Join(dir, "sub", "b.txt"), filepath.Join(outside, "hard-b.vec"), true),
			filepath.Join(dir, "sub", "b.txt")},
		{[]string{dir}, lead, filepath.Join(dir, "sub", "lead.txt")},
		{[]string{file, dir}, filepath.Join(dir, "m.vec"), dir},
	} {
		err := CheckOutputs(c.paths, []outpath.File{{Flag: "--counts-out"}, {Flag: "--out", Path: c.out}})
		if !errors.Is(err, ErrOutputInCorpus) || !strings.Contains(err.Error(), "--out "+c.out+" is ") ||
			!strings.Contains(err.Error(), c.wantPath) {
			t.Errorf("out %s, corpus %v: err %v, want ErrOutputInCorpus naming --out %s and %s",
				c.out, c.paths, err, c.out, c.wantPath)
		}
	}
}

// TestCheckOutputsAccepts: an output the corpus never reads passes: beside
// the corpus, under a hidden name inside a corpus directory, an unrelated
// existing file, the target of a link the walk skips (a hidden one), and
// any output when a corpus path is missing (the reader reports that).
func TestCheckOutputsAccepts(t *testing.T) {
	dir, file, outside := linkedCorpus(t)
	existing := filepath.Join(outside, "old.vec")
	writeFile(t, existing, []byte("old"))
	hiddenLead := filepath.Join(outside, "hidden-target.vec")
	link(t, hiddenLead, filepath.Join(dir, ".lead.txt"), false)
	paths := []string{dir, file, filepath.Join(outside, "missing")}
	for _, out := range []string{
		filepath.Join(outside, "m.vec"),
		filepath.Join(dir, ".hidden", "m.vec"),
		filepath.Join(dir, "sub", ".m.vec"),
		filepath.Join(dir, ".new", "deeper", "m.vec"),
		existing,
		hiddenLead,
		filepath.Join(dir, ".hidden", "h.txt"),
	} {
		if err := CheckOutputs(paths, []outpath.File{{Flag: "--out", Path: out}}); err != nil {
			t.Errorf("out %s: %v", out, err)
		}
	}
}

// TestReadsFileThroughLinks: a hidden link to a visible directory of the
// corpus does not hide what is written through it, nor does a link to the
// corpus a directory not created yet (a --checkpoint-dir); a visible link
// out of the corpus does not bring it in (the walk does not follow it).
func TestReadsFileThroughLinks(t *testing.T) {
	dir, _, outside := linkedCorpus(t)
	away := link(t, outside, filepath.Join(dir, "away"), false)
	back := link(t, dir, filepath.Join(outside, "back"), false)
	for path, want := range map[string]bool{
		filepath.Join(dir, ".alias", "m.vec"):     true,
		filepath.Join(dir, ".alias", ".m.vec"):    false,
		filepath.Join(away, "m.vec"):              false,
		filepath.Join(dir, "sub", "new", "m.vec"): true,
		filepath.Join(back, "ck", "m.ckpt"):       true,
		filepath.Join(back, ".ck", "m.ckpt"):      false,
	} {
		if got := ReadsFile(dir, path); got != want {
			t.Errorf("ReadsFile(%s, %s) = %v, want %v", dir, path, got, want)
		}
	}
}

// TestWriteTokensFileHiddenInCorpus: a tokens file under a hidden name in
// the corpus directory is written, and the next read does not see it.
func TestWriteTokensFileHiddenInCorpus(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.txt"), []byte("Some Words\n"))
	out := filepath.Join(dir, ".tokens.txt")
	if _, err := WriteTokensFile(context.Background(), []string{dir}, nil, outFile(out)); err != nil {
		t.Fatal(err)
	}
	files, err := Files([]string{dir})
	if b, _ := os.ReadFile(out); string(b) != "some words\n" || err != nil || len(files) != 1 {
		t.Fatalf("tokens %q; corpus files %v (%v), want a.txt alone", b, files, err)
	}
}

// TestCheckCheckpointRefusesALinkToIt: a checkpoint where a symbolic link
// in a corpus directory leads would be read as corpus by the next run: it
// is refused, naming the link, with ErrOutputInCorpus.
func TestCheckCheckpointRefusesALinkToIt(t *testing.T) {
	dir, _, outside := linkedCorpus(t)
	ckpt := filepath.Join(outside, "ck", "m.ckpt")
	lead := link(t, ckpt, filepath.Join(dir, "lead.txt"), false)
	err := CheckCheckpoint(ckpt, []string{dir})
	if !errors.Is(err, ErrOutputInCorpus) || !strings.Contains(err.Error(), lead) {
		t.Fatalf("err = %v, want ErrOutputInCorpus naming the link %s", err, lead)
	}
	if err := CheckCheckpoint(filepath.Join(outside, "ck", "other.ckpt"), []string{dir}); err != nil {
		t.Fatalf("a checkpoint no link leads to: %v", err)
	}
}

// TestCheckOutputsFollowsDotDotAfterALink: the outputs spelt with a ".."
// after a link to a directory lie where the system opens them: inside the
// corpus directory when the link leads into it, and where a corpus link with
// such a relative target leads when it leads out of it.
func TestCheckOutputsFollowsDotDotAfterALink(t *testing.T) {
	dir, _, outside := linkedCorpus(t)
	root := filepath.Dir(dir)
	sep := string(filepath.Separator)
	shortcut := link(t, filepath.Join(dir, "sub"), filepath.Join(root, "shortcut"), false)
	if err := os.Mkdir(filepath.Join(outside, "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	link(t, filepath.Join(outside, "deep"), filepath.Join(root, "jump"), false)
	lead := link(t, ".."+sep+".."+sep+"jump"+sep+".."+sep+"t.vec", filepath.Join(dir, "sub", "up.txt"), false)
	for out, want := range map[string]string{
		shortcut + sep + ".." + sep + "m.vec": "is inside the --corpus directory " + dir,
		filepath.Join(outside, "t.vec"):       "is where the symbolic link " + lead,
	} {
		err := CheckOutputs([]string{dir}, []outpath.File{{Flag: "--out", Path: out}})
		if !errors.Is(err, ErrOutputInCorpus) || !strings.Contains(err.Error(), want) {
			t.Errorf("out %s: err %v, want ErrOutputInCorpus and %q", out, err, want)
		}
	}
	if err := CheckOutputs([]string{dir}, []outpath.File{{Flag: "--out", Path: filepath.Join(root, "t.vec")}}); err != nil {
		t.Errorf("out %s, where no corpus link leads: %v", filepath.Join(root, "t.vec"), err)
	}
}
