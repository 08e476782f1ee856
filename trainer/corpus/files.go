package corpus

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/text2vec-am/text2vec-am/internal/outpath"
	"github.com/text2vec-am/text2vec-am/model"
)

// source is one path as given by the user, with the files it stands for.
type source struct {
	arg   string
	files []string
}

// Files resolves paths to the corpus files they stand for, in order: a regular
// file is itself; a directory is every regular file below it, recursively,
// sorted by path, skipping names that start with '.'. It fails on a missing or
// unreadable path, on a directory without files and when paths is empty.
func Files(paths []string) ([]string, error) {
	srcs, err := resolve(paths)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, s := range srcs {
		files = append(files, s.files...)
	}
	return files, nil
}

// resolve expands every path into its files.
func resolve(paths []string) ([]source, error) {
	if len(paths) == 0 {
		return nil, errors.New("corpus: no path given")
	}
	srcs := make([]source, 0, len(paths))
	for _, p := range paths {
		if p == "" {
			return nil, errors.New("corpus: empty path")
		}
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("corpus: %w", err)
		}
		switch {
		case info.Mode().IsRegular():
			srcs = append(srcs, source{arg: p, files: []string{p}})
		case info.IsDir():
			files, err := walkDir(p)
			if err != nil {
				return nil, err
			}
			if len(files) == 0 {
				return nil, fmt.Errorf("corpus directory %s: no files", p)
			}
			srcs = append(srcs, source{arg: p, files: files})
		default:
			return nil, fmt.Errorf("corpus %s: not a regular file or directory: it is %s", p, model.FileKind(info.Mode()))
		}
	}
	return srcs, nil
}

// ReadsFile reports whether reading the corpus directory dir reads the file
// at path, which need not exist yet: it lies inside dir and no name below
// dir on its way is hidden (the walk skips those), the links on its way
// resolved (outpath.Below). A trainer checks with it that a file it will
// write (a checkpoint) is not read as corpus later.
func ReadsFile(dir, path string) bool {
	rel, ok := outpath.Below(path, dir)
	if !ok {
		return false
	}
	for _, name := range strings.Split(rel, string(filepath.Separator)) {
		if strings.HasPrefix(name, ".") {
			return false
		}
	}
	return true
}

// ErrOutputInCorpus reports an output file that the corpus it is made from
// reads or holds: writing it would change the corpus, or a later run over
// the corpus would read it as corpus text.
var ErrOutputInCorpus = errors.New("output inside the corpus")

// CheckOutputs fails, with an error wrapping ErrOutputInCorpus that names
// the output and the corpus path, when one of outs (an empty Path is no
// output) is a file of the corpus at paths, now or once written:
//   - it is one of paths, under that name or another (outpath.SamePath);
//   - it lies inside one of the directories among paths, where the walk
//     reads it (ReadsFile: a hidden name on its way keeps it out);
//   - it is a file the walk of such a directory reads, under another name:
//     a hard link, a symbolic link to it or from it, or a symbolic link in
//     the directory that leads to where the output will be written.
//
// Paths that cannot be read are left to the corpus reader, which reports
// them. Commands call it before any work.
func CheckOutputs(paths []string, outs []outpath.File) error {
	for _, p := range paths {
		if err := checkCorpusPath(p, outs); err != nil {
			return err
		}
	}
	return nil
}

// checkCorpusPath is CheckOutputs for the corpus path p: one walk of it when
// it is a directory, whatever the number of outputs.
func checkCorpusPath(p string, outs []outpath.File) error {
	info, err := os.Stat(p)
	isDir := err == nil && info.IsDir()
	kind := "file"
	if isDir {
		kind = "directory"
	}
	for _, o := range outs {
		switch {
		case o.Path == "":
		case outpath.SamePath(o.Path, p):
			return fmt.Errorf("%w: %s %s is the --corpus %s %s: writing it would destroy the corpus: give %s a "+
				"path outside the corpus", ErrOutputInCorpus, o.Flag, o.Path, kind, p, o.Flag)
		case isDir && ReadsFile(p, o.Path):
			return fmt.Errorf("%w: %s %s is inside the --corpus directory %s, where a later run would read it as "+
				"corpus: give %s a path outside it", ErrOutputInCorpus, o.Flag, o.Path, p, o.Flag)
		}
	}
	if !isDir {
		return nil
	}
	return checkLinks(p, outs)
}

// checkLinks fails when an output is a file the walk of the corpus
// directory dir reads, under another name: when the output exists, the same
// file (a hard link, or a symbolic link either way); when it does not yet,
// a symbolic link that leads to where it will be. A directory that cannot
// be walked is left to the corpus reader.
func checkLinks(dir string, outs []outpath.File) error {
	infos := make([]fs.FileInfo, len(outs)) // nil: no file there yet
	anyExists := false
	for i, o := range outs {
		if o.Path != "" {
			infos[i], _ = os.Stat(o.Path)
			anyExists = anyExists || infos[i] != nil
		}
	}
	var found error
	_ = walkEntries(dir, func(path string, d fs.DirEntry) bool { // its error is the corpus reader's to report
		if !anyExists && d.Type()&fs.ModeSymlink == 0 {
			return true // only a link can lead to a file not written yet
		}
		info, statErr := os.Stat(path)
		end := ""
		for i, o := range outs {
			switch {
			case o.Path == "":
			case infos[i] != nil && statErr == nil && info.Mode().IsRegular() && os.SameFile(info, infos[i]):
				found = fmt.Errorf("%w: %s %s is the corpus file %s under another name (a link): writing it "+
					"would change the corpus: give %s a path outside the corpus", ErrOutputInCorpus, o.Flag, o.Path,
					path, o.Flag)
			case infos[i] == nil && statErr != nil && d.Type()&fs.ModeSymlink != 0:
				if end == "" {
					end = linkEnd(path)
				}
				if outpath.SamePath(o.Path, end) {
					found = fmt.Errorf("%w: %s %s is where the symbolic link %s in the --corpus directory %s leads: "+
						"a later run would read it as corpus: give %s a path outside the corpus",
						ErrOutputInCorpus, o.Flag, o.Path, path, dir, o.Flag)
				}
			}
			if found != nil {
				return false
			}
		}
		return true
	})
	return found
}

// maxLinks bounds the symbolic links linkEnd follows, as the kernel does.
const maxLinks = 40

// isSeparator reports whether r separates the names of a path.
func isSeparator(r rune) bool { return r == filepath.Separator || r == '/' }

// linkEnd returns the path that the chain of symbolic links starting at
// path ends at, which need not exist; path itself when it is no link.
func linkEnd(path string) string {
	for range maxLinks {
		target, err := os.Readlink(path)
		if err != nil {
			return path
		}
		if !filepath.IsAbs(target) {
			// The directory holding the link, its names as given: filepath.Dir
			// and Join would clean a ".." after a link lexically, where the
			// system goes to the parent of the link's target.
			dir := path[:strings.LastIndexFunc(path, isSeparator)+1]
			if dir == "" {
				dir = "." // a relative path of one name
			}
			if r, err := filepath.EvalSymlinks(dir); err == nil {
				dir = r
			}
			target = strings.TrimRightFunc(dir, isSeparator) + string(filepath.Separator) + target
		}
		path = target
	}
	return path
}

// CheckCheckpoint fails when the checkpoint at ckpt would lie inside one of
// the corpus directories among paths, where a later run would read it as
// corpus, or be a file such a directory reads under another name (a link
// there leading to it: checkLinks), or cannot be written: its directory,
// created first (a --checkpoint-dir may name a new one), is not writable.
// Trainers call it before any work, so that no epoch is lost to a
// checkpoint that fails.
func CheckCheckpoint(ckpt string, paths []string) error {
	for _, p := range paths {
		if info, err := os.Stat(p); err != nil || !info.IsDir() {
			continue
		}
		if ReadsFile(p, ckpt) {
			return fmt.Errorf("the checkpoint %s would be inside the --corpus directory %s, where a later run "+
				"would read it as corpus: choose a --checkpoint-dir outside it", ckpt, p)
		}
		if err := checkLinks(p, []outpath.File{{Flag: "the checkpoint", Path: ckpt}}); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(ckpt), 0o755); err != nil {
		return fmt.Errorf("--checkpoint-dir %s: %w", filepath.Dir(ckpt), err)
	}
	if err := outpath.CheckWritable(ckpt); err != nil {
		return fmt.Errorf("--checkpoint-dir: %w", err)
	}
	return nil
}

// walkDir lists the regular files below dir, sorted, skipping hidden names:
// the regular entries and the symbolic links to regular files of
// walkEntries.
func walkDir(dir string) ([]string, error) {
	var files []string
	err := walkEntries(dir, func(path string, d fs.DirEntry) bool {
		if d.Type().IsRegular() {
			files = append(files, path)
		} else if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() {
			files = append(files, path)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	return files, nil
}

// walkEntries calls fn with every regular file and symbolic link below dir,
// skipping hidden names, until fn returns false. A dir that is a symbolic
// link to a directory is walked as that directory.
func walkEntries(dir string, fn func(path string, d fs.DirEntry) bool) error {
	root := dir
	if info, err := os.Lstat(dir); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		root = filepath.Clean(dir) + string(filepath.Separator) // the separator makes the walk follow the link
	}
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("corpus directory %s: %w", dir, err)
		}
		if path != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if (d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0) && !fn(path, d) {
			return filepath.SkipAll
		}
		return nil
	})
}

// totalSize returns the summed size of files on disk.
func totalSize(files []string) int64 {
	var n int64
	for _, f := range files {
		if info, err := os.Stat(f); err == nil {
			n += info.Size()
		}
	}
	return n
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// openFile opens a corpus file, decompressing it when it starts with the gzip
// magic bytes (gzipped; false also when the file cannot be read at an
// offset, as a pipe). raw counts the bytes read from disk.
func openFile(path string) (r io.Reader, raw *countingReader, gzipped bool, closeFn func() error, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, false, nil, fmt.Errorf("corpus: %w", err)
	}
	var magic [2]byte
	n, _ := f.ReadAt(magic[:], 0)
	gzipped = n == len(magic) && magic == [2]byte{0x1f, 0x8b}
	raw = &countingReader{r: f}
	r, closeZ, err := model.MaybeGunzip(raw, readBuffer)
	if err != nil {
		f.Close()
		return nil, nil, false, nil, fmt.Errorf("read corpus file %s: %w", path, err)
	}
	return r, raw, gzipped, func() error { return errors.Join(closeZ(), f.Close()) }, nil
}
