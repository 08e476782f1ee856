package model_test

import (
	"fmt"
	"slices"

	"github.com/text2vec-am/text2vec-am/model"
)

// exampleModel is a model of dimension 3 over 4 base words (normally
// LoadEmbeddings and Load give them).
func exampleModel() *model.Model {
	base, err := model.NewEmbeddings(3, []string{"the", "river", "bank", "money"},
		[]float32{0.1, 0.2, 0.3, 1, 0, 0, 0, 1, 0, 0, 0, 1}, nil)
	if err != nil {
		panic(err)
	}
	vocab := model.BuildNgramVocab(base.Words, model.DefaultNgramConfig())
	cfg := model.Config{Dim: 3, Mode: model.ModeAM, Ngram: model.DefaultNgramConfig(), Tokenizer: model.DefaultTokenizer()}
	m, err := model.New(cfg, vocab, base, 1)
	if err != nil {
		panic(err)
	}
	return m
}

// Inferring a vector for an unseen word from two contexts.
func ExampleModel_Infer() {
	m := exampleModel()
	ws := m.NewWorkspace() // one per goroutine
	var contexts [][]int32
	for _, sentence := range m.Tokenizer.AppendSentences(nil, "The riverbank flooded. Money from the riverbank!") {
		tokens := m.Tokenizer.AppendTokens(nil, sentence)
		contexts = append(contexts, m.ContextIDs(nil, tokens, "riverbank"))
	}
	v := make([]float32, m.Dim)
	exp := m.Infer(ws, "riverbank", contexts, v)
	fmt.Println(contexts, len(exp.Rho), exp.FormOnly)
	// Output: [[0] [3 0]] 2 false
}

// Inferring the same word again as its contexts grow, with its form kept.
func ExampleModel_InferForm() {
	m := exampleModel()
	ws := m.NewWorkspace()
	form := make([]float32, m.Dim)
	coverage := m.Form(ws, "riverbank", form) // once per word
	v, w := make([]float32, m.Dim), make([]float32, m.Dim)
	contexts := [][]int32{{1}, {3, 0}}
	for k := 1; k <= len(contexts); k++ {
		m.InferForm(ws, form, coverage, contexts[:k], v)
		m.Infer(ws, "riverbank", contexts[:k], w)
		fmt.Println(k, slices.Equal(v, w))
	}
	// Output:
	// 1 true
	// 2 true
}

// Serving with the attention's MᵀM computed once.
func ExampleWorkspace_UseGram() {
	m := exampleModel()
	ws := m.NewWorkspace()
	ws.UseGram(m.AttentionGram()) // M must not change afterwards: no Backward with ws
	v := make([]float32, m.Dim)
	exp := m.Infer(ws, "riverbank", [][]int32{{1}, {3, 0}}, v)
	fmt.Println(len(exp.Rho), exp.FormOnly)
	// Output: 2 false
}

// How much of a word's spelling the model's n-grams know.
func ExampleModel_Coverage() {
	base, err := model.NewEmbeddings(2, []string{"river", "bank"}, []float32{1, 0, 0, 1}, nil)
	if err != nil {
		panic(err)
	}
	ng := model.NgramConfig{MinN: 3, MaxN: 5, MinCount: 1}
	cfg := model.Config{Dim: 2, Mode: model.ModeAM, Ngram: ng, Tokenizer: model.DefaultTokenizer()}
	m, err := model.New(cfg, model.BuildNgramVocab(base.Words, ng), base, 1)
	if err != nil {
		panic(err)
	}
	for _, w := range []string{"river", "riverbank", "qzxkvbt"} {
		fmt.Printf("%s %.2f\n", w, m.Coverage(w))
	}
	// Output:
	// river 1.00
	// riverbank 0.62
	// qzxkvbt 0.00
}

// Inferring the skipgram vector of a word never trained on, from two
// sentences, against a subword model's output vectors (train-embeddings
// --outputs-out gives them; their counts are the corpus counts).
func ExampleSkipInference() {
	words, vecs, counts := []string{"river", "money"}, []float32{2, 0, 0, 2}, []int64{5, 5}
	for i := range 20 { // the frequent words, most of the negatives
		words, vecs, counts = append(words, fmt.Sprint("w", i)), append(vecs, 0.3, -0.3), append(counts, 100)
		vecs[len(vecs)-2+i%2] *= -1
	}
	out, err := model.NewEmbeddings(2, words, vecs, counts)
	if err != nil {
		panic(err)
	}
	sk, err := model.NewSkipInference(out, model.DefaultSkipConfig())
	if err != nil {
		panic(err)
	}
	form := []float32{0.5, 0.5} // the mean of the word's n-gram vectors
	v := make([]float32, 2)
	sk.Infer(v, form, 4, "riverbank", [][]string{{"the", "riverbank", "of", "the", "river"}, {"a", "river", "riverbank"}}, 1)
	fmt.Println(v[0] > v[1])
	// Output: true
}
