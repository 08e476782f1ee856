package model

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestScaleGate: ScaleGate(s) multiplies α by s and mixes the same context
// part and form with the lowered gate; s = 0 gives the form alone.
func TestScaleGate(t *testing.T) {
	m := testModelBuckets(t, ModeAM, 8, 3, 3)
	ws := m.NewWorkspace()
	rng := rand.New(rand.NewPCG(3, 3))
	ctxs := randomContexts(rng, 3, 6, m.Base.Len())
	full := make([]float32, m.Dim)
	a := m.Infer(ws, "apple", ctxs, full).Alpha
	form := append([]float32(nil), ws.form...)
	actx := append([]float32(nil), ws.actx...)
	if a <= 0 || a >= 1 {
		t.Fatalf("α = %v: the test needs a gate strictly between 0 and 1", a)
	}
	for _, s := range []float32{0.5, 0} {
		ws.ScaleGate(s)
		dst := make([]float32, m.Dim)
		if got := m.Infer(ws, "apple", ctxs, dst).Alpha; got != a*s {
			t.Errorf("ScaleGate(%v): α = %v, want %v", s, got, a*s)
		}
		for k := range dst {
			want := a*s*actx[k] + (1-a*s)*form[k]
			if math.Abs(float64(dst[k]-want)) > 1e-6 {
				t.Fatalf("ScaleGate(%v): v[%d] = %v, want %v", s, k, dst[k], want)
			}
		}
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Backward after a scaled Infer did not panic")
			}
		}()
		m.Backward(ws, full, m.NewGrads())
	}()
	ws.ScaleGate(1)
	dst := make([]float32, m.Dim)
	m.Infer(ws, "apple", ctxs, dst)
	for k := range dst {
		if dst[k] != full[k] {
			t.Fatalf("ScaleGate(1) does not give the model's own vector back: v[%d] %v, want %v", k, dst[k], full[k])
		}
	}
}
