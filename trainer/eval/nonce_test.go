package eval

import (
	"math"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
)

func TestNonceRanking(t *testing.T) {
	e := testEmbeddings(t,
		[]string{"the", "music", "food", "guitar", "bread", "kernel"},
		[][]float32{{1, 1, 0}, {1, 0, 0}, {0, 1, 0}, {0.9, 0.1, 0}, {0.1, 0.9, 0}, {0, 0, 1}},
		[]int64{1000, 50, 50, 10, 10, 40})
	defs := []dataset.NonceDefinition{
		{Word: "guitar", Sentence: "___ an instrument for music"}, // additive: music → nearest music (rank 2 for guitar)
		{Word: "bread", Sentence: "___ is the food"},              // the + food: nearest "the" without stop words
		{Word: "zorbix", Sentence: "___ music"},                   // no gold vector: RR 0
		{Word: "kernel", Sentence: "___ unknownword"},             // no vector: RR 0
	}
	ix := NewVocabIndex(e)
	tok := model.DefaultTokenizer()
	res := Nonces(tok, defs, Additive(e, nil), ix)
	// guitar: v = music = (1,0,0); cosines music 1, guitar .994, the .707 → rank 2.
	// bread: v = mean(the, food) = (.5, 1, 0); cos: food .894, bread .938, the .949 → rank 2.
	if res.Ranks[0] != 2 || res.Ranks[1] != 2 || res.MissingGold != 1 || res.NoVector != 1 || res.Ranks[2] != 6 || res.Ranks[3] != 6 {
		t.Fatalf("ranks %v, missing gold %d, no vector %d", res.Ranks, res.MissingGold, res.NoVector)
	}
	if math.Abs(res.MRR-(0.5+0.5)/4) > 1e-12 || math.Abs(res.MRRGold-1.0/3) > 1e-12 || res.MedianRank != 4 {
		t.Fatalf("MRR %v, median %v; want 0.25 and 4", res.MRR, res.MedianRank)
	}
	// Without "the" bread's vector is food's (cos food 1, bread .994: rank 2 again).
	sw := Nonces(tok, defs[1:2], Additive(e, MostFrequent(e, 1)), ix)
	if sw.Ranks[0] != 2 {
		t.Fatalf("bread minus stop words: rank %d", sw.Ranks[0])
	}
	v := Additive(e, MostFrequent(e, 1))(TokenizeChimera(tok, dataset.ChimeraInstance{Sentences: []string{defs[1].Sentence}}))
	if v[0] != 0 || v[1] != 1 {
		t.Fatalf("additive − sw of %q = %v, want food's vector", defs[1].Sentence, v)
	}
}

func TestEvalNonceCommand(t *testing.T) {
	emb, counts := tinyEmbeddings(t)
	data := writeFile(t, "n.txt", "guitar\t___ an instrument for music\nbread\t___ is the food\n\nkernel\t___ of linux\n")
	out, _, err := run(t, "nonce", "--embeddings", emb, "--counts", counts, "--stopwords", "1", data)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| additive − sw ", "3 definitions; 0 words have no base vector", "FCM 0.175"} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
	if _, _, err := run(t, "nonce", "--embeddings", emb, writeFile(t, "bad.txt", "no tab here\n")); err == nil || !strings.Contains(err.Error(), "bad.txt:1") {
		t.Fatalf("malformed line: %v", err)
	}
}
