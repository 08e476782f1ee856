package skipgram

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/trainer/corpus"
)

// unevenUnits returns an encoded corpus of n units of lengths 0..9 cycling.
func unevenUnits(n int) *corpus.Encoded {
	enc := &corpus.Encoded{Offsets: []int64{0}}
	for u := range n {
		for range u % 10 {
			enc.IDs = append(enc.IDs, 0)
		}
		enc.Offsets = append(enc.Offsets, int64(len(enc.IDs)))
	}
	return enc
}

func TestUnitOrderPermutation(t *testing.T) {
	enc := unevenUnits(1001)
	if o, err := unitOrder(enc, false, 1); o != nil || err != nil {
		t.Fatalf("without shuffle: %v, %v; want nil (file order)", o, err)
	}
	a, err := unitOrder(enc, true, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := unitOrder(enc, true, 1)
	c, _ := unitOrder(enc, true, 2)
	if !slices.Equal(a, b) {
		t.Error("two permutations with the same seed differ")
	}
	if slices.Equal(a, c) {
		t.Error("permutations with seeds 1 and 2 are identical")
	}
	for _, o := range [][]int32{a, c} {
		seen := make([]bool, enc.NumUnits())
		for _, u := range o {
			if u < 0 || int(u) >= len(seen) || seen[u] {
				t.Fatalf("unit %d out of range or visited twice", u)
			}
			seen[u] = true
		}
		if len(o) != len(seen) {
			t.Fatalf("%d positions for %d units", len(o), len(seen))
		}
		// Shuffled: few units keep their place (about 1 expected).
		fixed := 0
		for p, u := range o {
			if int(u) == p {
				fixed++
			}
		}
		if fixed > 10 {
			t.Errorf("%d of %d units keep their place", fixed, len(o))
		}
	}
}

func TestSplitUnitsBalancedInOrder(t *testing.T) {
	enc := unevenUnits(1001)
	order, _ := unitOrder(enc, true, 3)
	for _, o := range [][]int32{nil, order} {
		for _, k := range []int{1, 2, 3, 7} {
			bounds := splitUnits(enc, o, k)
			if bounds[0] != 0 || bounds[k] != enc.NumUnits() {
				t.Fatalf("k=%d: bounds %v do not span the units", k, bounds)
			}
			for i := 0; i < k; i++ {
				var tokens int64
				for p := bounds[i]; p < bounds[i+1]; p++ {
					u := unitAt(o, p)
					tokens += enc.Offsets[u+1] - enc.Offsets[u]
				}
				// Each share is within one unit (at most 9 tokens) of an equal split.
				if want := enc.NumTokens() / int64(k); tokens < want-9 || tokens > want+9 {
					t.Errorf("shuffled %v, k=%d: share %d has %d tokens, want %d±9", o != nil, k, i, tokens, want)
				}
			}
		}
	}
}

func TestShuffleDeterministicWithOneThread(t *testing.T) {
	_, v, enc := readCorpus(t, topicCorpus(t, 300), 1)
	cfg := smallConfig(1)
	plain, err := Train(context.Background(), enc, v, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Shuffle = true
	a, err := Train(context.Background(), enc, v, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Train(context.Background(), enc, v, cfg)
	if !reflect.DeepEqual(a.Vectors, b.Vectors) {
		t.Error("two shuffled runs with one thread and the same seed differ")
	}
	if reflect.DeepEqual(a.Vectors, plain.Vectors) {
		t.Error("the shuffled run equals the run in file order")
	}
}

func TestShuffledTrainingLearns(t *testing.T) {
	_, v, enc := readCorpus(t, topicCorpus(t, 2000), 2)
	cfg := smallConfig(1)
	cfg.Shuffle = true
	e, err := Train(context.Background(), enc, v, cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkTopics(t, e)
}

func TestShuffleSubwordsDeterministicWithOneThread(t *testing.T) {
	_, vocab, enc := readCorpus(t, morphCorpus(t, 300), 5)
	cfg := smallConfig(1)
	cfg.MinN, cfg.MaxN, cfg.Bucket = 3, 6, 5000
	plain, err := TrainSubwords(context.Background(), enc, vocab, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Shuffle = true
	a, err := TrainSubwords(context.Background(), enc, vocab, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := TrainSubwords(context.Background(), enc, vocab, cfg)
	if !reflect.DeepEqual(a.Words.Vectors, b.Words.Vectors) || !reflect.DeepEqual(a.Ngrams.Vectors, b.Ngrams.Vectors) {
		t.Error("two shuffled subword runs with one thread and the same seed differ")
	}
	if reflect.DeepEqual(a.Words.Vectors, plain.Words.Vectors) {
		t.Error("the shuffled subword run equals the run in file order")
	}
}

// A worker sweeps the whole corpus from its start, not a share of it: the
// second of two workers, run alone, starts halfway through a corpus whose
// first half holds only the words a0…a7 and its second half only b0…b7,
// wraps around, trains the a-words as well, and stops when all epochs' tokens
// are done. Run alone from the first unit, a worker trains exactly what one
// thread does.
func TestWorkerSweepsWholeCorpus(t *testing.T) {
	var lines []string
	for i := range 400 {
		topic := "a"
		if i >= 200 {
			topic = "b"
		}
		lines = append(lines, fmt.Sprintf("%s%d %s%d %s%d %s%d", topic, i%8, topic, (i+1)%8, topic, (i+3)%8, topic, (i+5)%8))
	}
	path := filepath.Join(t.TempDir(), "halves.txt")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, v, enc := readCorpus(t, path, 1)
	cfg := smallConfig(2)
	tr, err := newTrainer(enc, v, cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr.syn0 = make([]float32, v.Len()*cfg.Dim)
	for i := range tr.syn0 {
		tr.syn0[i] = 0.01
	}
	bounds := splitUnits(enc, nil, 2)
	if bounds[1] != 200 {
		t.Fatalf("second worker starts at unit %d, want 200", bounds[1])
	}
	newWorker(tr, 2).train(bounds[1])
	if got := tr.processed.Load(); got != tr.total {
		t.Errorf("the worker processed %d tokens, want all epochs' %d", got, tr.total)
	}
	for _, word := range []string{"a0", "a7", "b0", "b7"} {
		id, _ := v.ID(word)
		if row := tr.syn1neg[int(id)*cfg.Dim : int(id+1)*cfg.Dim]; !slices.ContainsFunc(row, func(x float32) bool { return x != 0 }) {
			t.Errorf("%s was never a target: its output vector is zero", word)
		}
	}

	// From the first unit, alone, a worker of a two-thread run trains what one thread does.
	cfg1 := smallConfig(1)
	one, err := Train(context.Background(), enc, v, cfg1)
	if err != nil {
		t.Fatal(err)
	}
	tr2, err := newTrainer(enc, v, cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr2.syn0 = make([]float32, v.Len()*cfg.Dim)
	initWords(tr2.syn0, cfg)
	newWorker(tr2, 1).train(bounds[0])
	if !reflect.DeepEqual(tr2.syn0, one.Vectors) {
		t.Error("a worker run alone from the first unit differs from one thread")
	}
}
