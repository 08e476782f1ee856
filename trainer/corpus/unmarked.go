package corpus

import (
	"encoding/binary"
	"unicode/utf16"
	"unicode/utf8"
)

// minUnmarkedUnits is the fewest code units of a first block that
// unmarkedUnicode takes for text: fewer say too little.
const minUnmarkedUnits = 32

// minASCIIShare is the share of ASCII characters, 1 in minASCIIShare, that
// unmarkedUnicode asks of text; it also tells the byte orders apart (in the
// wrong one, ASCII reads as other characters).
const minASCIIShare = 8

// unmarkedUnicode returns the encoding, "UTF-32LE", "UTF-32BE", "UTF-16LE"
// or "UTF-16BE", that head (a file's first block, which holds a NUL byte)
// reads as text in without a byte order mark, or "". Text it is when head
// holds at least minUnmarkedUnits whole code units (a unit or surrogate
// pair cut by the end of head is left out), every character valid
// (surrogates paired), neither NUL nor another control but white space,
// nor U+FFFE or U+FFFF (a byte order mark read the wrong way round), and at
// least 1/minASCIIShare of them ASCII: Latin-script text in UTF-16 has a
// NUL in every other byte, and text in Cyrillic or Greek has ASCII spaces,
// digits and punctuation (text with less, as Chinese or Japanese may be, is
// left to the other checks). Binary data fails soon: NUL characters in a
// file of zeros or of numbers, controls in headers (ELF, PNG, gzip),
// unpaired surrogates in random bytes, which are almost never ASCII.
func unmarkedUnicode(head []byte) string {
	for _, c := range []struct {
		enc   string
		width int
		order binary.ByteOrder
	}{
		{"UTF-32LE", 4, binary.LittleEndian}, {"UTF-32BE", 4, binary.BigEndian},
		{"UTF-16LE", 2, binary.LittleEndian}, {"UTF-16BE", 2, binary.BigEndian},
	} {
		if readsAsText(head, c.width, c.order) {
			return c.enc
		}
	}
	return ""
}

// readsAsText reports whether head reads as text, as unmarkedUnicode says,
// in UTF-32 (width 4) or UTF-16 (width 2) of byte order order.
func readsAsText(head []byte, width int, order binary.ByteOrder) bool {
	units, ascii := 0, 0
	for i := 0; i+width <= len(head); {
		r, n := decodeUnit(head[i:], width, order)
		if n == 0 {
			break // a surrogate pair cut by the end of head
		}
		switch {
		case r < 0 || r == 0xfffe || r == 0xffff:
			return false
		case r == '\t' || r == '\n' || r == '\v' || r == '\f' || r == '\r' || r >= 0x20 && r < 0x7f:
			ascii++
		case r < 0x20 || r >= 0x7f && r < 0xa0:
			return false
		}
		units += n
		i += n * width
	}
	return units >= minUnmarkedUnits && ascii*minASCIIShare >= units
}

// decodeUnit decodes the character that b starts with in UTF-32 (width 4)
// or UTF-16 (width 2) of byte order order, and the code units it takes:
// -1 for one that is no character (an unpaired surrogate, a value beyond
// U+10FFFF), and 0 units for a surrogate pair that b cuts.
func decodeUnit(b []byte, width int, order binary.ByteOrder) (r rune, units int) {
	if width == 4 {
		u := order.Uint32(b)
		if u > utf8.MaxRune || utf16.IsSurrogate(rune(u)) {
			return -1, 1
		}
		return rune(u), 1
	}
	r = rune(order.Uint16(b))
	switch {
	case !utf16.IsSurrogate(r):
		return r, 1
	case r >= 0xdc00: // a second half first
		return -1, 1
	case len(b) < 4:
		return 0, 0
	}
	if pair := utf16.DecodeRune(r, rune(order.Uint16(b[2:]))); pair != utf8.RuneError {
		return pair, 2
	}
	return -1, 1
}
