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
	LR, Beta1, Beta2, Eps float64
	// Step is the number of steps taken (t in the paper).
	Step int64
	// First and second moments, shaped like the parameters.
	MM, VM, MA, VA, MU, VU []float32
	MB, VB                 float32
	MN, VN                 []float32
}

// NewAdam returns the optimizer state for m with zero moments.
func NewAdam(m *model.Model, lr, beta1, beta2, eps float64) *Adam {
	return &Adam{
		LR: lr, Beta1: beta1, Beta2: beta2, Eps: eps,
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
