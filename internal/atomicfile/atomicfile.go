// Package atomicfile replaces a file atomically: the new content goes to a
// temporary file in the target's directory (os.CreateTemp, named after the
// target: "name.tmp" and a random suffix), which gets the requested permission
// bits, is flushed, fsynced, renamed over the target and closed (closed first on
// Windows, which cannot rename an open file); the directory is
// then fsynced too, so the rename survives a crash (not on Windows, whose
// directories cannot be synced). A reader of the target sees the old content or
// the new, never a part. Any failure before the rename, a panic of the write
// callback included, removes the temporary file and leaves the target as it was.
// A temporary file that a killed writer left behind is removed by the next write
// of the same target (on systems with advisory locks: the writer holds one on its
// temporary file until it is renamed or removed).
//
// Errors name the target ("write PATH: …") and wrap their cause, so errors.Is
// and errors.As reach it (a *fs.PathError, a callback's own error). An error
// from closing the file or syncing the directory comes after the rename: the
// target then holds the new content, which a crash may still undo.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// Readable is the mode of the files the tools write for others to read
// (models, embeddings, counts, checkpoints, evaluation outputs): 0644, so that a
// container user other than their writer can load them.
const Readable fs.FileMode = 0o644

// bufferSize is the buffer of Write's writer: small enough that the larger
// writes of a writer with its own buffer pass it by uncopied.
const bufferSize = 64 << 10

// WriteFile replaces path with data, with permission bits perm (not reduced
// by the umask).
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return WriteRaw(path, perm, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// Write replaces path with what write writes to w, a buffered writer over the
// temporary file that Write flushes afterwards. An error of write is returned
// (wrapped) and nothing is replaced.
func Write(path string, perm fs.FileMode, write func(w *bufio.Writer) error) error {
	return WriteRaw(path, perm, func(f *os.File) error {
		w := bufio.NewWriterSize(f, bufferSize)
		if err := write(w); err != nil {
			return err
		}
		return w.Flush()
	})
}

// WriteRaw is Write without the buffer: write gets the temporary file itself,
// for writers that seek, truncate, map it or write at offsets. write must not
// close f.
func WriteRaw(path string, perm fs.FileMode, write func(f *os.File) error) error {
	dir, base := split(path)
	removeStale(dir, base)
	f, err := os.CreateTemp(dir, base+".tmp*")
	if err != nil {
		// Named by the directory, not by the temporary file, which never appears.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = &fs.PathError{Op: "create a file in directory", Path: dir, Err: pe.Err}
		}
		return fmt.Errorf("write %s: %w", path, err)
	}
	lockTemp(f) // marks it as being written (removeStale); without locks, never taken for stale
	renamed := false
	defer func() {
		if !renamed { // a failure or a panic: the target stays as it was
			f.Close()
			os.Remove(f.Name())
		}
	}()
	err = write(f)
	if err == nil {
		err = f.Chmod(perm) // CreateTemp makes 0600 files
	}
	if err == nil {
		err = f.Sync()
	}
	// Windows cannot rename an open file; elsewhere the file is closed after
	// its rename, so that its lock marks it as being written until then.
	if err == nil && runtime.GOOS == "windows" {
		err = f.Close()
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
		renamed = err == nil
	}
	if renamed && runtime.GOOS != "windows" {
		err = f.Close()
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// syncDir fsyncs the directory dir, making a rename in it durable.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// split returns the directory of path as the system opens it, and the name in
// it. The directory keeps its names as given (filepath.Dir would clean a ".."
// after a link lexically, to the directory holding the link, where the system
// goes to the parent of the link's target), so that the temporary file is
// made where the rename puts the target.
func split(path string) (dir, base string) {
	vol := filepath.VolumeName(path)
	i := len(path) - 1
	for i >= len(vol) && !os.IsPathSeparator(path[i]) {
		i--
	}
	switch {
	case i < len(vol): // no separator: a name in the current directory (of the volume)
		return vol + ".", path[len(vol):]
	case i == len(vol): // a name in the root: "/f", `C:\f`
		return path[:i+1], path[i+1:]
	}
	return path[:i], path[i+1:]
}
