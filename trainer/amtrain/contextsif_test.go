package amtrain

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
)

// TestContextSIFTrains: --context-sif gives the trained model context words
// weighted by the training counts (Data.Counts, the base embeddings having
// none), and changes what training learns; a negative weight and a model
// without contexts are refused.
func TestContextSIFTrains(t *testing.T) {
	s := newSynth(t, 600)
	d := s.data(t)
	if d.Base.Counts != nil {
		t.Fatal("the synthetic base has counts: the test needs Data.Counts to be the only ones")
	}
	o := smallOptions()
	o.ContextSIF = 1e-2
	m := train(t, d, o).Model
	if m.ContextSIF != float32(o.ContextSIF) || !reflect.DeepEqual(m.Base.Counts, d.Counts) {
		t.Fatalf("trained model: context SIF %v, base counts %v; want %v and the training counts", m.ContextSIF, m.Base.Counts != nil, o.ContextSIF)
	}
	var total float64
	for _, c := range d.Counts {
		total += float64(c)
	}
	ids := []int32{0, 1, 2, int32(d.Base.Len() - 1)}
	want := make([]float64, m.Dim)
	var wsum float64
	for _, id := range ids {
		w := o.ContextSIF / (o.ContextSIF + float64(d.Counts[id])/total)
		wsum += w
		for k, x := range d.Base.Row(id) {
			want[k] += w * float64(x)
		}
	}
	got := make([]float32, m.Dim)
	m.ContextMean(got, ids)
	for k := range got {
		if math.Abs(float64(got[k])-want[k]/wsum) > 1e-5 {
			t.Fatalf("context mean %v, want the SIF-weighted mean %v", got, want)
		}
	}
	o.ContextSIF = 0
	plain := train(t, s.data(t), o).Model
	if reflect.DeepEqual(plain.A, m.A) {
		t.Error("training with and without context weights learned the same A")
	}
	for _, bad := range []struct {
		a    float64
		mode model.Mode
		want string
	}{{-1e-3, model.ModeAM, "≥ 0"}, {math.Inf(1), model.ModeAM, "≥ 0"}, {1e-3, model.ModeForm, "no contexts"}} {
		o := smallOptions()
		o.ContextSIF, o.Mode = bad.a, bad.mode
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("context SIF %v, mode %v: %v, want an error saying %q", bad.a, bad.mode, err, bad.want)
		}
	}
}
