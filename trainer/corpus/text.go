package corpus

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"
)

// ErrNotText reports a corpus file that is not text: it holds a NUL byte
// (anywhere), or its first TextCheckBytes are not mostly UTF-8. Real text
// with a stray invalid byte here and there is read (the tokenizer takes
// such a byte for a separator).
var ErrNotText = errors.New("not a text file")

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
// naming the byte offset and the line of the first offending byte.
func checkHead(path string, head []byte) error {
	if i := bytes.IndexByte(head, 0); i >= 0 {
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
	if invalid >= minInvalidBytes && invalid*invalidShareDivisor > len(head) {
		return fmt.Errorf("corpus file %s: %w: %d of its first %d bytes are not valid UTF-8 "+
			"(the first at byte offset %d, line %d)",
			path, ErrNotText, invalid, len(head), first, 1+bytes.Count(head[:first], []byte{'\n'}))
	}
	return nil
}

// nulError reports a NUL byte at offset (line line) of the file path.
func nulError(path string, offset int64, line int) error {
	return fmt.Errorf("corpus file %s: %w: a NUL byte at byte offset %d (line %d), as in a binary file",
		path, ErrNotText, offset, line)
}
