package vectorizer

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/text2vec-am/text2vec-am/internal/testmodel"
	"github.com/text2vec-am/text2vec-am/model"
)

// TestCommonComponents checks a text's vector against the weighted sum with
// the common space taken out by hand: the count-weighted mean base vector
// times the weights' sum, then the projection on the strongest principal
// directions of the base vectors, found here by power iteration. The model
// has 150 dimensions (three directions at most) and three planted ones of
// clearly different strength.
func TestCommonComponents(t *testing.T) {
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
	v, err := New(m, nil, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	checkCommonComponents(t, v, 3, 3)
	// 32 dimensions: none of the directions, the mean alone.
	checkCommonComponents(t, newVectorizer(t, nil), 4, 0)
}

// checkCommonComponents compares the vectorizer's vector of a text of
// frequent words with common_components 0..k against the sum made by hand,
// of which at most has directions are taken out.
func checkCommonComponents(t *testing.T, v *Vectorizer, k, has int) {
	t.Helper()
	m := v.Model()
	text := "F1 f2, f3. f1!"
	mean, dirs := commonByHand(m.Base, has)
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
		want := make([]float64, m.Dim)
		for _, w := range []string{"f1", "f2", "f3", "f1"} {
			id, _ := m.Base.ID(w)
			wt := 1e-3 / (1e-3 + float64(m.Base.Count(id))/total)
			for j, x := range m.Base.Row(id) {
				want[j] += wt * (float64(x) - b2f(n > 0)*mean[j])
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
