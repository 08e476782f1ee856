package corpus

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

// encodeUTF16 returns text in UTF-16 with its byte order mark, little- or
// big-endian.
func encodeUTF16(text string, big bool) []byte {
	out := []byte{0xff, 0xfe}
	if big {
		out = []byte{0xfe, 0xff}
	}
	for _, c := range utf16.Encode([]rune(text)) {
		if big {
			out = append(out, byte(c>>8), byte(c))
		} else {
			out = append(out, byte(c), byte(c>>8))
		}
	}
	return out
}

// encodeUTF32LE returns text in little-endian UTF-32 with its byte order mark.
func encodeUTF32LE(text string) []byte {
	out := []byte{0xff, 0xfe, 0, 0}
	for _, r := range text {
		out = append(out, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
	}
	return out
}

// A UTF-16 or UTF-32 text file (with its byte order mark) is refused as
// text in that encoding, with how to convert it, not as "a binary file".
func TestUTF16CorpusNamedAsSuch(t *testing.T) {
	dir := t.TempDir()
	text := strings.Repeat("the daemon restarts the kernel module\n", 100)
	for name, c := range map[string]struct {
		content []byte
		enc     string
	}{
		"le16.txt": {encodeUTF16(text, false), "UTF-16"},
		"be16.txt": {encodeUTF16(text, true), "UTF-16"},
		"le32.txt": {encodeUTF32LE(text), "UTF-32"},
	} {
		p := filepath.Join(dir, name)
		writeFile(t, p, c.content)
		_, err := Read(context.Background(), []string{p}, DefaultOptions())
		if !errors.Is(err, ErrNotText) || err == nil || !strings.Contains(err.Error(), p+": not UTF-8 text: it is "+c.enc+" text") ||
			!strings.Contains(err.Error(), "iconv -f "+c.enc+" -t UTF-8 "+p) || strings.Contains(err.Error(), "binary") {
			t.Errorf("%s: err = %v, want it refused as %s text with the iconv command", name, err, c.enc)
		}
	}
}

// Text in a single-byte encoding (Latin-1, Windows-1252), whose accented
// letters are invalid UTF-8, is refused as text in another encoding, naming
// the file and how to convert it; text starting with UTF-8's byte order mark
// is read.
func TestLatin1CorpusNamedAsSuch(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "fr.txt")
	writeFile(t, p, []byte(strings.Repeat("le d\xe9mon red\xe9marre le module du noyau \xe0 l'\xe9t\xe9\n", 100)))
	_, err := Read(context.Background(), []string{p}, DefaultOptions())
	if !errors.Is(err, ErrNotText) || err == nil || !strings.Contains(err.Error(), p+": not UTF-8 text") ||
		!strings.Contains(err.Error(), "looks like text in another encoding") ||
		!strings.Contains(err.Error(), "iconv -f windows-1252 -t utf-8 "+p) {
		t.Errorf("Latin-1 corpus: err = %v, want it refused as text in another encoding with the iconv command", err)
	}
	bom := filepath.Join(dir, "bom.txt")
	writeFile(t, bom, []byte("\xef\xbb\xbf"+strings.Repeat("the daemon restarts the kernel module\n", 100)))
	if _, err := Read(context.Background(), []string{bom}, DefaultOptions()); err != nil {
		t.Errorf("UTF-8 with a byte order mark: %v, want it read", err)
	}
}
