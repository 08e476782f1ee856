package amtrain

import (
	"github.com/text2vec-am/text2vec-am/model"
)

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
	for k, id := range g.Rows {
		lo, hi := int(id)*d, int(id+1)*d
		c.update(m.Ngrams[lo:hi], g.NgramGrads[k*d:(k+1)*d], o.MN[lo:hi], o.VN[lo:hi])
	}
}
