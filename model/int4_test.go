package model

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestInt4RowError checks the 4-bit rows of a bundle against their float32
// values: every value within half a step of the row's scale or saturated at
// ±7 steps with its sign, and each row's squared error no larger than with
// the unclipped scale max|x|/7 (the writer's first candidate).
func TestInt4RowError(t *testing.T) {
	const dim = 63 // odd, and int4 rows (36 bytes) smaller than one byte a value
	m := testModel(t, ModeAM, dim, 8)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range m.Ngrams { // heavy tails, so that clipping pays on some rows
		m.Ngrams[i] = float32(rng.NormFloat64() * math.Exp(rng.NormFloat64()))
	}
	var buf bytes.Buffer
	if err := m.Save(&buf, SaveOptions{NgramStorage: StorageInt4, BaseStorage: StorageInt4, IncludeBase: true}); err != nil {
		t.Fatal(err)
	}
	got, err := Load(&buf, "int4")
	if err != nil {
		t.Fatal(err)
	}
	ngrams := got.Ngrams
	got.Ngrams = m.Ngrams
	equalModels(t, got, m, false) // everything but the tables exact
	got.Ngrams = ngrams
	clipped := 0
	for _, pair := range [][2][]float32{{got.Ngrams, m.Ngrams}, {got.Base.Vectors, m.Base.Vectors}} {
		for r := 0; r < len(pair[1])/dim; r++ {
			want, have := pair[1][r*dim:(r+1)*dim], pair[0][r*dim:(r+1)*dim]
			scale := int4Scale(want)
			var e, eMax float64
			mx := float64(0)
			for _, v := range want {
				mx = math.Max(mx, math.Abs(float64(v)))
			}
			for k, v := range want {
				d := float64(have[k] - v)
				e += d * d
				dm := float64(v) - math.Round(float64(v)/(mx/7))*(mx/7)
				eMax += dm * dm
				if math.Abs(float64(v)) <= 7.5*float64(scale) {
					if math.Abs(d) > float64(scale)/2*1.0001+1e-7 {
						t.Fatalf("row %d value %d: %v stored as %v (scale %v)", r, k, v, have[k], scale)
					}
					continue
				}
				clipped++
				if have[k] != float32(math.Copysign(1, float64(v)))*7*scale {
					t.Fatalf("row %d value %d: %v beyond the clip stored as %v, want ±%v", r, k, v, have[k], 7*scale)
				}
			}
			if e > eMax*1.0001+1e-9 {
				t.Errorf("row %d: squared error %v above the unclipped scale's %v", r, e, eMax)
			}
		}
	}
	if clipped == 0 {
		t.Error("no value was clipped: the test data does not exercise the clip search")
	}
}

// TestInt4OddDim round-trips a row of odd length and refuses a negative scale.
func TestInt4OddDim(t *testing.T) {
	row := []float32{0.5, -1, 0.25, 0.75, -0.125}
	b := appendInt4Row(nil, row)
	if len(b) != 4+3 {
		t.Fatalf("row of 5 takes %d bytes, want 7", len(b))
	}
	x := make([]float32, 5)
	if err := decodeInt4(b, 5, x); err != nil {
		t.Fatal(err)
	}
	for k, v := range row {
		if math.Abs(float64(x[k]-v)) > 1.0/14+1e-6 {
			t.Errorf("value %d: %v stored as %v", k, v, x[k])
		}
	}
	if b[6]>>4 != 0 {
		t.Errorf("padding nibble %d, want 0", b[6]>>4)
	}
	for name, c := range map[string]struct {
		at   int
		set  byte
		want string
	}{
		"negative scale": {3, 0x80, "row 0 has scale"}, // sign bit of the float32 scale
		"padding":        {6, 0x10, "padding nibble 1"},
		"value -8":       {4, 0x08, "value 0 is -8"},
	} {
		bad := append([]byte(nil), b...)
		if name == "value -8" {
			bad[c.at] = bad[c.at]&0xf0 | c.set
		} else {
			bad[c.at] |= c.set
		}
		if err := decodeInt4(bad, 5, x); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", name, err, c.want)
		}
	}
}

// TestInt4ManyNgrams loads an int4 weights file whose n-gram table has more
// values than the file has bytes: the size checks must allow half a byte a
// value.
func TestInt4ManyNgrams(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	words := make([]string, 400)
	for i := range words {
		w := make([]byte, 8)
		for j := range w {
			w[j] = byte('a' + rng.IntN(26))
		}
		words[i] = string(w)
	}
	const dim = 64
	vocab := BuildNgramVocab(words, NgramConfig{MinN: 3, MaxN: 5, MinCount: 1})
	m, err := New(Config{Dim: dim, Mode: ModeAM, Ngram: vocab.Config(), Tokenizer: DefaultTokenizer()}, vocab, randomEmbeddings(t, 10, dim, 1), 1)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.Save(&buf, SaveOptions{NgramStorage: StorageInt4}); err != nil {
		t.Fatal(err)
	}
	if vocab.Len()*dim <= buf.Len() {
		t.Fatalf("%d n-grams × %d ≤ %d bytes: the test does not reach the case", vocab.Len(), dim, buf.Len())
	}
	got, err := Load(&buf, "many")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Ngrams) != len(m.Ngrams) {
		t.Errorf("%d n-gram values loaded, want %d", len(got.Ngrams), len(m.Ngrams))
	}
}
