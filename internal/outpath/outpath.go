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
	"syscall"
)

// File is a path a command was given, with the flag or argument that gave
// it (for error messages: "--out", "PAIRS").
type File struct {
	Flag, Path string
}

// Check fails when an output is not distinct from the other outputs and
// the inputs (CheckDistinct) or cannot be written (CheckWritable), each
// output checked in turn against those before it. Empty paths are skipped.
// The error names the flags and the paths; a CheckWritable failure is
// wrapped (errors.Is finds fs.ErrNotExist or fs.ErrPermission through it).
func Check(outputs, inputs []File) error {
	for i, o := range outputs {
		if o.Path == "" {
			continue
		}
		if err := CheckDistinct(o, outputs[:i], inputs); err != nil {
			return err
		}
		if err := CheckWritable(o.Path); err != nil {
			return fmt.Errorf("%s: %w", o.Flag, err)
		}
	}
	return nil
}

// CheckDistinct fails when output out is the same file as one of the
// outputs others (SamePath: one would overwrite the other), or the same
// file as an input file or inside an input directory (inputs that are
// directories: a new file there would become one of their entries). It is
// Check without CheckWritable, for one output: for an output whose
// directory the command makes later, or outputs known distinct among
// themselves, each checked against others alone (no pairwise pass). Empty
// paths are skipped. The error names the flags and the paths.
func CheckDistinct(out File, others, inputs []File) error {
	if out.Path == "" {
		return nil
	}
	for _, p := range others {
		if SamePath(out.Path, p.Path) {
			return fmt.Errorf("%s %s is also %s %s: one output would overwrite the other", out.Flag, out.Path, p.Flag, p.Path)
		}
	}
	for _, in := range inputs {
		if err := checkInput(out, in); err != nil {
			return err
		}
	}
	return nil
}

// checkInput refuses output o when it is input in, or lies inside it when
// in is a directory. The error names the input's path when o spells it
// otherwise.
func checkInput(o, in File) error {
	if SamePath(o.Path, in.Path) {
		name := in.Flag
		if in.Path != o.Path {
			name += " " + in.Path // another spelling, or a link: say which file
		}
		return fmt.Errorf("%s %s is the input %s: writing it would destroy that input", o.Flag, o.Path, name)
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
	_, ok := Below(path, dir)
	return ok
}

// Below returns the names that lead from directory dir down to path, joined
// by the separator, when path lies in dir or below it (Within): both are
// resolved first, so the names are those of the directories on disk, not
// of the links that reach them. A path that lies elsewhere returns "" and
// false.
func Below(path, dir string) (string, bool) {
	d := resolvedPath(dir)
	if r, err := filepath.EvalSymlinks(d); err == nil {
		d = r
	}
	rel, err := filepath.Rel(d, resolvedPath(path))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// resolvedPath is p made absolute with the symbolic links of its directory
// resolved: those of its longest existing ancestor, the names below that
// (not created yet) kept as they are. A ".." in the existing part leads to
// the parent of what the name before it resolves to, as the system opens
// the path (lexically, "link/.." would be the directory holding the link).
func resolvedPath(p string) string {
	abs := p
	if !filepath.IsAbs(abs) {
		wd, err := os.Getwd()
		if err != nil {
			return filepath.Clean(p)
		}
		abs = wd + string(filepath.Separator) + p // not filepath.Join: it would clean "link/.." away
	}
	vol := filepath.VolumeName(abs)
	var names []string
	for _, n := range strings.FieldsFunc(abs[len(vol):], func(r rune) bool { return r == filepath.Separator || r == '/' }) {
		if n != "." {
			names = append(names, n)
		}
	}
	resolve := len(names) - 1 // the names resolved: those of the directory
	if resolve < 0 || names[resolve] == ".." {
		resolve++ // "dir/..": the ".." goes where dir resolves to
	}
	for i := resolve; i >= 0; i-- {
		dir := vol + string(filepath.Separator) + strings.Join(names[:i], string(filepath.Separator))
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(append([]string{r}, names[i:]...)...)
		}
	}
	return filepath.Clean(abs)
}

// CheckWritable fails early (before hours of work) when path cannot be
// written: it names a directory (it is one, or ends in a separator), or
// its directory is missing, lies under a file or is not writable. The
// error names the directory absolute, and the component at fault: the
// first one missing, or the file that stands where a directory should. It
// wraps an *fs.PathError of that directory (errors.Is finds fs.ErrNotExist
// or fs.ErrPermission through it).
func CheckWritable(path string) error {
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return fmt.Errorf("output %s is a directory", path)
	}
	if path != "" && os.IsPathSeparator(path[len(path)-1]) {
		return fmt.Errorf("output %s names a directory (it ends in %c): give the path of a file", path, path[len(path)-1])
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".text2vec-am-check*")
	if err != nil {
		return dirError(path, dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// writeError is an output whose directory cannot be written: its message
// names the output, the directory and the reason once; it wraps the
// *fs.PathError of the directory.
type writeError struct {
	msg string
	err *fs.PathError
}

func (e *writeError) Error() string { return e.msg }

func (e *writeError) Unwrap() error { return e.err }

// dirError words err, the failure to create a file in dir (the directory
// of output path), without the name of the file the check tried to create
// (it would only puzzle).
func dirError(path, dir string, err error) error {
	if abs, aerr := filepath.Abs(dir); aerr == nil {
		dir = abs
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	we := &writeError{err: &fs.PathError{Op: "write to directory", Path: dir, Err: err}}
	prefix := fmt.Sprintf("output %s: cannot write to directory %s", path, dir)
	culprit, isFile := firstExisting(dir)
	switch {
	case (errors.Is(err, syscall.ENOTDIR) || errors.Is(err, fs.ErrNotExist)) && isFile && culprit == dir:
		we.msg = prefix + ", which is a file, not a directory"
	case (errors.Is(err, syscall.ENOTDIR) || errors.Is(err, fs.ErrNotExist)) && isFile:
		we.msg = fmt.Sprintf("%s: %s is a file, not a directory", prefix, culprit)
	case errors.Is(err, fs.ErrNotExist) && culprit == dir:
		we.msg = prefix + ", which does not exist"
	case errors.Is(err, fs.ErrNotExist) && culprit != "":
		we.msg = fmt.Sprintf("%s: %s does not exist", prefix, culprit)
	default:
		we.msg = fmt.Sprintf("%s: %v", prefix, err)
	}
	return we
}

// firstExisting walks up from dir (absolute) to the first path that
// exists. When that is a file, it returns the file and true; when it is a
// directory, the missing path just below it (dir itself when only dir is
// missing) and false; "" when no component can be told at fault.
func firstExisting(dir string) (string, bool) {
	below := ""
	for d := dir; ; d = filepath.Dir(d) {
		info, err := os.Stat(d)
		if err == nil {
			if !info.IsDir() {
				return d, true
			}
			return below, false
		}
		if filepath.Dir(d) == d {
			return "", false
		}
		below = d
	}
}
