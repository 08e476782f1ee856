// Package asciiscan classifies 64 bytes of text at once for the tokenizer:
// one bit per byte for ASCII letters and digits, upper-case letters, and the
// bytes that may end a sentence ('.', '!', '?', '\n', '\r'). With AVX2 a
// block takes a few vector instructions (two nibble-table lookups per byte);
// elsewhere it takes word-wide arithmetic on eight bytes at a time (SWAR).
package asciiscan

import "unsafe"

// Size is the number of bytes Block classifies.
const Size = 64

// Fast reports whether Block runs vector instructions on this CPU (AVX2).
// Without them a block takes about ten times as long (docs/benchmarks.md), more
// than a byte-by-byte scan of its bytes: callers then scan bytes instead.
func Fast() bool { return fast }

// Block classifies the first min(len(b), Size) bytes of b: bit k of word is
// set when b[k] is an ASCII letter or digit, of up when it is an upper-case
// ASCII letter, of sent when it is '.', '!', '?', '\n' or '\r'; the bits of
// bytes past the end of a shorter b are 0. ascii reports whether all those
// bytes are ASCII; when it is false the masks are meaningless.
func Block(b string) (word, up, sent uint64, ascii bool) {
	if len(b) < Size { // padded with 0 bytes, which are none of the three
		var pad [Size]byte
		copy(pad[:], b)
		return block(unsafe.String(&pad[0], Size))
	}
	return block(b[:Size])
}

const (
	lsb  = 0x0101010101010101 // the lowest bit of every byte
	msb  = 0x8080808080808080 // the highest bit of every byte
	low7 = 0x7f7f7f7f7f7f7f7f // the other bits of every byte
)

// blockSWAR is Block in plain Go, eight bytes per step.
func blockSWAR(b string) (word, up, sent uint64, ascii bool) {
	var all uint64
	for k := 0; k < Size; k += 8 {
		x := LE64(b[k:])
		all |= x
		u := geBytes(x, 'A') &^ geBytes(x, 'Z'+1)
		w := u | geBytes(x, 'a')&^geBytes(x, 'z'+1) | geBytes(x, '0')&^geBytes(x, '9'+1)
		s := eqBytes(x, '.') | eqBytes(x, '\n') | eqBytes(x, '\r') | eqBytes(x, '!') | eqBytes(x, '?')
		word |= packBits(w) << k
		up |= packBits(u) << k
		sent |= packBits(s) << k
	}
	return word, up, sent, all&msb == 0
}

// LE64 is the little-endian word of the first 8 bytes of b (the block scan
// reads its words with it, the vocabulary index its keys).
func LE64(b string) uint64 {
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// geBytes has the high bit of each byte of x set where that byte is ≥ c;
// every byte of x must be ASCII (< 0x80) and c ≤ 0x80 (no borrow crosses a
// byte: each byte of x|msb is ≥ 0x80 ≥ c).
func geBytes(x uint64, c byte) uint64 { return ((x | msb) - uint64(c)*lsb) & msb }

// eqBytes has the high bit of each byte of x set where that byte is c (ASCII
// x and c).
func eqBytes(x uint64, c byte) uint64 {
	y := x ^ uint64(c)*lsb // zero bytes where x has c
	return ^((y&low7 + low7) | y) & msb
}

// packBits gathers the high bits of the eight bytes of m (nothing else set)
// into the low eight bits, byte k to bit k.
func packBits(m uint64) uint64 { return (m >> 7) * 0x0102040810204080 >> 56 }
