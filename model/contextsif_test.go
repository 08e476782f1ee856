package model

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// testModelSIF is testModelBuckets with base counts from 1 to 10⁶ (a few
// words very frequent) and context words weighted with SIF weight a.
func testModelSIF(t testing.TB, mode Mode, d int, seed uint64, buckets int, a float32) *Model {
	t.Helper()
	m := testModelBuckets(t, mode, d, seed, buckets)
	rng := rand.New(rand.NewPCG(seed, 9))
	counts := make([]int64, m.Base.Len())
	for i := range counts {
		counts[i] = int64(math.Pow(10, 6*rng.Float64()))
	}
	m.Base.Counts = counts
	m.ContextSIF = a
	if err := m.AttachBase(m.Base); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestInferMatchesPaperContextSIF(t *testing.T) {
	for _, mode := range allModes {
		if !mode.usesContext() {
			continue
		}
		t.Run(mode.String(), func(t *testing.T) { checkInferMatchesPaper(t, testModelSIF(t, mode, 16, 11, 0, 1e-3)) })
	}
}

func TestGradientsContextSIF(t *testing.T) {
	for _, mode := range []Mode{ModeAM, ModeContext} {
		t.Run(mode.String(), func(t *testing.T) { checkGradients(t, testModelSIF(t, mode, 6, 21, 0, 1e-3)) })
	}
}

// TestContextSIFWeighsDownFrequentWords: in a context of a very frequent word
// and a rare one, the weighted mean lies near the rare word's vector, the
// plain mean halfway; the weights a/(a + p(w)) are those of SIF.
func TestContextSIFWeighsDownFrequentWords(t *testing.T) {
	vecs := []float32{1, 0, 0, 1}
	base, err := NewEmbeddings(2, []string{"the", "kernel"}, vecs, []int64{999_000, 1_000})
	if err != nil {
		t.Fatal(err)
	}
	vocab := BuildNgramVocab([]string{"apple"}, NgramConfig{MinN: 3, MaxN: 5, MinCount: 1})
	for _, tc := range []struct {
		a    float32
		want [2]float32
	}{
		{0, [2]float32{0.5, 0.5}},
		// the: 1e-3/(1e-3 + 0.999) ≈ 0.001; kernel: 1e-3/(1e-3 + 0.001) = 0.5
		{1e-3, [2]float32{0.001 / 0.501, 0.5 / 0.501}},
	} {
		cfg := Config{Dim: 2, Mode: ModeContext, Ngram: vocab.Config(), Tokenizer: DefaultTokenizer(), ContextSIF: tc.a}
		m, err := New(cfg, vocab, base, 1)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float32, 2)
		if !m.ContextMean(got, []int32{0, 1}) {
			t.Fatal("ContextMean of two known words reported none")
		}
		for k := range got {
			if math.Abs(float64(got[k]-tc.want[k])) > 1e-3 {
				t.Errorf("a = %v: context mean %v, want %v", tc.a, got, tc.want)
			}
		}
	}
}

// TestContextSIFNeedsCounts: a model that weighs context words refuses base
// embeddings without counts, and a negative or infinite weight.
func TestContextSIFNeedsCounts(t *testing.T) {
	m := testModelSIF(t, ModeAM, 8, 3, 0, 1e-3)
	bare := randomEmbeddings(t, 20, 8, 4)
	if err := m.AttachBase(bare); !errors.Is(err, ErrNoBaseCounts) {
		t.Errorf("base without counts: %v, want ErrNoBaseCounts", err)
	}
	for _, a := range []float32{-1e-3, float32(math.Inf(1)), float32(math.NaN())} {
		cfg := m.Config
		cfg.ContextSIF = a
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "context SIF") {
			t.Errorf("a = %v: %v", a, err)
		}
	}
	cfg := Config{Dim: 4, Mode: ModeForm, Ngram: DefaultNgramConfig(), ContextSIF: 1e-3}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "no contexts") {
		t.Errorf("form-only model with a context weight: %v", err)
	}
}

// TestWeightsContextSIF: a model with context weights is written as format
// version 5 with the weight after the gate inputs byte, loads with the same
// weight and infers the same vectors; a negative weight in a file is refused.
func TestWeightsContextSIF(t *testing.T) {
	m := testModelSIF(t, ModeAM, 12, 6, 3, 2e-4)
	var buf bytes.Buffer
	if err := m.Save(&buf, SaveOptions{IncludeBase: true}); err != nil {
		t.Fatal(err)
	}
	good := append([]byte(nil), buf.Bytes()...)
	if v := binary.LittleEndian.Uint32(good[8:]); v != weightsVersionSIF {
		t.Fatalf("written as version %d, want %d", v, weightsVersionSIF)
	}
	got, err := Load(&buf, "w")
	if err != nil {
		t.Fatal(err)
	}
	if got.ContextSIF != m.ContextSIF {
		t.Fatalf("loaded context weight %v, want %v", got.ContextSIF, m.ContextSIF)
	}
	equalModels(t, got, m, true)
	rng := rand.New(rand.NewPCG(1, 1))
	a, b := make([]float32, 12), make([]float32, 12)
	for _, n := range []int{1, 2, 5} {
		ctxs := randomContexts(rng, n, 8, m.Base.Len())
		m.Infer(m.NewWorkspace(), "apple", ctxs, a)
		got.Infer(got.NewWorkspace(), "apple", ctxs, b)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%d contexts: the loaded model infers differently", n)
		}
	}
	// dim … style take 20 bytes; then count buckets, gate inputs, the weight.
	payload := append([]byte(nil), good[headerLen:len(good)-4]...)
	if w := math.Float32frombits(binary.LittleEndian.Uint32(payload[22:])); w != m.ContextSIF {
		t.Fatalf("weight in the file %v, want %v", w, m.ContextSIF)
	}
	binary.LittleEndian.PutUint32(payload[22:], math.Float32bits(-1))
	if _, err := Load(bytes.NewReader(rewrapVersion(payload, weightsVersionSIF)), "f"); err == nil || !strings.Contains(err.Error(), "context SIF") {
		t.Errorf("negative weight in the file: %v", err)
	}
	plain := testModelBuckets(t, ModeAM, 12, 6, 3)
	buf.Reset()
	if err := plain.Save(&buf, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(buf.Bytes()[8:]); v == weightsVersionSIF {
		t.Errorf("a model without context weights was written as version %d", v)
	}
}
