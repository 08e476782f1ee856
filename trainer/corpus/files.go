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
