package corpus

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzForEachUnit: whatever a corpus file holds (gzipped or not), reading
// it returns an error naming the file or units of non-empty tokens, valid
// UTF-8 without white space, on rising line numbers within the file's; and
// Read's counts and encoding agree with them.
func FuzzForEachUnit(f *testing.F) {
	for _, s := range []string{"The cat sat.\n\nthe DOG, the cat!\n", "one\r\ntwo three", "\xef\xbb\xbfa b\n",
		"\xff\xfea\x00 \x00b\x00\n\x00", "caf\xe9 na\xefve\n", "x\x00y\n", "Mr. Smith went. He sat! Did he?\n"} {
		f.Add([]byte(s), false)
		f.Add(gzipped(f, s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, sentences bool) {
		path := filepath.Join(t.TempDir(), "c.txt")
		writeFile(t, path, data)
		opts := DefaultOptions()
		opts.Sentences = sentences
		lines := 1 + bytes.Count(data, []byte{'\n'})
		var tokens int64
		last := 0
		err := ForEachUnit(context.Background(), []string{path}, opts, func(u Unit) error {
			if len(u.Tokens) == 0 || u.Line < last || u.Line < 1 || (u.Line > lines && !isGzip(data)) {
				t.Fatalf("unit %q on line %d after line %d (%d lines)", u.Tokens, u.Line, last, lines)
			}
			last = u.Line
			for _, w := range u.Tokens {
				if w == "" || !utf8.ValidString(w) || strings.ContainsAny(w, " \t\n\r") {
					t.Fatalf("line %d: token %q", u.Line, w)
				}
			}
			tokens += int64(len(u.Tokens))
			return nil
		})
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want it to name %s", err, path)
			}
			return
		}
		c, err := Read(context.Background(), []string{path}, opts)
		if err != nil || c.NumTokens() != tokens {
			t.Fatalf("Read: %d tokens, %v; ForEachUnit gave %d", c.NumTokens(), err, tokens)
		}
		v := c.Vocab(1)
		if err := c.Encode(v, false).Validate(v.Len()); err != nil {
			t.Fatal(err)
		}
	})
}

func isGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }
