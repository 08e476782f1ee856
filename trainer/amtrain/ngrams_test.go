package amtrain

import (
	"context"
	"errors"
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
