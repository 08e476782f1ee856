// Package testfasttext writes small fastText models for tests of the code
// that reads them, as httptest serves HTTP for tests of net/http's users.
package testfasttext

import (
	"bytes"
	"encoding/binary"
)

// Model describes a fastText skipgram model to write.
type Model struct {
	// Dim is the vectors' dimension; MinN and MaxN the character n-gram
	// lengths; Bucket the number of n-gram hash buckets.
	Dim, MinN, MaxN, Bucket int
	// Words and Counts are the dictionary, in fastText's order.
	Words  []string
	Counts []int64
	// Quantized sets the quantization flag (a .ftz model).
	Quantized bool
}

// Value is what Bin writes in column k of input-matrix row r: r·10 + k.
func Value(r, k int) float32 { return float32(r*10 + k) }

// Bin returns m in fastText 0.9.2's .bin layout (version 12): the header,
// the dictionary, then an input matrix of len(Words) + Bucket rows holding
// Value(r, k); the output matrix of a real file is left out.
func Bin(m Model) []byte {
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) } // a bytes.Buffer never fails
	w([2]int32{793712314, 12})                                        // FastText::signModel's magic, version
	// dim ws epoch minCount neg wordNgrams loss model bucket minn maxn lrUpdateRate, t
	w([12]int32{int32(m.Dim), 5, 5, 1, 5, 1, 2, 2, int32(m.Bucket), int32(m.MinN), int32(m.MaxN), 100})
	w(1e-4)
	w(int32(len(m.Words)))
	w(int32(len(m.Words)))
	w(int32(0))
	w(int64(1000))
	w(int64(-1))
	for i, word := range m.Words {
		b.WriteString(word)
		b.WriteByte(0)
		w(m.Counts[i])
		w(int8(0))
	}
	w(m.Quantized)
	rows := len(m.Words) + m.Bucket
	w(int64(rows))
	w(int64(m.Dim))
	for r := range rows {
		for k := range m.Dim {
			w(Value(r, k))
		}
	}
	w(false) // qout; the output matrix follows in real files
	return b.Bytes()
}
