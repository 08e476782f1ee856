package corpus

import (
	"context"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
)

// Files that are not text (a NUL byte anywhere, or a first block mostly not
// UTF-8, as an executable or random bytes) are refused, naming the file, the
// byte offset and the line; text with a few stray invalid bytes is read.
func TestNotTextRefused(t *testing.T) {
	dir := t.TempDir()
	text := strings.Repeat("the daemon restarts the kernel module\n", 400)
	rng := rand.New(rand.NewPCG(1, 2))
	noise := make([]byte, 4096)
	for i := range noise {
		noise[i] = byte(0x80 + rng.IntN(0x80)) // no NUL, mostly invalid UTF-8
	}
	cases := []struct {
		name, content string
		want          []string // nil: accepted
	}{
		{"nul.txt", "one line\ntwo\nthr\x00ee\n" + text, []string{"byte offset 16", "line 3"}},
		{"late-nul.txt", text + "x\x00", []string{"line 401"}},
		{"elf.bin", "\x7fELF\x02\x01\x01\x00\x00\x00" + text, []string{"byte offset 7", "line 1"}},
		{"noise.bin", "header line\n" + string(noise), []string{"not valid UTF-8", "byte offset 12", "line 2"}},
		{"stray.txt", text[:5000] + "caf\xe9 na\xefve \xff\n" + text, nil},
	}
	for _, c := range cases {
		p := filepath.Join(dir, c.name)
		writeFile(t, p, []byte(c.content))
		for _, gz := range []bool{false, true} {
			if gz {
				p = filepath.Join(dir, c.name+".gz")
				writeFile(t, p, gzipped(t, c.content))
			}
			_, err := Read(context.Background(), []string{p}, DefaultOptions())
			if c.want == nil {
				if err != nil {
					t.Errorf("%s: %v, want it read", p, err)
				}
				continue
			}
			if !errors.Is(err, ErrNotText) || !strings.Contains(err.Error(), p) {
				t.Errorf("%s: err = %v, want ErrNotText naming the file", p, err)
			}
			for _, w := range c.want {
				if err != nil && !strings.Contains(err.Error(), w) {
					t.Errorf("%s: err = %v, want %q", p, err, w)
				}
			}
		}
	}
	// A directory with a text file and a binary one is refused, naming the binary.
	sub := filepath.Join(dir, "mixed")
	writeFile(t, filepath.Join(sub, "a.txt"), []byte(text))
	writeFile(t, filepath.Join(sub, "b.bin"), []byte("\x7fELF\x02\x01\x01\x00"+text))
	if _, err := Read(context.Background(), []string{sub}, DefaultOptions()); !errors.Is(err, ErrNotText) ||
		!strings.Contains(err.Error(), "b.bin") {
		t.Errorf("directory with a binary: err = %v, want ErrNotText naming b.bin", err)
	}
}

// A file with the gzip magic bytes and garbage after them is refused as
// invalid gzip, naming the file.
func TestInvalidGzipNamed(t *testing.T) {
	dir := t.TempDir()
	good := gzipped(t, strings.Repeat("some words here\n", 1000))
	for name, content := range map[string][]byte{
		"garbage.txt":   []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03garbage garbage garbage"),
		"truncated.gz":  good[:len(good)/2],
		"short-head.gz": []byte("\x1f\x8b\x08"),
	} {
		p := filepath.Join(dir, name)
		writeFile(t, p, content)
		_, err := Read(context.Background(), []string{p}, DefaultOptions())
		if !errors.Is(err, model.ErrInvalidGzip) || !strings.Contains(err.Error(), p) ||
			!strings.Contains(err.Error(), "invalid gzip") {
			t.Errorf("%s: err = %v, want invalid gzip naming the file", name, err)
		}
	}
}
