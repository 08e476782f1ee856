package vectorizer_test

import (
	"fmt"

	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
	"github.com/text2vec-am/text2vec-am/simd"
)

// A text's vector is the weighted sum of its words' vectors made into a text
// vector: TextVector does that to any weighted sum, here the one Explain
// reports for a text of frequent words.
func ExampleVectorizer_TextVector() {
	m, _ := testmodel.New(testmodel.Spec{Dim: 100, Frequent: 2000, Rare: 100, FrequentCount: 1000, RareCount: 5, Seed: 1})
	v, _ := vectorizer.New(m, nil, vectorizer.DefaultOptions())
	text := "f1 f2, f3. f1!"
	ex, _ := v.Explain(text, v.Options())
	sum := make([]float32, v.Dim())
	var weights float32
	for _, w := range ex.Words {
		id, _ := m.Base.ID(w.Word)
		simd.Axpy(w.Weight, m.Base.Row(id), sum)
		weights += w.Weight
	}
	err := v.TextVector(sum, weights, v.Options())
	got, _ := v.Vectorize(text, vectorizer.TaskQuery, v.Options())
	fmt.Println(err, len(got) == len(sum), simd.Dot(got, sum) > 0.9999)
	// Output: <nil> true true
}
