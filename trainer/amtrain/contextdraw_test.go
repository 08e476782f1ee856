package amtrain

import (
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
)

// TestContextDraw: uniform draws give every k about 1/max; log-uniform
// draws give k = 1 about ln 2 / ln(max+1), and both stay in 1…max.
func TestContextDraw(t *testing.T) {
	const max, n = 64, 200_000
	for _, c := range []struct {
		draw ContextDraw
		p1   float64
	}{{DrawUniform, 1.0 / max}, {DrawLogUniform, math.Ln2 / math.Log(max+1)}} {
		r := newRNG(7)
		ones, big := 0, 0
		for i := 0; i < n; i++ {
			k := c.draw.draw(&r, max)
			if k < 1 || k > max {
				t.Fatalf("%v: k = %d outside 1…%d", c.draw, k, max)
			}
			if k == 1 {
				ones++
			}
			if k >= 32 {
				big++
			}
		}
		if got := float64(ones) / n; math.Abs(got-c.p1) > 0.1*c.p1 {
			t.Errorf("%v: P(k = 1) = %.4f, want %.4f", c.draw, got, c.p1)
		}
		if big == 0 {
			t.Errorf("%v: never drew k ≥ 32", c.draw)
		}
	}
	for _, s := range []string{"uniform", "log-uniform"} {
		d, err := ParseContextDraw(s)
		if err != nil || d.String() != s {
			t.Errorf("ParseContextDraw(%q) = %v, %v", s, d, err)
		}
	}
	if _, err := ParseContextDraw("log"); err == nil {
		t.Error("ParseContextDraw accepted \"log\"")
	}
}

// TestTrainCountBuckets: training with the count gate learns its biases,
// saves them (and loads them back), and resumes exactly from a checkpoint.
func TestTrainCountBuckets(t *testing.T) {
	s := newSynth(t, 800)
	d := s.data(t)
	o := smallOptions()
	o.CountBuckets, o.ContextDraw = 4, DrawLogUniform
	full := train(t, d, o)
	m := full.Model
	if m.CountBuckets != 4 || len(m.U) != 2*m.Dim+4 {
		t.Fatalf("trained model: %d count buckets, U of %d values", m.CountBuckets, len(m.U))
	}
	if slices.Equal(m.U[2*m.Dim:], make([]float32, 4)) {
		t.Error("the count biases never moved from 0")
	}
	path := filepath.Join(t.TempDir(), "m.am")
	if err := m.SaveFile(path, model.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := model.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.CountBuckets != 4 || !slices.Equal(got.U, m.U) {
		t.Error("the count biases did not survive save and load")
	}
	o1 := o
	o1.Epochs = 1
	o1.CheckpointPath = filepath.Join(t.TempDir(), "ck")
	train(t, d, o1)
	o2 := o
	o2.Resume = o1.CheckpointPath
	if resumed := train(t, d, o2); !slices.Equal(paramsOf(full.Model), paramsOf(resumed.Model)) {
		t.Error("resume with count buckets differs from the uninterrupted run")
	}
	// Another draw or bucket count is another run: its checkpoint is refused.
	o3 := o2
	o3.CountBuckets = 3
	if _, err := Train(t.Context(), d, o3); err == nil {
		t.Error("resumed a count-bucket checkpoint with other buckets")
	}
}
