package vectorizer

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/text2vec-am/text2vec-am/internal/testmodel"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/simd"
)

// TestCommonComponents checks a text's vector against the weighted sum with
// the common space taken out by hand: the count-weighted mean base vector
// times the weights' sum, then the projection on the strongest principal
// directions of the base vectors, found here by power iteration. The model
// has 150 dimensions (three directions at most) and three planted ones of
// clearly different strength.
func TestCommonComponents(t *testing.T) {
	checkCommonComponents(t, plantedVectorizer(t, nil), 3, 3)
	// 32 dimensions: no direction, and the weighted sum as it is.
	checkCommonComponents(t, newVectorizer(t, nil), 4, 0)
}

// plantedVectorizer is a vectorizer over a model of 150 dimensions whose base
// vectors have three planted directions of clearly different strength;
// change, if not nil, changes its base vectors before the vectorizer is made.
func plantedVectorizer(t *testing.T, change func(*model.Embeddings)) *Vectorizer {
	t.Helper()
	m, err := testmodel.New(testmodel.Spec{Dim: 150, Frequent: 2000, Rare: 100, FrequentCount: 1000, RareCount: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for id := range m.Base.Len() {
		row := m.Base.Row(int32(id))
		for d, scale := range []float64{8, 5, 3} {
			row[d] += float32(scale * rng.NormFloat64())
		}
	}
	if change != nil {
		change(m.Base)
	}
	v, err := New(m, nil, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestCommonComponentsCharVector: a character vector (a word of a script the
// model never saw) holds no part of the mean word vector, so its weight is
// not in the weights' sum the mean is taken out by.
func TestCommonComponentsCharVector(t *testing.T) {
	v := plantedVectorizer(t, nil)
	o := sifOptions()
	o.CommonComponents = 2
	got, err := v.Vectorize("f1 f2 漢字", TaskQuery, o)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float32, v.Dim())
	if !charVector("漢字", v.charScale, want) { // SIF weight 1: an unseen word
		t.Fatal("no character vector")
	}
	sum := append([]float32(nil), want...)
	var total float64
	for _, c := range v.Model().Base.Counts {
		total += float64(c)
	}
	var weights float32
	for _, w := range []string{"f1", "f2"} {
		id, _ := v.Model().Base.ID(w)
		wt := float32(1e-3 / (1e-3 + float64(v.Model().Base.Count(id))/total))
		simd.Axpy(wt, v.Model().Base.Row(id), want)
		simd.Axpy(wt, v.Model().Base.Row(id), sum)
		weights += wt
	}
	if err := v.TextVector(want, weights, o); err != nil {
		t.Fatal(err)
	}
	assertClose(t, got, want, 1e-5)
	if err := v.TextVector(sum, weights+1, o); err != nil {
		t.Fatal(err)
	}
	if simd.Dot(got, sum) > 0.9999 {
		t.Errorf("the character word's weight counted in the weights' sum changes nothing: the test cannot see it")
	}
}

// TestCommonComponentsCancel: a text whose sum lies in the common space (a
// word whose vector is the mean word vector) keeps its weighted sum, not the
// rounding noise that would remain.
func TestCommonComponentsCancel(t *testing.T) {
	v := plantedVectorizer(t, func(e *model.Embeddings) {
		// f0's row becomes the count-weighted mean of the others: then it is
		// the mean of all rows.
		mean := make([]float64, e.Dim)
		var total float64
		for id := 1; id < e.Len(); id++ {
			c := float64(e.Count(int32(id)))
			total += c
			for j, x := range e.Row(int32(id)) {
				mean[j] += c * float64(x)
			}
		}
		for j := range mean {
			e.Row(0)[j] = float32(mean[j] / total)
		}
	})
	got, err := v.Vectorize("f0", TaskQuery, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := append([]float32(nil), v.Model().Base.Row(0)...)
	normalize(want)
	assertClose(t, got, want, 1e-5)
}

// checkCommonComponents compares the vectorizer's vector of a text of
// frequent words and one unseen word with common_components 0..k against the
// sum made by hand, of which at most has directions are taken out (and the
// mean only with a direction).
func checkCommonComponents(t *testing.T, v *Vectorizer, k, has int) {
	t.Helper()
	m := v.Model()
	text := "F1 f2, f3 f1. Jargon3 f4 f5 f6."
	mean, dirs := commonByHand(m.Base, has)
	// The unseen word's AM vector (SIF weight 1) from its sentence, the
	// text's own: its gate lowered by the default discount.
	am := make([]float32, m.Dim)
	ws := m.NewWorkspace()
	ws.ScaleGate(float32(1 - DefaultOptions().TextContextDiscount))
	m.Infer(ws, "jargon3", [][]int32{m.ContextIDs(nil, []string{"jargon3", "f4", "f5", "f6"}, "jargon3")}, am)
	var total float64
	for _, c := range m.Base.Counts {
		total += float64(c)
	}
	for n := 0; n <= k; n++ {
		o := sifOptions()
		o.CommonComponents = n
		got, err := v.Vectorize(text, TaskQuery, o)
		if err != nil {
			t.Fatal(err)
		}
		centre := b2f(n > 0 && has > 0)
		want := make([]float64, m.Dim)
		for j, x := range am {
			want[j] = float64(x) - centre*mean[j]
		}
		for _, w := range []string{"f1", "f2", "f3", "f1", "f4", "f5", "f6"} {
			id, _ := m.Base.ID(w)
			wt := 1e-3 / (1e-3 + float64(m.Base.Count(id))/total)
			for j, x := range m.Base.Row(id) {
				want[j] += wt * (float64(x) - centre*mean[j])
			}
		}
		for _, u := range dirs[:min(n, has)] {
			var dot float64
			for j := range want {
				dot += u[j] * want[j]
			}
			for j := range want {
				want[j] -= dot * u[j]
			}
		}
		w32 := make([]float32, m.Dim)
		for j, x := range want {
			w32[j] = float32(x)
		}
		normalize(w32)
		assertClose(t, got, w32, 1e-4)
		assertUnit(t, got)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// commonByHand returns the count-weighted mean of e's non-zero rows and the
// first k eigenvectors of their scatter around it, by power iteration with
// deflation.
func commonByHand(e *model.Embeddings, k int) ([]float64, [][]float64) {
	dim := e.Dim
	mean := make([]float64, dim)
	var total float64
	var rows [][]float64
	for id := range e.Len() {
		row := e.Row(int32(id))
		if isZero(row) {
			continue
		}
		c := float64(e.Count(int32(id)))
		total += c
		x := make([]float64, dim)
		for j, f := range row {
			x[j] = float64(f)
			mean[j] += c * float64(f)
		}
		rows = append(rows, x)
	}
	for j := range mean {
		mean[j] /= total
	}
	scatter := make([]float64, dim*dim)
	for _, x := range rows {
		for i := range dim {
			for j := range dim {
				scatter[i*dim+j] += (x[i] - mean[i]) * (x[j] - mean[j])
			}
		}
	}
	var dirs [][]float64
	for range k {
		u := make([]float64, dim)
		for j := range u {
			u[j] = 1 / math.Sqrt(float64(j+2))
		}
		var lambda float64
		for range 5000 {
			next := make([]float64, dim)
			for i := range dim {
				for j := range dim {
					next[i] += scatter[i*dim+j] * u[j]
				}
			}
			var n float64
			for _, f := range next {
				n += f * f
			}
			lambda = math.Sqrt(n)
			for j := range next {
				next[j] /= lambda
			}
			u = next
		}
		for i := range dim {
			for j := range dim {
				scatter[i*dim+j] -= lambda * u[i] * u[j]
			}
		}
		dirs = append(dirs, u)
	}
	return mean, dirs
}

// TestCommonRowIDs: the scatter is taken over the most frequent non-zero
// rows, or the first ones when the model has no counts.
func TestCommonRowIDs(t *testing.T) {
	rows := make([]rowMeta, commonRows+2)
	for i := range rows {
		rows[i].count = int64(i) // the last rows are the most frequent
	}
	rows[len(rows)-1].zero = true
	ids := commonRowIDs(rows, true)
	if len(ids) != commonRows || ids[0] != int32(len(rows)-2) || ids[len(ids)-1] != 1 {
		t.Errorf("with counts: %d rows from %d to %d, want %d from %d to 1", len(ids), ids[0], ids[len(ids)-1],
			commonRows, len(rows)-2)
	}
	ids = commonRowIDs(rows, false)
	if len(ids) != commonRows || ids[0] != 0 || ids[len(ids)-1] != commonRows-1 {
		t.Errorf("without counts: %d rows from %d to %d, want the first %d", len(ids), ids[0], ids[len(ids)-1], commonRows)
	}
}

// TestCommonComponentsOnFirstUse: a vectorizer made without common
// components computes them on the first call that asks, once for all its
// views, and gives the vectors of one made with them.
func TestCommonComponentsOnFirstUse(t *testing.T) {
	with := plantedVectorizer(t, nil)
	m := with.Model()
	plain := DefaultOptions()
	plain.CommonComponents = 0
	without, err := New(m, nil, plain)
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	want, err := with.Vectorize("f1 f2 f3. jargon3 f4", TaskQuery, o)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	got := make([][]float32, 4)
	errs := make([]error, 4)
	mem := newMemory(t) // empty: the views read no context and count no passage
	for i := range got {
		view, err := without.WithStores(mem, mem, nil)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() { got[i], errs[i] = view.Vectorize("f1 f2 f3. jargon3 f4", TaskQuery, o) })
	}
	wg.Wait()
	for i := range got {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		assertClose(t, got[i], want, 1e-6)
	}
}

// TestCommonDirectionsOfFewRows: a scatter of three rows has two directions
// of variance; the others say nothing and are not taken out.
func TestCommonDirectionsOfFewRows(t *testing.T) {
	const dim = 150
	rng := rand.New(rand.NewPCG(5, 6))
	vecs := make([]float32, 3*dim)
	for i := range vecs {
		vecs[i] = float32(rng.NormFloat64())
	}
	e, err := model.NewEmbeddings(dim, []string{"a", "b", "c"}, vecs, []int64{3, 2, 1})
	if err != nil {
		t.Fatal(err)
	}
	rows := []rowMeta{{count: 3}, {count: 2}, {count: 1}}
	c := newCommonSpace(e, rows, true)
	if err := c.ready(); err != nil {
		t.Fatal(err)
	}
	if n := len(c.dirs) / dim; n != 2 {
		t.Errorf("%d directions, want 2", n)
	}
}
