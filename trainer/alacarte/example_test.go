package alacarte_test

import (
	"fmt"

	"github.com/text2vec-am/text2vec-am/trainer/alacarte"
)

// Frequent words give pairs of an embedding and an additive context vector;
// the fitted map then turns a rare word's context vector into its vector.
func Example() {
	contexts := [][]float32{{1, 0}, {0, 1}, {1, 1}, {2, -1}}
	targets := [][]float32{{2, 0}, {0, -1}, {2, -1}, {4, 1}} // v = (2·u₀, −u₁)
	a, err := alacarte.Fit(targets, contexts, 1e-9)
	if err != nil {
		fmt.Println(err)
		return
	}
	v := a.Apply([]float32{0.5, 3})
	fmt.Printf("%.3f %.3f\n", v[0], v[1])
	// Output: 1.000 -3.000
}
