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
	m := testModel(t, ModeAM, 16, 8)
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
		for r := 0; r < len(pair[1])/16; r++ {
			want, have := pair[1][r*16:(r+1)*16], pair[0][r*16:(r+1)*16]
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
	b[3] |= 0x80 // sign bit of the float32 scale
	if err := decodeInt4(b, 5, x); err == nil || !strings.Contains(err.Error(), "row 0 has scale") {
		t.Errorf("negative scale: err = %v", err)
	}
}
