package model

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestInferFormMatchesInfer checks that Form and InferForm give Infer's
// vector and explanation to the last bit in every mode, with and without
// contexts, and that Backward refuses a workspace InferForm used last.
func TestInferFormMatchesInfer(t *testing.T) {
	words := []string{"apple", "dapples", "zzz", "maple"}
	for _, mode := range []Mode{ModeAM, ModeFCM, ModeForm, ModeContext, ModeFCMContext} {
		t.Run(mode.String(), func(t *testing.T) {
			buckets := 0
			if mode.Gated() {
				buckets = 4
			}
			m := testModelBuckets(t, mode, 16, 3, buckets)
			if mode.Gated() { // the coverage reaches the vector through the gate
				m.GateCoverage = true
				m.U = append(m.U, -1.3)
			}
			rng := rand.New(rand.NewPCG(9, 1))
			ws, ws2 := m.NewWorkspace(), m.NewWorkspace()
			form := make([]float32, m.Dim)
			want, got := make([]float32, m.Dim), make([]float32, m.Dim)
			for i, word := range words {
				ctxs := randomContexts(rng, i*3, 6, m.Base.Len())
				ws2.ScaleGate(0.5 + 0.1*float32(i))
				ws.ScaleGate(0.5 + 0.1*float32(i))
				e1 := m.Infer(ws, word, ctxs, want)
				rho := slices.Clone(e1.Rho)
				cov := m.Form(ws2, word, form)
				e2 := m.InferForm(ws2, form, cov, ctxs, got)
				if !slices.Equal(got, want) {
					t.Fatalf("%q with %d contexts: InferForm %v, Infer %v", word, len(ctxs), got, want)
				}
				if e1.Alpha != e2.Alpha || e1.FormOnly != e2.FormOnly || !slices.Equal(rho, e2.Rho) {
					t.Fatalf("%q: InferForm explains %+v, Infer %+v (ρ %v)", word, e2, e1, rho)
				}
			}
		})
	}
	m := testModel(t, ModeAM, 16, 3)
	ws := m.NewWorkspace()
	form, dst := make([]float32, m.Dim), make([]float32, m.Dim)
	cov := m.Form(ws, "apple", form)
	m.InferForm(ws, form, cov, randomContexts(rand.New(rand.NewPCG(1, 2)), 3, 5, m.Base.Len()), dst)
	defer func() {
		if recover() == nil {
			t.Fatal("Backward after InferForm did not panic")
		}
	}()
	m.Backward(ws, dst, m.NewGrads())
}

// TestUseGramMatchesInfer checks that AttentionGram is MᵀM and that an
// Infer with it gives Infer's vector and weights up to float32 rounding, in
// the attentive modes, and that Backward refuses such a workspace.
func TestUseGramMatchesInfer(t *testing.T) {
	for _, mode := range []Mode{ModeAM, ModeContext} {
		m := testModel(t, mode, 24, 5)
		d := m.Dim
		g := m.AttentionGram()
		for i := range d {
			for j := range d {
				var want float64
				for k := range d {
					want += float64(m.M[k*d+i]) * float64(m.M[k*d+j])
				}
				if diff := float64(g[i*d+j]) - want; diff > 1e-5 || diff < -1e-5 {
					t.Fatalf("%v: (MᵀM)[%d][%d] = %g, want %g", mode, i, j, g[i*d+j], want)
				}
			}
		}
		rng := rand.New(rand.NewPCG(4, 4))
		ws, wsg := m.NewWorkspace(), m.NewWorkspace()
		wsg.UseGram(g)
		want, got := make([]float32, d), make([]float32, d)
		for n := 1; n < 12; n++ {
			ctxs := randomContexts(rng, n, 8, m.Base.Len())
			e1 := m.Infer(ws, "grapple", ctxs, want)
			rho := slices.Clone(e1.Rho)
			e2 := m.Infer(wsg, "grapple", ctxs, got)
			for k := range want {
				if diff := got[k] - want[k]; diff > 1e-4 || diff < -1e-4 {
					t.Fatalf("%v, %d contexts: component %d is %g with MᵀM, %g without", mode, n, k, got[k], want[k])
				}
			}
			for k := range rho {
				if diff := e2.Rho[k] - rho[k]; diff > 1e-4 || diff < -1e-4 {
					t.Fatalf("%v, %d contexts: ρ_%d is %g with MᵀM, %g without", mode, n, k, e2.Rho[k], rho[k])
				}
			}
		}
		if m.Mode == ModeAM {
			func() {
				defer func() {
					if recover() == nil {
						t.Error("Backward after an Infer with MᵀM did not panic")
					}
				}()
				m.Backward(wsg, want, m.NewGrads())
			}()
		}
	}
	if g := testModel(t, ModeFCM, 8, 1).AttentionGram(); g != nil {
		t.Errorf("FCM has no attention, AttentionGram gave %d values", len(g))
	}
}
