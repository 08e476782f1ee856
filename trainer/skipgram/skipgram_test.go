package skipgram

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/corpus"
)

// topicCorpus writes a corpus of lines of 12 words, each line drawn from one of
// two disjoint topics of 8 words, plus "rare" (2 occurrences) and "once".
func topicCorpus(t testing.TB, lines int) string {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 7))
	var b strings.Builder
	for i := range lines {
		topic := "a"
		if i%2 == 1 {
			topic = "b"
		}
		for j := range 12 {
			if j > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%s%d", topic, r.IntN(8))
		}
		b.WriteByte('\n')
	}
	b.WriteString("Rare rare once\n")
	path := filepath.Join(t.TempDir(), "topics.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readCorpus(t testing.TB, path string, minCount int64) (*corpus.Corpus, *corpus.Vocab, *corpus.Encoded) {
	t.Helper()
	c, err := corpus.Read(context.Background(), []string{path}, corpus.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	v := c.Vocab(minCount)
	return c, v, c.Encode(v, false)
}

func cosine(a, b []float32) float64 { return model.Cosine(a, b) }

func smallConfig(threads int) Config {
	cfg := DefaultConfig()
	cfg.Dim, cfg.Window, cfg.Epochs, cfg.Sample, cfg.Threads = 16, 3, 3, 0, threads
	return cfg
}

// checkTopics asserts that every topic word's nearest neighbour is in its own
// topic and that same-topic similarity clearly exceeds cross-topic similarity.
func checkTopics(t *testing.T, e *model.Embeddings) {
	t.Helper()
	var same, cross float64
	var nSame, nCross int
	for i, wi := range e.Words {
		if wi == "rare" {
			continue
		}
		best, bestCos := "", -2.0
		for j, wj := range e.Words {
			if i == j || wj == "rare" {
				continue
			}
			c := cosine(e.Row(int32(i)), e.Row(int32(j)))
			if c > bestCos {
				best, bestCos = wj, c
			}
			if wi[0] == wj[0] {
				same, nSame = same+c, nSame+1
			} else {
				cross, nCross = cross+c, nCross+1
			}
		}
		if best[0] != wi[0] {
			t.Errorf("nearest neighbour of %s is %s (cosine %.3f), from the other topic", wi, best, bestCos)
		}
	}
	same, cross = same/float64(nSame), cross/float64(nCross)
	if same < cross+0.3 {
		t.Errorf("mean cosine within topics %.3f, across topics %.3f: want a clear gap", same, cross)
	}
	t.Logf("mean cosine within topics %.3f, across %.3f", same, cross)
}

func TestTrainSeparatesTopics(t *testing.T) {
	_, v, enc := readCorpus(t, topicCorpus(t, 2000), 2)
	e, err := Train(context.Background(), enc, v, smallConfig(1))
	if err != nil {
		t.Fatal(err)
	}
	if e.Len() != 17 || e.Dim != 16 {
		t.Fatalf("%d words of dimension %d, want 17 of 16", e.Len(), e.Dim)
	}
	if _, ok := e.ID("once"); ok {
		t.Error("a word below min-count got a vector")
	}
	if id, ok := e.ID("rare"); !ok || e.Count(id) != 2 {
		t.Errorf("rare: in vocabulary %v with count %d, want count 2", ok, e.Count(id))
	}
	checkTopics(t, e)
}

func TestTrainParallel(t *testing.T) {
	if raceEnabled {
		t.Skip("Hogwild SGD races on purpose; skipped under the race detector")
	}
	_, v, enc := readCorpus(t, topicCorpus(t, 2000), 2)
	e, err := Train(context.Background(), enc, v, smallConfig(3))
	if err != nil {
		t.Fatal(err)
	}
	checkTopics(t, e)
}

func TestDeterministicWithOneThread(t *testing.T) {
	_, v, enc := readCorpus(t, topicCorpus(t, 300), 1)
	cfg := smallConfig(1)
	a, err := Train(context.Background(), enc, v, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Train(context.Background(), enc, v, cfg)
	if !reflect.DeepEqual(a.Vectors, b.Vectors) {
		t.Error("two runs with one thread and the same seed differ")
	}
	cfg.Seed = 2
	c, _ := Train(context.Background(), enc, v, cfg)
	if reflect.DeepEqual(a.Vectors, c.Vectors) {
		t.Error("runs with different seeds are identical")
	}
}

func TestTrainCancelled(t *testing.T) {
	_, v, enc := readCorpus(t, topicCorpus(t, 300), 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Train(ctx, enc, v, smallConfig(2)); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled training returned %v", err)
	}
}

func TestTrainRejects(t *testing.T) {
	_, v, enc := readCorpus(t, topicCorpus(t, 10), 1)
	bad := &corpus.Encoded{IDs: []int32{0, int32(v.Len())}, Offsets: []int64{0, 2}}
	if _, err := Train(context.Background(), bad, v, smallConfig(1)); err == nil || !strings.Contains(err.Error(), "outside the vocabulary") {
		t.Errorf("id out of range: %v", err)
	}
	cfg := smallConfig(1)
	cfg.Dim = 0
	if _, err := Train(context.Background(), enc, v, cfg); err == nil || !strings.Contains(err.Error(), "Dim: 0 out of range") {
		t.Errorf("dim 0: %v", err)
	}
}

func TestAliasTableDistribution(t *testing.T) {
	counts := []int64{1000, 100, 10, 1, 0, 5000}
	a, err := newAliasTable(counts, 0.75)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, c := range counts {
		sum += math.Pow(float64(c), 0.75)
	}
	r := newRNG(1, 1)
	const n = 2_000_000
	hits := make([]int, len(counts))
	for range n {
		hits[a.sample(&r)]++
	}
	for i, c := range counts {
		p := math.Pow(float64(c), 0.75) / sum
		got := float64(hits[i]) / n
		if sd := math.Sqrt(p * (1 - p) / n); math.Abs(got-p) > 5*sd+1e-9 {
			t.Errorf("word %d (count %d): frequency %.5f, want %.5f", i, c, got, p)
		}
	}
	if _, err := newAliasTable([]int64{0, 0}, 0.75); err == nil {
		t.Error("all-zero counts accepted")
	}
}

func TestSubsamplingAndSigmoid(t *testing.T) {
	// word2vec: keep probability (sqrt(c/(s·T))+1)·s·T/c.
	keep := keepThresholds([]int64{10000, 10}, 100000, 1e-3)
	want := (math.Sqrt(10000/100.0) + 1) * 100 / 10000
	if got := float64(keep[0]) / (1 << 32); math.Abs(got-want) > 1e-6 {
		t.Errorf("keep probability %.6f, want %.6f", got, want)
	}
	if keep[1] != 1<<32 {
		t.Errorf("a rare word is not always kept: threshold %d", keep[1])
	}
	if keep := keepThresholds([]int64{10000}, 10000, 0); keep[0] != 1<<32 {
		t.Error("sample 0 discards words")
	}
	for x := float32(-10); x <= 10; x += 0.01 {
		if got, want := sigmoid(x), 1/(1+math.Exp(-float64(x))); math.Abs(float64(got)-want) > 0.005 {
			t.Fatalf("sigmoid(%.2f) = %.4f, want %.4f", x, got, want)
		}
	}
}

// softplus is the logistic loss: log(1 + e^x) to within half a table step
// (slope at most 1), and x beyond the table.
func TestSoftplus(t *testing.T) {
	for x := float32(-12); x <= 12; x += 0.01 {
		want := math.Log1p(math.Exp(float64(x)))
		if got := softplus(x); math.Abs(float64(got)-want) > 0.5/sigmoidScale+1e-3 {
			t.Fatalf("softplus(%.2f) = %.4f, want %.4f", x, got, want)
		}
	}
}

// A vocabulary whose word matrix would pass MaxMatrixValues (here 2^17+1
// words at dimension 2^14: 8 GiB and more) is refused before anything is
// allocated, by both trainers.
func TestTrainRefusesHugeMatrix(t *testing.T) {
	n := int(MaxMatrixValues/model.MaxDim) + 1
	v := &corpus.Vocab{Words: make([]string, n), Counts: make([]int64, n)}
	for i := range v.Words {
		v.Words[i], v.Counts[i] = fmt.Sprintf("w%d", i), 1
	}
	enc := &corpus.Encoded{IDs: []int32{0, 1}, Offsets: []int64{0, 2}}
	cfg := DefaultConfig()
	cfg.Dim = model.MaxDim
	if _, err := Train(context.Background(), enc, v, cfg); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("Train: err = %v, want the matrix refused", err)
	}
	cfg.MaxN, cfg.Bucket = 3, 0
	if _, err := TrainSubwords(context.Background(), enc, v, cfg); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("TrainSubwords: err = %v, want the matrix refused", err)
	}
	// The input matrix of subword training holds the words and the n-gram
	// rows: --bucket × --dim at the limit passes Config.Validate, but two
	// words more do not fit (the word matrix alone is small).
	small := &corpus.Vocab{Words: []string{"w0", "w1"}, Counts: []int64{1, 1}}
	cfg.Bucket = int(MaxMatrixValues / model.MaxDim)
	if err := cfg.Validate(); err != nil {
		t.Fatalf("--bucket × --dim at the limit: %v", err)
	}
	if _, err := TrainSubwords(context.Background(), enc, small, cfg); err == nil || !strings.Contains(err.Error(), "vocabulary and n-grams") {
		t.Errorf("TrainSubwords, %d buckets and 2 words: err = %v, want the input matrix refused", cfg.Bucket, err)
	}
}

// TestLossFalls checks the loss both trainers report: every update starts
// from zero output vectors at (1 + Negative)·ln 2 per update, and training on
// a corpus with structure brings the average well below that, the more so
// the longer it trains.
func TestLossFalls(t *testing.T) {
	_, v, enc := readCorpus(t, topicCorpus(t, 500), 2)
	for _, maxn := range []int{0, 4} {
		var avg [2]float64
		for i, epochs := range []int{1, 6} {
			cfg := smallConfig(1)
			cfg.Epochs, cfg.MaxN, cfg.Bucket = epochs, maxn, 0
			avg[i] = finalProgress(t, enc, v, cfg).AvgLoss()
			if start := float64(1+cfg.Negative) * math.Ln2; !(avg[i] > 0 && avg[i] < 0.9*start) {
				t.Errorf("maxn %d, %d epochs: average loss %.4f, want in (0, %.4f)", maxn, epochs, avg[i], 0.9*start)
			}
		}
		if avg[1] >= avg[0] {
			t.Errorf("maxn %d: average loss %.4f after 6 epochs, %.4f after 1", maxn, avg[1], avg[0])
		}
		t.Logf("maxn %d: average loss %.4f after 1 epoch, %.4f after 6", maxn, avg[0], avg[1])
	}
	if (Progress{}).AvgLoss() != 0 {
		t.Error("AvgLoss before any update is not 0")
	}
}

// finalProgress trains with cfg, subwords when cfg.MaxN > 0 and words only
// otherwise, and returns the last progress reported.
func finalProgress(t *testing.T, enc *corpus.Encoded, v *corpus.Vocab, cfg Config) Progress {
	t.Helper()
	var last Progress
	cfg.Progress = func(p Progress) { last = p }
	var err error
	if cfg.MaxN > 0 {
		_, err = TrainSubwords(context.Background(), enc, v, cfg)
	} else {
		_, err = Train(context.Background(), enc, v, cfg)
	}
	if err != nil {
		t.Fatal(err)
	}
	return last
}

// TestWordUpdateMatchesNaive replays one unit of words-only training
// naively in float64 (word2vec.c's update: the context word's input vector
// predicts the word and the negatives) and checks the vectors and the loss
// the worker sums.
func TestWordUpdateMatchesNaive(t *testing.T) {
	vocab := vocabOf(t, map[string]int{"alpha": 40, "beta": 30, "gamma": 20, "delta": 10})
	enc := &corpus.Encoded{IDs: []int32{0, 1, 2, 3, 0, 2}, Offsets: []int64{0, 6}}
	cfg := DefaultConfig()
	cfg.Dim, cfg.Window, cfg.Negative = 8, 2, 3
	tr, err := newTrainer(enc, vocab, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.initInputs(vocab); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(4, 5))
	for _, m := range [][]float32{tr.syn0, tr.syn1neg} {
		for i := range m {
			m[i] = float32(r.NormFloat64()) // scores of a few units: the loss terms differ by sign
		}
	}
	nv, w, rng := newNaive(tr)
	sen := enc.IDs
	w.trainUnit(sen)

	dim := cfg.Dim
	for pos, word := range sen {
		win := rng.window(cfg.Window)
		for c := max(pos-win, 0); c < min(pos+win+1, len(sen)); c++ {
			if c == pos {
				continue
			}
			in := nv.syn0[int(sen[c])*dim : int(sen[c]+1)*dim]
			grad := make([]float64, dim)
			nv.step(in, grad, word, 1)
			for range cfg.Negative {
				if neg := tr.neg.sample(&rng); neg != word {
					nv.step(in, grad, neg, 0)
				}
			}
			for k := range in {
				in[k] += grad[k]
			}
		}
	}
	nv.check(t, tr, w)
}

// With a vanishing learning rate the output vectors stay zero, so every term
// of every update scores 0 and costs ln 2: the average loss per pair is
// (1 + Negative)·ln 2 (to within the table's half step), less the negatives
// the words-only trainer skips because they hit the word (at most a tenth
// here).
func TestAvgLossAtTheStart(t *testing.T) {
	_, v, enc := readCorpus(t, topicCorpus(t, 200), 2)
	for _, maxn := range []int{0, 4} {
		cfg := smallConfig(1)
		cfg.Epochs, cfg.LR, cfg.MaxN, cfg.Bucket = 1, 1e-9, maxn, 0
		p := finalProgress(t, enc, v, cfg)
		want := float64(1+cfg.Negative) * math.Ln2
		tableErr := float64(1+cfg.Negative) * 0.5 / sigmoidScale // half a table step a term
		if got := p.AvgLoss(); got < 0.9*want || got > want+tableErr {
			t.Errorf("maxn %d: average loss %.4f over %d pairs, want about %.4f", maxn, got, p.Pairs, want)
		}
	}
}
