package amtrain

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/simd"
)

// pretrained returns a fastText-style n-gram table over the synthetic words:
// every n-gram's vector is the mean base vector of the words containing it.
func pretrained(s *synth) *PretrainedNgrams {
	cfg := model.NgramConfig{MinN: 3, MaxN: 6, MinCount: 1, Style: model.NgramFastText}
	sum := map[string][]float32{}
	n := map[string]int{}
	var order []string
	for i, w := range s.words {
		for _, g := range cfg.AppendNgrams(nil, w) {
			if sum[g] == nil {
				sum[g] = make([]float32, synthDim)
				order = append(order, g)
			}
			simd.Add(sum[g], s.base.Row(int32(i)))
			n[g]++
		}
	}
	var vecs []float32
	for _, g := range order {
		simd.Scale(1/float32(n[g]), sum[g])
		vecs = append(vecs, sum[g]...)
	}
	e, err := model.NewEmbeddings(synthDim, order, vecs, nil)
	if err != nil {
		panic(err)
	}
	return &PretrainedNgrams{Vectors: e}
}

// TestPretrainedNgrams trains AM with its n-gram table started from a
// pretrained one: frozen (scale 0) the table comes out unchanged and the
// form-only vector of an unseen word is the mean of its known n-grams'
// vectors (fastText's OOV vector); fine-tuned, the table moves.
func TestPretrainedNgrams(t *testing.T) {
	s := newSynth(t, 3000)
	d := s.data(t)
	p := pretrained(s)
	o := smallOptions()
	o.Pretrained, o.NgramLRScale = p, 0
	res, err := Train(context.Background(), d, o)
	if err != nil {
		t.Fatal(err)
	}
	m := res.Model
	if m.Ngram.Style != model.NgramFastText || m.Ngram.MinN != 3 || m.Ngram.MaxN != 6 {
		t.Fatalf("n-gram config %+v", m.Ngram)
	}
	if !reflect.DeepEqual(m.Ngrams[synthDim:], p.Vectors.Vectors) {
		t.Fatal("a frozen table changed in training")
	}
	word := "kaloqqq" // unseen, shares n-grams with the synthetic words
	want := make([]float32, synthDim)
	k := 0
	for _, g := range m.Ngram.AppendNgrams(nil, word) {
		if id, ok := p.Vectors.ID(g); ok {
			simd.Add(want, p.Vectors.Row(id))
			k++
		}
	}
	if k == 0 {
		t.Fatalf("%s has no known n-gram", word)
	}
	simd.Scale(1/float32(k), want)
	got := make([]float32, synthDim)
	if ex := m.Infer(m.NewWorkspace(), word, nil, got); !ex.FormOnly {
		t.Fatal("no contexts but not form-only")
	}
	for i := range got {
		if d := got[i] - want[i]; d > 1e-5 || d < -1e-5 {
			t.Fatalf("form vector %v, want the mean of the known n-grams %v", got, want)
		}
	}

	o.NgramLRScale = 1
	res, err = Train(context.Background(), d, o)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(res.Model.Ngrams[synthDim:], p.Vectors.Vectors) {
		t.Fatal("a fine-tuned table did not change")
	}

	// Bad tables.
	wrong, _ := model.NewEmbeddings(4, []string{"<ab"}, make([]float32, 4), nil)
	o.Pretrained = &PretrainedNgrams{Vectors: wrong}
	if _, err := Train(context.Background(), d, o); !errors.Is(err, ErrNgramTable) {
		t.Errorf("table of another dimension: %v", err)
	}
	o.Pretrained, o.NgramLRScale = p, -1
	if _, err := Train(context.Background(), d, o); err == nil {
		t.Error("negative n-gram lr scale accepted")
	}
}

// TestFitLinearMap recovers a known map from word vectors related by it, and
// a pretrained table with Space set comes out mapped.
func TestFitLinearMap(t *testing.T) {
	const d, n = 6, 50
	rng := rand.New(rand.NewSource(3))
	w := make([]float32, d*d)
	for i := range w {
		w[i] = float32(rng.NormFloat64())
	}
	words := make([]string, n)
	x, y := make([]float32, n*d), make([]float32, n*d)
	for i := range words {
		words[i] = fmt.Sprintf("w%d", i)
		for k := 0; k < d; k++ {
			x[i*d+k] = float32(rng.NormFloat64())
		}
		simd.MatTVec(y[i*d:(i+1)*d], w, d, d, x[i*d:(i+1)*d])
	}
	from, _ := model.NewEmbeddings(d, words, x, nil)
	to, _ := model.NewEmbeddings(d, words, y, nil)
	got, err := FitLinearMap(from, to)
	if err != nil {
		t.Fatal(err)
	}
	for i := range w {
		if math.Abs(float64(got[i]-w[i])) > 1e-3 {
			t.Fatalf("W[%d] = %v, want %v", i, got[i], w[i])
		}
	}
	few, _ := model.NewEmbeddings(d, words[:5], x[:5*d], nil)
	if _, err := FitLinearMap(few, to); !errors.Is(err, ErrNgramTable) {
		t.Errorf("5 shared words: %v", err)
	}
	// newPretrainedModel maps the table rows: row g becomes g W.
	ng, _ := model.NewEmbeddings(d, []string{"<w1", "w1>"}, x[:2*d], nil)
	p := &PretrainedNgrams{Vectors: ng, Space: from}
	m, err := newPretrainedModel(p, model.Config{Mode: model.ModeAM, Tokenizer: model.DefaultTokenizer()}, to, 1)
	if err != nil {
		t.Fatal(err)
	}
	for r := 0; r < 2; r++ {
		for k := 0; k < d; k++ {
			if diff := m.Ngrams[(r+1)*d+k] - y[r*d+k]; math.Abs(float64(diff)) > 1e-3 {
				t.Fatalf("mapped row %d differs at %d by %v", r, k, diff)
			}
		}
	}
}

// A run whose n-gram table starts from a pretrained one resumes from its
// checkpoint: the checkpoint's model has the table's n-grams, not
// Options.Ngram's.
func TestPretrainedNgramsResume(t *testing.T) {
	s := newSynth(t, 400)
	d := s.data(t)
	o := smallOptions()
	o.Pretrained, o.Epochs = pretrained(s), 1
	o.CheckpointPath = filepath.Join(t.TempDir(), "ck")
	train(t, d, o)
	o.Epochs, o.Resume, o.CheckpointPath = 2, o.CheckpointPath, ""
	if r := train(t, d, o); len(r.Epochs) != 2 {
		t.Errorf("resumed: %d epochs, want 2", len(r.Epochs))
	}
}
