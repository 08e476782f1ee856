package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var errCallback = errors.New("callback failed")

// writers are the three ways in, each writing content to path with perm.
var writers = []struct {
	name  string
	write func(path string, perm fs.FileMode, content string) error
}{
	{"WriteFile", func(path string, perm fs.FileMode, content string) error {
		return WriteFile(path, []byte(content), perm)
	}},
	{"Write", func(path string, perm fs.FileMode, content string) error {
		return Write(path, perm, func(w *bufio.Writer) error {
			for _, b := range []byte(content) { // small writes, flushed by Write
				w.WriteByte(b)
			}
			return nil
		})
	}},
	{"WriteRaw", func(path string, perm fs.FileMode, content string) error {
		return WriteRaw(path, perm, func(f *os.File) error {
			if _, err := f.WriteString(strings.Repeat("x", len(content))); err != nil {
				return err
			}
			_, err := f.WriteAt([]byte(content), 0)
			return err
		})
	}},
}

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestWriteSuccess: the target holds the content, with the permission bits
// asked for (not CreateTemp's 0600, not reduced by the umask), whether it is
// new or replaces a file of another mode; nothing else is left in the directory.
func TestWriteSuccess(t *testing.T) {
	for _, w := range writers {
		for _, c := range []struct {
			name    string
			perm    fs.FileMode
			old     string // "" = no target before
			content string
		}{
			{"new 0644", 0o644, "", "hello\nworld\n"},
			{"new 0600", 0o600, "", "secret"},
			{"new 0666", 0o666, "", "wide"},
			{"empty", 0o644, "", ""},
			{"replaces 0600 by 0644", 0o644, "old content, longer than the new", "new"},
			{"large", 0o640, "old", strings.Repeat("0123456789abcdef", 1<<17)},
		} {
			t.Run(w.name+"/"+c.name, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "out.txt")
				if c.old != "" {
					if err := os.WriteFile(path, []byte(c.old), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				if err := w.write(path, c.perm, c.content); err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != c.content {
					t.Fatalf("content %.40q (%d bytes), want %.40q (%d bytes)", got, len(got), c.content, len(c.content))
				}
				fi, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode().Perm() != c.perm {
					t.Errorf("mode %v, want %v", fi.Mode().Perm(), c.perm)
				}
				if names := dirNames(t, dir); !slices.Equal(names, []string{"out.txt"}) {
					t.Errorf("directory holds %q, want only out.txt", names)
				}
			})
		}
	}
}

// TestWriteFailure: a write that fails (in the callback, after it, at the
// rename) or panics leaves the target as it was (absent, or with its old
// content and mode) and no temporary file, and its error names the target and
// wraps the cause.
func TestWriteFailure(t *testing.T) {
	for _, c := range []struct {
		name    string
		setup   func(t *testing.T, path string) // the target before
		write   func(path string) error
		wantErr error // reachable with errors.Is; nil: any error
	}{
		{"Write callback fails, no target", nil, func(path string) error {
			return Write(path, 0o644, func(w *bufio.Writer) error {
				w.WriteString("partial")
				return errCallback
			})
		}, errCallback},
		{"Write callback fails, old target", writeOld, func(path string) error {
			return Write(path, 0o644, func(w *bufio.Writer) error {
				w.WriteString(strings.Repeat("partial", 1<<18)) // more than the buffer: on disk
				return errCallback
			})
		}, errCallback},
		{"WriteRaw callback fails, old target", writeOld, func(path string) error {
			return WriteRaw(path, 0o644, func(f *os.File) error {
				f.WriteString("partial")
				return errCallback
			})
		}, errCallback},
		{"callback closes the file: sync fails", writeOld, func(path string) error {
			return WriteRaw(path, 0o644, func(f *os.File) error {
				f.WriteString("partial")
				return f.Close()
			})
		}, os.ErrClosed},
		{"rename fails: the target is a directory", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
		}, func(path string) error {
			return WriteFile(path, []byte("new"), 0o644)
		}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "out.txt")
			if c.setup != nil {
				c.setup(t, path)
			}
			before := snapshot(t, path)
			err := c.write(path)
			if err == nil {
				t.Fatal("no error")
			}
			if c.wantErr != nil && !errors.Is(err, c.wantErr) {
				t.Errorf("error %v does not wrap %v", err, c.wantErr)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name %s", err, path)
			}
			if after := snapshot(t, path); after != before {
				t.Errorf("target changed: %q, was %q", after, before)
			}
			var want []string // the target (file or directory) if there was one, nothing else
			if c.setup != nil {
				want = []string{"out.txt"}
			}
			if names := dirNames(t, dir); !slices.Equal(names, want) {
				t.Errorf("directory holds %q, want %q", names, want)
			}
		})
	}
}

// TestWritePanic: a callback's panic goes on up, and takes the temporary file
// with it.
func TestWritePanic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	writeOld(t, path)
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic did not come through")
			}
		}()
		Write(path, 0o644, func(w *bufio.Writer) error {
			w.WriteString("partial")
			panic("callback")
		})
	}()
	if got := snapshot(t, path); got != "old 0600" {
		t.Errorf("target %q after a panic", got)
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"out.txt"}) {
		t.Errorf("directory holds %q after a panic", names)
	}
}

// TestWriteMissingDir: a target in a directory that does not exist is an error
// naming it and its directory (never the temporary file, which the user never
// sees) that wraps a *fs.PathError of fs.ErrNotExist.
func TestWriteMissingDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "out.txt")
	for _, w := range writers {
		err := w.write(path, 0o644, "x")
		if err == nil {
			t.Fatalf("%s: no error", w.name)
		}
		if !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %q does not name %s", w.name, err, path)
		}
		want := "create a file in directory " + filepath.Dir(path) + ": "
		if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), ".tmp") {
			t.Errorf("%s: error %q: want the directory (%q), not the temporary file", w.name, err, want)
		}
		var pe *fs.PathError
		if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) {
			t.Errorf("%s: error %v does not wrap a *fs.PathError of fs.ErrNotExist", w.name, err)
		}
	}
	if _, err := os.Stat(filepath.Dir(path)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the missing directory was created: %v", err)
	}
}

// writeOld writes "old" to path, mode 0600.
func writeOld(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// snapshot describes path: its content and mode, "absent", or "directory".
func snapshot(t *testing.T, path string) string {
	t.Helper()
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "absent"
	}
	if err != nil {
		t.Fatal(err)
	}
	if fi.IsDir() {
		return "directory"
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + " " + fmt.Sprintf("%04o", fi.Mode().Perm())
}

// TestWriteDotDotAfterLink: a ".." after a link to a directory leads to the
// parent of the link's target, as the system opens the path: the file is
// written there, its temporary file made beside it, and nothing is left in
// the directory the path names lexically.
func TestWriteDotDotAfterLink(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "a", "b")
	for _, d := range []string{real, filepath.Join(root, "a", "c"), filepath.Join(root, "c")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(real, filepath.Join(root, "l")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	sep := string(filepath.Separator)
	for _, w := range writers {
		// root/l/../c/f is root/a/c/f; lexically it would be root/c/f.
		path := root + sep + "l" + sep + ".." + sep + "c" + sep + w.name
		if err := w.write(path, 0o644, "new"); err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		if got, err := os.ReadFile(filepath.Join(root, "a", "c", w.name)); err != nil || string(got) != "new" {
			t.Errorf("%s: a/c holds %q, %v; want the file written there", w.name, got, err)
		}
		if entries, _ := os.ReadDir(filepath.Join(root, "c")); len(entries) > 0 {
			t.Errorf("%s: the lexical directory c holds %s", w.name, entries[0].Name())
		}
	}
	// With the lexical directory absent the write still goes where the path leads.
	if err := os.Remove(filepath.Join(root, "c")); err != nil {
		t.Fatal(err)
	}
	path := root + sep + "l" + sep + ".." + sep + "c" + sep + "g"
	if err := WriteFile(path, []byte("g"), 0o644); err != nil {
		t.Errorf("WriteFile(%s) with no %s: %v", path, filepath.Join(root, "c"), err)
	}
}

func TestSplit(t *testing.T) {
	sep := string(filepath.Separator)
	for _, c := range []struct{ path, dir, base string }{
		{"f", ".", "f"},
		{sep + "f", sep, "f"},
		{"a" + sep + "f", "a", "f"},
		{"l" + sep + ".." + sep + "f", "l" + sep + "..", "f"},
		{"a" + sep + sep + "f", "a" + sep, "f"},
	} {
		if dir, base := split(c.path); dir != c.dir || base != c.base {
			t.Errorf("split(%q) = %q, %q; want %q, %q", c.path, dir, base, c.dir, c.base)
		}
	}
}
