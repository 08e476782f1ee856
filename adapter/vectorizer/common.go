package vectorizer

import (
	"cmp"
	"fmt"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/simd"
)

// MaxCommonComponents bounds Options.CommonComponents.
const MaxCommonComponents = 16

// dimsPerComponent: a model of d dimensions has at most d/dimsPerComponent
// common directions (Mu and Viswanath remove about d/100): 4 of the default
// model's 200. A model under 50 dimensions has none, and its text vectors
// are the weighted sum as it is: its few directions each carry much of what
// tells texts apart.
const dimsPerComponent = 50

// commonRows bounds the base rows whose scatter gives the common directions:
// the most frequent words, so that a model of millions of words is ready in
// a fraction of a second (docs/evaluation.md, "The text vector").
const commonRows = 40_000

// commonSpace is what every text vector shares and says nothing of the text
// (Arora et al. 2017, SIF's common component; Mu and Viswanath 2018,
// "all-but-the-top"): the count-weighted mean base vector, and the principal
// directions of the base vectors around it, strongest first. It is computed
// once, when a vectorizer whose options take it out is made or when a call
// first asks for it, and shared by the vectorizer's views.
type commonSpace struct {
	once      sync.Once
	base      *model.Embeddings
	rows      []rowMeta
	hasCounts bool

	err  error
	mean []float32 // the corpus's mean word vector, each word by its count
	dirs []float32 // unit directions, row-major; none for a model under 50 dimensions
}

func newCommonSpace(base *model.Embeddings, rows []rowMeta, hasCounts bool) *commonSpace {
	return &commonSpace{base: base, rows: rows, hasCounts: hasCounts}
}

// ready computes the common space on its first call and returns its error.
func (c *commonSpace) ready() error {
	c.once.Do(func() {
		if c.err = c.compute(); c.err != nil {
			c.err = fmt.Errorf("common directions of the base vectors: %w", c.err)
		}
	})
	return c.err
}

func (c *commonSpace) compute() error {
	dim := c.base.Dim
	k := min(MaxCommonComponents, dim/dimsPerComponent)
	ids := commonRowIDs(c.rows, c.hasCounts)
	if k == 0 || len(ids) == 0 {
		return nil
	}
	mean := c.meanRow()
	var es mat.EigenSym
	if !es.Factorize(covariance(c.base, ids, mean), true) {
		return fmt.Errorf("the eigendecomposition of their scatter did not converge")
	}
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	vals := es.Values(nil) // ascending: the strongest direction is the last column
	c.mean = make([]float32, dim)
	for j, m := range mean {
		c.mean[j] = float32(m)
	}
	for d := range k {
		// A scatter of fewer rows than dimensions has directions with no
		// variance along them, which say nothing: they are left in.
		if !(vals[dim-1-d] > 1e-6*vals[dim-1]) {
			break
		}
		for j := range dim {
			c.dirs = append(c.dirs, float32(vecs.At(j, dim-1-d)))
		}
	}
	return nil
}

// meanRow returns the count-weighted mean of the non-zero base rows (the
// plain mean without counts).
func (c *commonSpace) meanRow() []float64 {
	mean := make([]float64, c.base.Dim)
	var total float64
	for i := range c.rows {
		if c.rows[i].zero {
			continue
		}
		w := 1.0
		if c.hasCounts {
			w = float64(max(c.rows[i].count, 0))
		}
		total += w
		for j, x := range c.base.Row(int32(i)) {
			mean[j] += w * float64(x)
		}
	}
	if total > 0 {
		for j := range mean {
			mean[j] /= total
		}
	}
	return mean
}

// commonRowIDs returns the non-zero rows, at most commonRows of them: the
// most frequent (with counts), else the first (word2vec and fastText files
// list the most frequent words first).
func commonRowIDs(rows []rowMeta, hasCounts bool) []int32 {
	ids := make([]int32, 0, min(len(rows), commonRows))
	for i := range rows {
		if !rows[i].zero {
			ids = append(ids, int32(i))
		}
	}
	if len(ids) <= commonRows {
		return ids
	}
	if hasCounts {
		slices.SortStableFunc(ids, func(a, b int32) int { return cmp.Compare(rows[b].count, rows[a].count) })
	}
	return ids[:commonRows]
}

// covariance returns Σ (x − mean)(x − mean)ᵀ over the rows ids of base: two
// centred rows at a time by simd.Rank2 into a float32 block, which is added
// to the float64 sum every covBlock rows so that rounding stays small.
func covariance(base *model.Embeddings, ids []int32, mean []float64) *mat.SymDense {
	dim := base.Dim
	const covBlock = 256
	sum := make([]float64, dim*dim)
	blk := make([]float32, dim*dim)
	x1, x2 := make([]float32, dim), make([]float32, dim)
	centre := func(dst []float32, id int32) {
		for j, x := range base.Row(id) {
			dst[j] = float32(float64(x) - mean[j])
		}
	}
	for start := 0; start < len(ids); start += covBlock {
		rows := ids[start:min(start+covBlock, len(ids))]
		for r := 0; r+1 < len(rows); r += 2 {
			centre(x1, rows[r])
			centre(x2, rows[r+1])
			simd.Rank2(blk, dim, dim, 1, x1, x1, x2, x2)
		}
		if len(rows)%2 == 1 {
			centre(x1, rows[len(rows)-1])
			simd.Rank1(blk, dim, dim, 1, x1, x1)
		}
		for i, f := range blk {
			sum[i] += float64(f)
		}
		clear(blk)
	}
	return mat.NewSymDense(dim, sum)
}

// remove takes the common space out of acc, a sum of word vectors whose
// weights add up to wsum: wsum times the mean word vector, then the
// projection on the first k directions (at most those it has). Without
// directions acc is left as it is, and so is a sum that lies in the common
// space (what would remain is rounding noise); keep is scratch of len(acc).
func (c *commonSpace) remove(acc, keep []float32, wsum float32, k int) {
	k = min(k, len(c.dirs)/len(acc))
	before := simd.Dot(acc, acc)
	if k == 0 || before == 0 {
		return
	}
	copy(keep, acc)
	simd.Axpy(-wsum, c.mean, acc)
	for d := range k {
		u := c.dirs[d*len(acc) : (d+1)*len(acc)]
		simd.Axpy(-simd.Dot(u, acc), u, acc)
	}
	if simd.Dot(acc, acc) < 1e-6*before {
		copy(acc, keep)
	}
}

// TextVector turns sum, a weighted sum of word vectors whose weights add up
// to weights, into a text's vector in place, as Vectorize does: the common
// space taken out (opts.CommonComponents), then unit length. As in
// Vectorize, weights leaves out the weights of words with a character
// vector (SourceChars), which hold no part of the mean word vector. A zero
// result is ErrNoWords.
func (v *Vectorizer) TextVector(sum []float32, weights float32, opts Options) error {
	if len(sum) != v.dim {
		return fmt.Errorf("text vector: the sum has dimension %d, the model %d", len(sum), v.dim)
	}
	var keep []float32
	if opts.CommonComponents > 0 {
		keep = make([]float32, v.dim)
	}
	return v.textVector(sum, keep, weights, &opts)
}

// textVector is TextVector with keep, scratch of len(sum).
func (v *Vectorizer) textVector(sum, keep []float32, weights float32, o *Options) error {
	if o.CommonComponents > 0 {
		if err := v.common.ready(); err != nil {
			return err
		}
		v.common.remove(sum, keep, weights, o.CommonComponents)
	}
	return normalizeSum(sum)
}
