package corpus

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrNotText reports a corpus file that is not UTF-8 text: it holds a NUL
// byte (anywhere), or its first TextCheckBytes are not mostly UTF-8 (binary
// data, or text in another encoding, such as UTF-16 or Latin-1). Real text
// with a stray invalid byte here and there is read (the tokenizer takes
// such a byte for a separator), and so is a file starting with UTF-8's byte
// order mark.
var ErrNotText = errors.New("not UTF-8 text")

// TextCheckBytes is the size of the block at the start of every corpus file
// (after decompression) whose share of invalid UTF-8 is checked.
const TextCheckBytes = 64 << 10

// Invalid UTF-8 in the first block refuses a file when there are at least
// minInvalidBytes such bytes and they are more than 1/invalidShareDivisor of
// the block.
const (
	minInvalidBytes     = 16
	invalidShareDivisor = 100
)

// checkHead refuses the file path whose first bytes are head (at most
// TextCheckBytes) when head holds a NUL byte or too much invalid UTF-8,
// naming the byte offset and the line of the first offending byte. A file
// so refused that starts with a UTF-16 or UTF-32 byte order mark, or whose
// first block reads as UTF-16 or UTF-32 text without one (unmarkedUnicode),
// is named as text in that encoding, and one whose first block is mostly
// ASCII as text in a single-byte encoding, each with how to convert it
// (through gzip when the file is gzipped).
func checkHead(path string, gzipped bool, head []byte) error {
	bom := unicodeBOM(head)
	if i := bytes.IndexByte(head, 0); i >= 0 {
		if bom != "" {
			return bomError(path, gzipped, bom)
		}
		if enc := unmarkedUnicode(head); enc != "" {
			return unmarkedError(path, gzipped, enc, len(head))
		}
		return nulError(path, int64(i), 1+bytes.Count(head[:i], []byte{'\n'}))
	}
	invalid, first := 0, -1
	for i := 0; i < len(head); {
		r, size := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && size == 1 {
			if len(head) == TextCheckBytes && !utf8.FullRune(head[i:]) {
				break // a rune cut by the end of the block
			}
			invalid++
			if first < 0 {
				first = i
			}
		}
		i += size
	}
	if invalid < minInvalidBytes || invalid*invalidShareDivisor <= len(head) {
		return nil
	}
	if bom != "" {
		return bomError(path, gzipped, bom)
	}
	where := fmt.Sprintf("%d of its first %d bytes are not valid UTF-8 (the first at byte offset %d, line %d)",
		invalid, len(head), first, 1+bytes.Count(head[:first], []byte{'\n'}))
	if mostlyASCII(head) {
		return fmt.Errorf("corpus file %s: %w: %s; it looks like text in another encoding, such as Latin-1 or "+
			"Windows-1252: convert it to UTF-8 (%s, or -f latin1)", path, ErrNotText, where,
			convertCommand(path, gzipped, "windows-1252"))
	}
	return fmt.Errorf("corpus file %s: %w: %s: binary data, or text in another encoding "+
		"(convert that to UTF-8 with iconv)", path, ErrNotText, where)
}

// unicodeBOM returns the encoding whose byte order mark head starts with,
// "UTF-32" or "UTF-16", or "" (also for UTF-8's mark, which is valid UTF-8).
func unicodeBOM(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte{0xff, 0xfe, 0, 0}), bytes.HasPrefix(head, []byte{0, 0, 0xfe, 0xff}):
		return "UTF-32"
	case bytes.HasPrefix(head, []byte{0xff, 0xfe}), bytes.HasPrefix(head, []byte{0xfe, 0xff}):
		return "UTF-16"
	}
	return ""
}

// mostlyASCII reports whether at least 75 % of head are printable ASCII or
// white space: text in a single-byte encoding such as Latin-1, whose other
// letters are invalid UTF-8, rather than binary data.
func mostlyASCII(head []byte) bool {
	ascii := 0
	for _, b := range head {
		if (b >= 0x20 && b < 0x7f) || b == '\n' || b == '\r' || b == '\t' {
			ascii++
		}
	}
	return ascii*4 >= len(head)*3
}

// convertCommand returns the shell command that converts the corpus file
// path from the encoding enc to UTF-8: iconv on the file, or on what it
// holds when it is gzipped (iconv cannot read the compressed bytes).
func convertCommand(path string, gzipped bool, enc string) string {
	if gzipped {
		return fmt.Sprintf("gzip -dc %s | iconv -f %s -t UTF-8 | gzip > %s.utf8.gz", path, enc,
			strings.TrimSuffix(path, ".gz"))
	}
	return fmt.Sprintf("iconv -f %s -t UTF-8 %s > %s.utf8", enc, path, path)
}

// bomError reports the file path, which starts with the byte order mark of
// enc (UTF-16 or UTF-32): text, but not in UTF-8.
func bomError(path string, gzipped bool, enc string) error {
	return fmt.Errorf("corpus file %s: %w: it is %s text (it starts with a %s byte order mark); "+
		"convert it to UTF-8 (%s)", path, ErrNotText, enc, enc, convertCommand(path, gzipped, enc))
}

// unmarkedError reports the file path, whose first n bytes read as text in
// enc (UTF-16LE, UTF-16BE, UTF-32LE or UTF-32BE) without a byte order mark.
func unmarkedError(path string, gzipped bool, enc string, n int) error {
	return fmt.Errorf("corpus file %s: %w: it looks like %s text without a byte order mark (its first %d bytes "+
		"read as such); convert it to UTF-8 (%s)", path, ErrNotText, enc, n, convertCommand(path, gzipped, enc))
}

// nulError reports a NUL byte at offset (line line) of the file path.
func nulError(path string, offset int64, line int) error {
	return fmt.Errorf("corpus file %s: %w: a NUL byte at byte offset %d (line %d), as in a binary file",
		path, ErrNotText, offset, line)
}
