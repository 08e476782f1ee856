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
// dir on its way is hidden (the walk skips those). A trainer checks with it
// that a file it will write (a checkpoint) is not read as corpus later.
func ReadsFile(dir, path string) bool {
	if !outpath.Within(path, dir) {
		return false
	}
	d, err := filepath.Abs(dir)
	p, perr := filepath.Abs(path)
	rel, rerr := filepath.Rel(d, p)
	if err != nil || perr != nil || rerr != nil || strings.HasPrefix(rel, "..") {
		return true // inside by its links: its names below dir are not told
	}
	for _, name := range strings.Split(rel, string(filepath.Separator)) {
		if strings.HasPrefix(name, ".") {
			return false
		}
	}
	return true
}

// CheckOutputs fails when one of outs (an empty Path is no output) lies
// inside one of the corpus directories among paths, where the next run over
// the same corpus would read it as corpus (a model as binary data, word
// vectors as text, silently). Trainers call it before any work.
func CheckOutputs(paths []string, outs []outpath.File) error {
	for _, p := range paths {
		if info, err := os.Stat(p); err != nil || !info.IsDir() {
			continue
		}
		for _, o := range outs {
			if o.Path != "" && ReadsFile(p, o.Path) {
				return fmt.Errorf("%s %s is inside the --corpus directory %s, where the next run would read it as "+
					"corpus: give %s a path outside it", o.Flag, o.Path, p, o.Flag)
			}
		}
	}
	return nil
}

// CheckCheckpoint fails when the checkpoint at ckpt would lie inside one of
// the corpus directories among paths, where a later run would read it as
// corpus, or cannot be written: its directory, created first (a
// --checkpoint-dir may name a new one), is not writable. Trainers call it
// before any work, so that no epoch is lost to a checkpoint that fails.
func CheckCheckpoint(ckpt string, paths []string) error {
	for _, p := range paths {
		if info, err := os.Stat(p); err == nil && info.IsDir() && ReadsFile(p, ckpt) {
			return fmt.Errorf("the checkpoint %s would be inside the --corpus directory %s, where a later run "+
				"would read it as corpus: choose a --checkpoint-dir outside it", ckpt, p)
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

// walkDir lists the regular files below dir, sorted, skipping hidden names.
// A dir that is a symbolic link to a directory is walked as that directory.
func walkDir(dir string) ([]string, error) {
	var files []string
	root := dir
	if info, err := os.Lstat(dir); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		root = filepath.Clean(dir) + string(filepath.Separator) // the separator makes the walk follow the link
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("corpus directory %s: %w", dir, err)
		}
		if path != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			files = append(files, path)
		} else if d.Type()&fs.ModeSymlink != 0 {
			if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() {
				files = append(files, path)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	return files, nil
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
