// Package outpath checks, before any work, the files a command is going to
// write: each can be written (its directory exists and takes files, it is
// not a directory) and none is the same file as another output or as one of
// the command's inputs, which writing it would destroy. Paths are compared
// absolute, with the symbolic links of their directories resolved, and
// existing files by identity (a relative spelling, a symlink or a hard link
// names the same file).
package outpath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// File is a path a command was given, with the flag or argument that gave
// it (for error messages: "--out", "PAIRS").
type File struct {
	Flag, Path string
}

// Check fails when an output cannot be written (CheckWritable), is the same
// file as another output (SamePath), or is the same file as an input file
// or lies inside an input directory (inputs that are directories: a new file
// there would become one of their entries). Empty paths are skipped. The
// error names the flags and the path.
func Check(outputs, inputs []File) error {
	for i, o := range outputs {
		if o.Path == "" {
			continue
		}
		for _, p := range outputs[:i] {
			if SamePath(o.Path, p.Path) {
				return fmt.Errorf("%s %s is also %s: one output would overwrite the other", o.Flag, o.Path, p.Flag)
			}
		}
		for _, in := range inputs {
			if err := checkInput(o, in); err != nil {
				return err
			}
		}
		if err := CheckWritable(o.Path); err != nil {
			return fmt.Errorf("%s: %w", o.Flag, err)
		}
	}
	return nil
}

// checkInput refuses output o when it is input in, or lies inside it when
// in is a directory.
func checkInput(o, in File) error {
	if SamePath(o.Path, in.Path) {
		return fmt.Errorf("%s %s is the input %s: writing it would destroy that input", o.Flag, o.Path, in.Flag)
	}
	if info, err := os.Stat(in.Path); err == nil && info.IsDir() && Within(o.Path, in.Path) {
		return fmt.Errorf("%s %s is inside the input directory %s %s: write it elsewhere", o.Flag, o.Path, in.Flag, in.Path)
	}
	return nil
}

// SamePath reports whether paths a and b name the same file: the same
// absolute path once symbolic links in their directories are resolved, or
// (when both exist) the same file on disk. An empty path names no file.
func SamePath(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	ra, rb := resolvedPath(a), resolvedPath(b)
	if ra == rb {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// Within reports whether path lies in directory dir or below it (both
// resolved as SamePath resolves them; dir's own symbolic link too).
func Within(path, dir string) bool {
	d := resolvedPath(dir)
	if r, err := filepath.EvalSymlinks(d); err == nil {
		d = r
	}
	rel, err := filepath.Rel(d, resolvedPath(path))
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// resolvedPath is p made absolute with the symbolic links of its directory
// resolved (as far as they can be; p cleaned when not).
func resolvedPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

// CheckWritable fails early (before hours of work) when path cannot be
// written: its directory is missing or not writable, or path is a directory.
func CheckWritable(path string) error {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return fmt.Errorf("output %s is a directory", path)
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".text2vec-am-check*")
	if err != nil {
		// The name of the file the check creates would only puzzle: name the
		// directory and the reason.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("output %s: cannot write to directory %s, which does not exist: %w", path, dir, err)
		}
		return fmt.Errorf("output %s: cannot write to directory %s: %w", path, dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}
