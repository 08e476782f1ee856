package fasttext_test

import (
	"bytes"
	"fmt"

	"github.com/text2vec-am/text2vec-am/internal/testfasttext"
	"github.com/text2vec-am/text2vec-am/trainer/fasttext"
)

// A fastText model's word vectors and n-gram table, as train takes them
// (import-fasttext writes them to files): the n-grams held by more words
// come first.
func ExampleModel_Subwords() {
	bin := testfasttext.Bin(testfasttext.Model{Dim: 2, MinN: 3, MaxN: 3, Bucket: 100,
		Words: []string{"</s>", "kernel", "kernels"}, Counts: []int64{50, 9, 4}})
	m, err := fasttext.Read(bytes.NewReader(bin), int64(len(bin)))
	if err != nil {
		fmt.Println(err)
		return
	}
	words, ngrams, err := m.Subwords(0, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(words.Words, words.Counts)
	fmt.Println(ngrams.Words[:5], ngrams.Counts[:5], ngrams.Len())
	// Output:
	// [kernel kernels] [9 4]
	// [<ke ern ker nel rne] [2 2 2 2 2] 8
}
