package model

import (
	"math/bits"

	"github.com/text2vec-am/text2vec-am/internal/asciiscan"
)

// The block scanner finds the words of 64 bytes of ASCII at once: it
// classifies them (internal/asciiscan) into three bit masks, one bit per byte
// (word byte, upper-case letter, byte that may end a sentence), and then
// walks the words with trailing-zero counts.
// Scanning byte by byte, the loop that runs to the end of a word mispredicts
// its exit at every word; here the work per word has no loop over its bytes.

// blockSize is the number of bytes the block scanner takes at once.
const blockSize = asciiscan.Size

// bitRange has bits [a, b) set (0 ≤ a ≤ b ≤ 64).
func bitRange(a, b int) uint64 { return ^uint64(0) << a &^ (^uint64(0) << b) }

// block scans the ASCII block at text[base:] given its masks (a block cut
// short by the end of text has no bits past it, so its last word ends there),
// carrying a word over from the block before or into the block after. The state is
// kept in locals (stored back before a sentence boundary and at the end).
func (st *tokState) block(text string, base int, word, up, sent uint64) {
	dst, offs, start := st.dst, st.offs, st.start
	if !st.t.Lowercase {
		up = 0 // nothing to lower
	}
	var upper uint64 // the current word's upper-case letters in this block
	if st.upper {
		upper = 1
	}
	for pos := 0; ; {
		if start < 0 {
			next := blockSize
			if rest := word >> pos; rest != 0 {
				next = pos + bits.TrailingZeros64(rest)
			}
			if m := sent & bitRange(pos, next); m != 0 {
				st.dst, st.offs = dst, offs
				st.sentences(text, base, m)
				dst, offs = st.dst, st.offs
			}
			if next == blockSize {
				break
			}
			start, upper, pos = base+next, 0, next
		}
		end := blockSize
		if rest := ^word >> pos; rest != 0 {
			end = pos + bits.TrailingZeros64(rest)
		}
		upper |= up & bitRange(pos, end)
		if end == blockSize {
			break // the word goes on in the next block
		}
		dst = st.t.appendWord(dst, text[start:base+end], upper != 0)
		if offs != nil {
			offs = append(offs, int32(start), int32(base+end))
		}
		start, pos = -1, end
	}
	st.dst, st.offs, st.start, st.upper = dst, offs, start, upper != 0
}

// sentences calls the splitter (with st.split) at every byte of the block at base
// whose bit is set in m (bytes between words that may end a sentence), in
// order.
func (st *tokState) sentences(text string, base int, m uint64) {
	if !st.split {
		return
	}
	for ; m != 0; m &= m - 1 {
		st.sp.boundary(text, base+bits.TrailingZeros64(m), len(st.dst), st.offs)
	}
}
