package model

import (
	"fmt"
	"math"

	"github.com/text2vec-am/text2vec-am/simd"
)

// Grads accumulates gradients of the loss with respect to the parameters:
// dense for M, A, U and B, sparse for the n-gram table (only the rows
// touched). Backward adds into it; workers each fill their own Grads and the
// trainer sums them with Add. For an Adam step read M, A, U, B and, for each
// k, the gradient row NgramGrads[k·Dim:(k+1)·Dim] of n-gram row Rows[k].
type Grads struct {
	// Dim is the model dimension.
	Dim int
	// M, A (Dim × Dim) and U (2·Dim + CountBuckets [+ 1]) are dense gradients;
	// B the bias's.
	M, A, U []float32
	B       float32
	// Rows lists the n-gram rows touched, each once, in order of first touch.
	Rows []int32
	// NgramGrads holds len(Rows) × Dim values: the gradient of row Rows[k]
	// is NgramGrads[k·Dim:(k+1)·Dim].
	NgramGrads []float32
	// Instances counts the Backward calls accumulated (Add sums it).
	Instances int
	// Loss is the sum of the losses accumulated.
	Loss float64

	slot map[int32]int32 // n-gram row → index in Rows
}

// NewGrads returns zeroed gradients shaped for m.
func (m *Model) NewGrads() *Grads {
	d := m.Dim
	return &Grads{Dim: d, M: make([]float32, d*d), A: make([]float32, d*d), U: make([]float32, m.gateLen()), slot: make(map[int32]int32)}
}

// Reset zeroes g, keeping its memory.
func (g *Grads) Reset() {
	clear(g.M)
	clear(g.A)
	clear(g.U)
	g.B = 0
	g.Rows = g.Rows[:0]
	g.NgramGrads = g.NgramGrads[:0]
	g.Instances = 0
	g.Loss = 0
	clear(g.slot)
}

// Row returns the gradient row of n-gram row id, adding a zero row when id
// was not touched yet. The slice is valid until the next call of Row, Add or
// Reset.
func (g *Grads) Row(id int32) []float32 {
	d := g.Dim
	if g.slot == nil {
		g.slot = make(map[int32]int32)
	}
	k, ok := g.slot[id]
	if !ok {
		k = int32(len(g.Rows))
		g.slot[id] = k
		g.Rows = append(g.Rows, id)
		n := len(g.NgramGrads)
		if cap(g.NgramGrads) >= n+d {
			g.NgramGrads = g.NgramGrads[:n+d]
			clear(g.NgramGrads[n:])
		} else {
			g.NgramGrads = append(g.NgramGrads, make([]float32, d)...)
		}
	}
	return g.NgramGrads[int(k)*d : (int(k)+1)*d]
}

// Add adds o into g (same dimension).
func (g *Grads) Add(o *Grads) {
	if g.Dim != o.Dim {
		panic(fmt.Sprintf("model.Grads.Add: dimension %d and %d", g.Dim, o.Dim))
	}
	simd.Add(g.M, o.M)
	simd.Add(g.A, o.A)
	simd.Add(g.U, o.U)
	g.B += o.B
	d := g.Dim
	for k, id := range o.Rows {
		simd.Add(g.Row(id), o.NgramGrads[k*d:(k+1)*d])
	}
	g.Instances += o.Instances
	g.Loss += o.Loss
}

// Scale multiplies every gradient by alpha (e.g. 1/Instances for a mean).
func (g *Grads) Scale(alpha float32) {
	simd.Scale(alpha, g.M)
	simd.Scale(alpha, g.A)
	simd.Scale(alpha, g.U)
	g.B *= alpha
	simd.Scale(alpha, g.NgramGrads)
}

// Backward adds to g the gradient of L = |v − target|² (summed over the
// dimensions; the reference's mean squared error is L/Dim) for the instance
// last run through Infer with ws, and returns L. The parameters must not have
// changed since that Infer, and the gate not scaled (ScaleGate). Base vectors
// are not trained.
func (m *Model) Backward(ws *Workspace, target []float32, g *Grads) (loss float32) {
	d := m.Dim
	if !ws.valid || ws.mode != m.Mode || ws.dim != d {
		panic("model.Backward: the workspace holds no Infer of this model")
	}
	if ws.gram != nil {
		panic("model.Backward: the workspace uses MᵀM (UseGram); training needs M·S")
	}
	if ws.formGiven {
		panic("model.Backward: the form was given (InferForm); training needs Infer")
	}
	if ws.scale != 1 {
		panic("model.Backward: the gate was scaled (ScaleGate); training needs the model's own gate")
	}
	if len(target) != d || g.Dim != d {
		panic(fmt.Sprintf("model.Backward: target length %d, gradient dimension %d, model dimension %d", len(target), g.Dim, d))
	}
	var l float64
	for k, v := range ws.out {
		diff := v - target[k]
		l += float64(diff) * float64(diff)
		ws.gv[k] = 2 * diff
	}
	g.Instances++
	g.Loss += l

	useForm := m.Mode.UsesForm()
	switch {
	case ws.formOnly:
		copy(ws.dform, ws.gv)
	case m.Mode.Gated():
		a := ws.alpha
		gz := (simd.Dot(ws.gv, ws.actx) - simd.Dot(ws.gv, ws.form)) * a * (1 - a)
		simd.Axpy(gz, ws.ctx, g.U[:d])
		simd.Axpy(gz, ws.form, g.U[d:2*d])
		if m.CountBuckets > 0 {
			g.U[2*d+ws.bucket] += gz
		}
		if m.GateAgreement {
			g.U[m.agreementIndex()] += gz * ws.agree
		}
		if m.GateCoverage {
			g.U[m.coverageIndex()] += gz * coverageShortfall(ws.cover)
		}
		g.B += gz
		simd.Rank1(g.A, d, d, a, ws.gv, ws.ctx)
		simd.MatTVec(ws.dctx, m.A, d, d, ws.gv)
		simd.Scale(a, ws.dctx)
		simd.Axpy(gz, m.U[:d], ws.dctx)
		copy(ws.dform, ws.gv)
		simd.Scale(1-a, ws.dform)
		simd.Axpy(gz, m.U[d:2*d], ws.dform)
		m.backwardAttention(ws, g)
	default: // context only
		simd.Rank1(g.A, d, d, 1, ws.gv, ws.ctx)
		simd.MatTVec(ws.dctx, m.A, d, d, ws.gv)
		m.backwardAttention(ws, g)
	}
	if useForm {
		scale := 1 / float32(len(ws.ids))
		for _, id := range ws.ids {
			simd.Axpy(scale, ws.dform, g.Row(id))
		}
	}
	return float32(l)
}

// backwardAttention adds the gradient with respect to M that flows from
// ∂L/∂v_ctx (ws.dctx) through ρ. num_k = v_kᵀ MᵀM S/√d, so with
// w = Σ_k ∂L/∂num_k · v_k/√d the gradient is (M w) Sᵀ + (M S) wᵀ.
func (m *Model) backwardAttention(ws *Workspace, g *Grads) {
	if !m.Mode.attentive() {
		return
	}
	d := m.Dim
	var c float64
	for i, n := range ws.counts {
		if n == 0 {
			ws.drho[i] = 0
			continue
		}
		ws.drho[i] = simd.Dot(ws.dctx, ws.means[i*d:(i+1)*d])
		c += float64(ws.rho[i]) * float64(ws.drho[i])
	}
	if ws.clamped {
		c = 0 // the normaliser was the constant ε
	}
	inv := 1 / ws.den
	for i := range ws.drho {
		ws.drho[i] = float32((float64(ws.drho[i]) - c) * inv) // now ∂L/∂num_i
	}
	simd.WeightedSum(ws.w, ws.drho, ws.means)
	simd.Scale(float32(1/math.Sqrt(float64(d))), ws.w)
	simd.MatVec(ws.mw, m.M, d, d, ws.w)
	simd.Rank2(g.M, d, d, 1, ws.mw, ws.sum, ws.ms, ws.w) // ∂M += mw·sumᵀ + ms·wᵀ in one pass
}
