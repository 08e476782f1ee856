package eval

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
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
	in := dataset.ChimeraInstance{Sentences: []string{"a ___ plays music", "the ___s sound"}}
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
	insts := []dataset.ChimeraInstance{
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

// With two sentences AM-ctx weighs each by the paper's reliability, which
// includes the context's similarity to itself: ρ_i = Σ_j s(C_i, C_j) / Σ_jk
// s(C_j, C_k). With M = A = I, v_1 = (2, 0) and v_2 = (0, 1): s_11 = 4/√2,
// s_22 = 1/√2, s_12 = 0, so ρ = (0.8, 0.2) and the nonce is (1.6, 0.2); FCM-ctx
// weighs by known words (one each) and gives (1, 0.5).
func TestModelNonceTwoSentencesAttention(t *testing.T) {
	e := testEmbeddings(t, []string{"loud", "food"}, [][]float32{{2, 0}, {0, 1}}, nil)
	sentences := [][]string{{"loud", NonceToken}, {NonceToken, "food"}}
	for _, c := range []struct {
		mode model.Mode
		want [2]float64
	}{{model.ModeContext, [2]float64{1.6, 0.2}}, {model.ModeFCMContext, [2]float64{1, 0.5}}} {
		cfg := model.Config{Dim: 2, Mode: c.mode, Ngram: model.DefaultNgramConfig(), Tokenizer: model.DefaultTokenizer()}
		m, err := model.New(cfg, model.BuildNgramVocab([]string{"loud", "food"}, cfg.Ngram), e, 1)
		if err != nil {
			t.Fatal(err)
		}
		copy(m.A, []float32{1, 0, 0, 1})
		copy(m.M, []float32{1, 0, 0, 1})
		v := ModelNonce(m)(sentences)
		if math.Abs(float64(v[0])-c.want[0]) > 1e-5 || math.Abs(float64(v[1])-c.want[1]) > 1e-5 {
			t.Errorf("%s nonce = %v, want %v", c.mode, v, c.want)
		}
	}
}

// saveTinyModel writes a model of the given mode over the embeddings at emb
// and returns its path.
func saveTinyModel(t *testing.T, emb string, mode model.Mode) string {
	t.Helper()
	e, err := model.LoadEmbeddings(emb)
	if err != nil {
		t.Fatal(err)
	}
	cfg := model.Config{Dim: e.Dim, Mode: mode, Ngram: model.DefaultNgramConfig(), Tokenizer: model.DefaultTokenizer()}
	m, err := model.New(cfg, model.BuildNgramVocab(e.Words, cfg.Ngram), e, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), mode.String()+".am")
	if err := m.SaveFile(p, model.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	return p
}

// The AM-ctx and FCM-ctx rows accept weights trained context-only or in the
// full mode of their family, say which, and refuse the other family's.
func TestEvalChimerasWeightModes(t *testing.T) {
	emb, counts := tinyEmbeddings(t)
	data := writeFile(t, "c.txt", "1\tthe ___ plays music @@ music the ___\tguitar,bread,kernel\t5,1,2\n"+
		"2\ta ___ of bread @@ the food ___\tbread,guitar,driver\t5,1,3\n")
	w := map[model.Mode]string{}
	for _, m := range []model.Mode{model.ModeAM, model.ModeFCM, model.ModeForm, model.ModeContext, model.ModeFCMContext} {
		w[m] = saveTinyModel(t, emb, m)
	}
	for _, c := range []struct {
		am, fcm model.Mode
		lines   []string
	}{
		{model.ModeContext, model.ModeFCMContext, []string{"AM-ctx: " + w[model.ModeContext] + " (trained in mode context)",
			"FCM-ctx: " + w[model.ModeFCMContext] + " (trained in mode fcm-context)"}},
		{model.ModeAM, model.ModeFCM, []string{"AM-ctx: " + w[model.ModeAM] + " (trained in mode am)",
			"FCM-ctx: " + w[model.ModeFCM] + " (trained in mode fcm)"}},
	} {
		out, _, err := run(t, "chimeras", "--embeddings", emb, "--counts", counts, "--stopwords", "1", "--am", w[c.am], "--fcm", w[c.fcm], data)
		if err != nil {
			t.Fatalf("--am %s --fcm %s: %v", c.am, c.fcm, err)
		}
		for _, l := range append(c.lines, "| AM-ctx ", "| FCM-ctx ", "2 sent.: AM-ctx better on") {
			if !strings.Contains(out, l) {
				t.Errorf("--am %s --fcm %s: output lacks %q:\n%s", c.am, c.fcm, l, out)
			}
		}
	}
	for _, c := range []struct {
		flag string
		mode model.Mode
		want string
	}{
		{"--am", model.ModeFCM, "weights trained in mode fcm; AM-ctx needs weights trained in mode context or am"},
		{"--am", model.ModeFCMContext, "weights trained in mode fcm-context; AM-ctx needs"},
		{"--am", model.ModeForm, "weights trained in mode form; AM-ctx needs"},
		{"--fcm", model.ModeAM, "weights trained in mode am; FCM-ctx needs weights trained in mode fcm-context or fcm"},
		{"--fcm", model.ModeContext, "weights trained in mode context; FCM-ctx needs"},
	} {
		_, _, err := run(t, "chimeras", "--embeddings", emb, "--stopwords", "1", c.flag, w[c.mode], data)
		if err == nil || !strings.Contains(err.Error(), c.flag+" "+w[c.mode]+": "+c.want) {
			t.Errorf("%s with %s weights: error = %v, want %q", c.flag, c.mode, err, c.want)
		}
	}
}
