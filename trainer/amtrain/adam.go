package amtrain

import (
	"math"

	"github.com/text2vec-am/text2vec-am/model"
)

// Adam is the Adam optimizer (Kingma & Ba 2015) over a model's parameters.
//
// The dense parameters (M, A, U, B) are updated every step. The n-gram
// embedding table is updated lazily, as TensorFlow's LazyAdamOptimizer and
// PyTorch's SparseAdam do: only rows that received a gradient in the step have
// their moments decayed and the row moved; untouched rows keep their moments
// as they are. The bias correction uses the global step count. This keeps a
// step O(rows touched · dim) instead of O(vocabulary · dim).
type Adam struct {
	// LR, Beta1, Beta2 and Eps are the usual Adam settings.
	LR, Beta1, Beta2, Eps float64
	// NgramScale multiplies LR for the n-gram table (0 freezes it; NewAdam
	// sets 1). It is a training option, not part of the checkpointed state.
	NgramScale float64
	// Step is the number of steps taken (t in the paper).
	Step int64
	// MM, VM, MA, VA, MU, VU, MB, VB, MN and VN are the first (M·) and
	// second (V·) moments of M, A, U, B and the n-gram table.
	MM, VM, MA, VA, MU, VU []float32
	MB, VB                 float32
	MN, VN                 []float32
}

// NewAdam returns the optimizer state for m with zero moments.
func NewAdam(m *model.Model, lr, beta1, beta2, eps float64) *Adam {
	return &Adam{
		LR: lr, Beta1: beta1, Beta2: beta2, Eps: eps, NgramScale: 1,
		MM: make([]float32, len(m.M)), VM: make([]float32, len(m.M)),
		MA: make([]float32, len(m.A)), VA: make([]float32, len(m.A)),
		MU: make([]float32, len(m.U)), VU: make([]float32, len(m.U)),
		MN: make([]float32, len(m.Ngrams)), VN: make([]float32, len(m.Ngrams)),
	}
}

// adamCoef holds the per-step constants.
type adamCoef struct {
	b1, b2, c1, c2, lr, eps float32
	scale                   float32 // applied to the gradient
}

func (o *Adam) coef() adamCoef {
	t := float64(o.Step)
	return adamCoef{
		b1:  float32(o.Beta1),
		b2:  float32(o.Beta2),
		c1:  float32(1 / (1 - math.Pow(o.Beta1, t))),
		c2:  float32(1 / (1 - math.Pow(o.Beta2, t))),
		lr:  float32(o.LR),
		eps: float32(o.Eps),
	}
}

// update moves p by one Adam step given gradient scale·g and moments m, v (all the same length).
func (c adamCoef) update(p, g, m, v []float32) {
	m = m[:len(p)]
	v = v[:len(p)]
	g = g[:len(p)]
	for i := range p {
		gi := c.scale * g[i]
		mi := c.b1*m[i] + (1-c.b1)*gi
		vi := c.b2*v[i] + (1-c.b2)*gi*gi
		m[i], v[i] = mi, vi
		p[i] -= c.lr * (mi * c.c1) / (float32(math.Sqrt(float64(vi*c.c2))) + c.eps)
	}
}

// Apply takes one Adam step on m with gradient g scaled by scale (1/batch size).
func (o *Adam) Apply(m *model.Model, g *model.Grads, scale float32) {
	o.Step++
	c := o.coef()
	c.scale = scale
	d := m.Dim
	c.update(m.M, g.M, o.MM, o.VM)
	c.update(m.A, g.A, o.MA, o.VA)
	c.update(m.U, g.U, o.MU, o.VU)
	b, mb, vb := []float32{m.B}, []float32{o.MB}, []float32{o.VB}
	c.update(b, []float32{g.B}, mb, vb)
	m.B, o.MB, o.VB = b[0], mb[0], vb[0]
	if o.NgramScale == 0 {
		return
	}
	c.lr *= float32(o.NgramScale)
	for k, id := range g.Rows {
		lo, hi := int(id)*d, int(id+1)*d
		c.update(m.Ngrams[lo:hi], g.NgramGrads[k*d:(k+1)*d], o.MN[lo:hi], o.VN[lo:hi])
	}
}
