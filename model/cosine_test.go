package model

import (
	"math"
	"testing"
)

func TestCosine(t *testing.T) {
	if c := Cosine([]float32{1, 0}, []float32{1, 1}); math.Abs(c-1/math.Sqrt2) > 1e-7 {
		t.Errorf("Cosine = %v", c)
	}
	if c := Cosine([]float32{0, 0}, []float32{1, 1}); c != 0 {
		t.Errorf("Cosine with zero vector = %v, want 0", c)
	}
	if c := Cosine([]float64{1, 2}, []float64{2, 4}); math.Abs(c-1) > 1e-12 {
		t.Errorf("Cosine of parallel float64 vectors = %v", c)
	}
	if c := Cosine([]float32{1, 2}, []float32{1, 2, 3}); c != 0 {
		t.Errorf("Cosine of different lengths = %v, want 0", c)
	}
	if c := Cosine([]float32{}, nil); c != 0 {
		t.Errorf("Cosine of empty vectors = %v, want 0", c)
	}
}
