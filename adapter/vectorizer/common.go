package vectorizer

import (
	"cmp"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/simd"
)

// MaxCommonComponents bounds Options.CommonComponents: the directions a
// vectorizer computes when it is made.
const MaxCommonComponents = 16

// dimsPerComponent: a model of d dimensions has at most d/dimsPerComponent
// common directions taken out (Mu and Viswanath remove about d/100): 4 of
// the default model's 200, none of a model under 50 dimensions, whose few
// directions each carry much of what tells texts apart.
const dimsPerComponent = 50

// commonRows bounds the base rows whose scatter gives the common directions:
// the most frequent words (on debian-dev 10,000, 20,000, 40,000 and all
// 74,504 of the default model give dense AM MRR@10 0.531, 0.530, 0.533 and
// 0.532), so that a model of millions of words is ready in a fraction of a
// second.
const commonRows = 40_000

// commonSpace is what every text vector shares and says nothing of the text
// (Arora et al. 2017, SIF's common component; Mu and Viswanath 2018,
// "all-but-the-top"): the count-weighted mean base vector, and the principal
// directions of the base vectors around it, strongest first.
type commonSpace struct {
	dim  int
	mean []float32 // the corpus's mean word vector, each word by its count
	dirs []float32 // min(MaxCommonComponents, dim/dimsPerComponent) unit directions, row-major
}

// newCommonSpace computes the common space of base (rows gives the counts
// and the all-zero rows). Without counts the mean is the plain mean.
func newCommonSpace(base *model.Embeddings, rows []rowMeta, hasCounts bool) (*commonSpace, error) {
	dim := base.Dim
	c := &commonSpace{dim: dim, mean: make([]float32, dim)}
	mean := make([]float64, dim) // count-weighted, over every row
	var total float64
	for i := range rows {
		if rows[i].zero {
			continue
		}
		w := 1.0
		if hasCounts {
			w = float64(max(rows[i].count, 0))
		}
		total += w
		for j, x := range base.Row(int32(i)) {
			mean[j] += w * float64(x)
		}
	}
	for j := range mean {
		if total > 0 {
			mean[j] /= total
		}
		c.mean[j] = float32(mean[j])
	}
	k := min(MaxCommonComponents, dim/dimsPerComponent)
	ids := commonRowIDs(rows, hasCounts)
	if k == 0 || len(ids) == 0 {
		return c, nil
	}
	cov := covariance(base, ids, mean)
	var es mat.EigenSym
	if !es.Factorize(cov, true) {
		return nil, fmt.Errorf("common directions of the base vectors: the eigendecomposition did not converge")
	}
	var vecs mat.Dense
	es.VectorsTo(&vecs) // ascending eigenvalues: the strongest direction is the last column
	c.dirs = make([]float32, k*dim)
	for d := range k {
		for j := range dim {
			c.dirs[d*dim+j] = float32(vecs.At(j, dim-1-d))
		}
	}
	return c, nil
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
	flush := func() {
		for i, f := range blk {
			sum[i] += float64(f)
		}
		clear(blk)
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
		flush()
	}
	return mat.NewSymDense(dim, sum)
}

// remove takes the common space out of acc, a sum of word vectors whose
// weights add up to wsum: wsum times the mean word vector, then the
// projection on the first k directions (at most those it has).
func (c *commonSpace) remove(acc []float32, wsum float32, k int) {
	simd.Axpy(-wsum, c.mean, acc)
	for d := range min(k, len(c.dirs)/c.dim) {
		u := c.dirs[d*c.dim : (d+1)*c.dim]
		simd.Axpy(-simd.Dot(u, acc), u, acc)
	}
}

// TextVector turns sum, a weighted sum of word vectors whose weights add up
// to weights, into a text's vector in place, as Vectorize does: the common
// space taken out (opts.CommonComponents), then unit length. A zero result
// is ErrNoWords.
func (v *Vectorizer) TextVector(sum []float32, weights float32, opts Options) error {
	if len(sum) != v.dim {
		return fmt.Errorf("text vector: the sum has dimension %d, the model %d", len(sum), v.dim)
	}
	if opts.CommonComponents > 0 {
		v.common.remove(sum, weights, opts.CommonComponents)
	}
	return normalizeSum(sum)
}
