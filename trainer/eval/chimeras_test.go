package eval

import (
	"math"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
)

func testEmbeddings(t *testing.T, words []string, vecs [][]float32, counts []int64) *model.Embeddings {
	t.Helper()
	var flat []float32
	for _, v := range vecs {
		flat = append(flat, v...)
	}
	e, err := model.NewEmbeddings(len(vecs[0]), words, flat, counts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestTokenizeChimera(t *testing.T) {
	in := ChimeraInstance{Sentences: []string{"a ___ plays music", "the ___s sound"}}
	got := TokenizeChimera(model.DefaultTokenizer(), in)
	if len(got) != 2 || len(got[0]) != 4 || got[0][1] != NonceToken || got[1][1] != NonceToken || got[1][2] != "s" {
		t.Fatalf("tokens = %q", got)
	}
}

func TestChimerasAdditive(t *testing.T) {
	e := testEmbeddings(t,
		[]string{"the", "music", "food", "guitar", "bread"},
		[][]float32{{1, 1, 0}, {1, 0, 0}, {0, 1, 0}, {0.9, 0.1, 0}, {0.1, 0.9, 0}},
		[]int64{100, 10, 10, 5, 5})
	insts := []ChimeraInstance{
		// The nonce is musical: guitar must be rated higher than bread.
		{Sentences: []string{"the ___ music", "music the ___"}, Probes: []string{"guitar", "bread", "zzz"}, Ratings: []float64{5, 1, 3}},
		// No known context word: no vector, ρ undefined, counted as 0.
		{Sentences: []string{"___ qqq"}, Probes: []string{"guitar", "bread"}, Ratings: []float64{1, 2}},
	}
	tok := model.DefaultTokenizer()
	stop := MostFrequent(e, 1)
	if !stop["the"] || len(stop) != 1 {
		t.Fatalf("MostFrequent = %v", stop)
	}
	res := Chimeras(tok, insts, Additive(e, stop), EmbeddingLookup(e))
	// Instance 1: nonce = music = (1,0,0): cos guitar 0.994, bread 0.110, zzz 0 (missing)
	// → ranks of cos 3,2,1 vs ratings 3,1,2 → ρ = 0.5; instance 2 → NaN → 0.
	if res.Instances != 2 || res.Undefined != 1 || res.MissingProbes != 1 || math.Abs(res.Spearman-0.25) > 1e-12 {
		t.Fatalf("result = %+v, want ρ 0.25 with 1 undefined and 1 missing probe", res)
	}
	// With "the" kept, the nonce vector is the mean of the, music, music, the = (1, .5, 0):
	// cos guitar .86 > bread .51, same ranks, same ρ; the vector itself must differ.
	withSW := Additive(e, nil)(TokenizeChimera(tok, insts[0]))
	if withSW[1] != 0.5 || withSW[0] != 1 {
		t.Fatalf("additive with stop words = %v, want (1, 0.5, 0)", withSW)
	}
}

func TestModelNonceContextOnly(t *testing.T) {
	e := testEmbeddings(t, []string{"music", "food"}, [][]float32{{1, 0}, {0, 1}}, nil)
	cfg := model.Config{Dim: 2, Mode: model.ModeFCMContext, Ngram: model.DefaultNgramConfig(), Tokenizer: model.DefaultTokenizer()}
	m, err := model.New(cfg, model.BuildNgramVocab([]string{"music", "food"}, cfg.Ngram), e, 1)
	if err != nil {
		t.Fatal(err)
	}
	copy(m.A, []float32{1, 0, 0, 1}) // identity: FCM-ctx is then the mean of the context words
	v := ModelNonce(m)([][]string{{"music", NonceToken}, {"music", "food"}, {"unknown"}})
	if math.Abs(float64(v[0])-2.0/3) > 1e-6 || math.Abs(float64(v[1])-1.0/3) > 1e-6 {
		t.Fatalf("FCM-ctx nonce = %v, want (2/3, 1/3)", v)
	}
	if ModelNonce(m)([][]string{{"unknown", NonceToken}}) != nil {
		t.Fatal("no known context word: want no vector")
	}
}
