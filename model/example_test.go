package model_test

import (
	"fmt"

	"github.com/text2vec-am/text2vec-am/model"
)

// Inferring a vector for an unseen word from two contexts.
func ExampleModel_Infer() {
	// Base embeddings (normally LoadEmbeddings): 4 words of dimension 3.
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
