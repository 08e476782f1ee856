package asciiscan

import (
	"math/rand/v2"
	"testing"
)

// want classifies b[:Size] byte by byte: the definition.
func want(b []byte) (word, up, sent uint64, ascii bool) {
	ascii = true
	for k, c := range b[:Size] {
		switch {
		case c >= 0x80:
			ascii = false
		case 'A' <= c && c <= 'Z':
			word |= 1 << k
			up |= 1 << k
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
			word |= 1 << k
		case c == '.' || c == '!' || c == '?' || c == '\n' || c == '\r':
			sent |= 1 << k
		}
	}
	return word, up, sent, ascii
}

// check compares Block and blockSWAR on b with want (Block on every prefix
// of b shorter than Size too).
func check(t *testing.T, b []byte) {
	t.Helper()
	for n := range Size {
		ww, wu, ws, wa := want(append(b[:n:n], make([]byte, Size)...))
		if w, u, s, a := Block(string(b[:n])); a != wa || wa && (w != ww || u != wu || s != ws) {
			t.Fatalf("Block(%q) = %064b %064b %064b %v,\nwant %064b %064b %064b %v", b[:n], w, u, s, a, ww, wu, ws, wa)
		}
	}
	ww, wu, ws, wa := want(b)
	for _, f := range []struct {
		name string
		fn   func(string) (uint64, uint64, uint64, bool)
	}{{"Block", Block}, {"blockSWAR", blockSWAR}} {
		w, u, s, a := f.fn(string(b))
		if a != wa || wa && (w != ww || u != wu || s != ws) {
			t.Fatalf("%s(%q) = %064b %064b %064b %v,\nwant %064b %064b %064b %v", f.name, b, w, u, s, a, ww, wu, ws, wa)
		}
	}
}

// TestBlock puts every byte value at every position of ASCII blocks, and
// checks random blocks of ASCII and of any bytes.
func TestBlock(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, Size+3) // longer than a block: only Size bytes count
	for round := range 3000 {
		limit := 128
		if round%4 == 0 {
			limit = 256
		}
		for k := range b {
			b[k] = byte(rng.IntN(limit))
		}
		check(t, b)
	}
	for c := range 256 {
		for k := range Size {
			for j := range b {
				b[j] = byte(rng.IntN(128))
			}
			b[k] = byte(c)
			check(t, b)
		}
	}
}

// TestSWARBytes checks the SWAR helpers on every ASCII value and bound.
func TestSWARBytes(t *testing.T) {
	for x := range 128 {
		for c := range 129 {
			v := uint64(x) << 24 // byte 3 is x, the others 0
			var wantGE, wantEQ uint64
			for k := range 8 {
				bv := 0
				if k == 3 {
					bv = x
				}
				if bv >= c {
					wantGE |= 1 << k
				}
				if bv == c%128 {
					wantEQ |= 1 << k
				}
			}
			if got := packBits(geBytes(v, byte(c))); got != wantGE {
				t.Fatalf("geBytes(%#x, %d) = %08b, want %08b", v, c, got, wantGE)
			}
			if got := packBits(eqBytes(v, byte(c%128))); got != wantEQ {
				t.Fatalf("eqBytes(%#x, %d) = %08b, want %08b", v, c%128, got, wantEQ)
			}
		}
	}
}

// BenchmarkBlock classifies one block.
func BenchmarkBlock(b *testing.B) {
	text := "The quick brown fox jumps over the lazy dog. And then? It SLEPT!\n"
	for _, f := range []struct {
		name string
		fn   func(string) (uint64, uint64, uint64, bool)
	}{{"dispatched", Block}, {"swar", blockSWAR}} {
		b.Run(f.name, func(b *testing.B) {
			var sink uint64
			for b.Loop() {
				w, u, s, _ := f.fn(text)
				sink += w ^ u ^ s
			}
			_ = sink
		})
	}
}
