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
	"time"

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

func TestSweepStartsBalanced(t *testing.T) {
	enc := unevenUnits(1001)
	order, _ := unitOrder(enc, true, 3)
	for _, o := range [][]int32{nil, order} {
		for _, k := range []int{1, 2, 3, 7} {
			starts := append(sweepStarts(enc, o, k), enc.NumUnits())
			if starts[0] != 0 {
				t.Fatalf("k=%d: the first worker starts at %d", k, starts[0])
			}
			for i := 0; i < k; i++ {
				var tokens int64
				for p := starts[i]; p < starts[i+1]; p++ {
					u := unitAt(o, p)
					tokens += enc.Offsets[u+1] - enc.Offsets[u]
				}
				// Each stretch between starts is within one unit (at most 9 tokens) of an equal split.
				if want := enc.NumTokens() / int64(k); tokens < want-9 || tokens > want+9 {
					t.Errorf("shuffled %v, k=%d: stretch %d has %d tokens, want %d±9", o != nil, k, i, tokens, want)
				}
			}
		}
	}
	// Fewer units than workers: some share a start, none is out of range.
	few := unevenUnits(4) // units of 0..3 tokens, the empty one included
	for _, st := range sweepStarts(few, nil, 8) {
		if st < 0 || st > few.NumUnits() {
			t.Errorf("start %d out of 0..%d", st, few.NumUnits())
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
// wraps around, trains the a-words' input vectors as well as the b-words',
// and stops when all epochs' tokens are done.
func TestWorkerSweepsWholeCorpus(t *testing.T) {
	enc, v := halvesCorpus(t, 400)
	cfg := smallConfig(2)
	tr, err := newTrainer(enc, v, cfg)
	if err != nil {
		t.Fatal(err)
	}
	const init = 0.01
	tr.syn0 = make([]float32, v.Len()*cfg.Dim)
	for i := range tr.syn0 {
		tr.syn0[i] = init
	}
	starts := sweepStarts(enc, nil, 2)
	if starts[1] != 200 {
		t.Fatalf("second worker starts at unit %d, want 200", starts[1])
	}
	newWorker(tr, 2, starts[1]).train()
	if got := tr.processed.Load(); got != tr.total {
		t.Errorf("the worker processed %d tokens, want all epochs' %d", got, tr.total)
	}
	for _, word := range []string{"a0", "a7", "b0", "b7"} {
		id, _ := v.ID(word)
		if row := tr.syn0[int(id)*cfg.Dim : int(id+1)*cfg.Dim]; !slices.ContainsFunc(row, func(x float32) bool { return x != init }) {
			t.Errorf("%s was never trained: its input vector is as initialised", word)
		}
	}
}

// halvesCorpus encodes lines lines, the first half of words a0…a7 only, the
// second of b0…b7 only.
func halvesCorpus(t *testing.T, lines int) (*corpus.Encoded, *corpus.Vocab) {
	t.Helper()
	var b strings.Builder
	for i := range lines {
		topic := "a"
		if i >= lines/2 {
			topic = "b"
		}
		fmt.Fprintf(&b, "%s%d %s%d %s%d %s%d\n", topic, i%8, topic, (i+1)%8, topic, (i+3)%8, topic, (i+5)%8)
	}
	path := filepath.Join(t.TempDir(), "halves.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, v, enc := readCorpus(t, path, 1)
	return enc, v
}

// A worker whose sweep starts past the last line (sweepStarts gives
// NumUnits when the last line holds the tokens its start needs: here the
// second of two lines holds nearly all) starts at the first line: the run
// trains, its checkpoint records positions in the corpus and resumes.
func TestWorkerStartingPastTheLastLine(t *testing.T) {
	var b strings.Builder
	b.WriteString("a b\n")
	for i := range 400 {
		fmt.Fprintf(&b, "w%d ", i%20)
	}
	path := filepath.Join(t.TempDir(), "two.txt")
	if err := os.WriteFile(path, []byte(b.String()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, v, enc := readCorpus(t, path, 1)
	if s := sweepStarts(enc, nil, 2); s[1] != enc.NumUnits() {
		t.Fatalf("sweep starts %v: the second should be past the last line", s)
	}
	cfg := smallConfig(2)
	cfg.Epochs = 20
	cfg.Checkpoints.Path = filepath.Join(t.TempDir(), "ck")
	if _, err := Train(context.Background(), enc, v, cfg); err != nil {
		t.Fatal(err)
	}
	cfg.Checkpoints.Resume = cfg.Checkpoints.Path
	if _, err := Train(context.Background(), enc, v, cfg); err != nil {
		t.Fatalf("resuming the run's own checkpoint: %v", err)
	}
}

// Lines longer than a claim of the budget (budgetChunk tokens) are trained
// Epochs times too, not once per claim: one thread trains exactly Epochs
// passes, several pass the budget by at most a line each.
func TestLongLinesKeepTheBudget(t *testing.T) {
	var b strings.Builder
	for i := range 6 {
		for j := range 2500 {
			fmt.Fprintf(&b, "w%d ", (i+j)%50)
		}
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "long.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, v, enc := readCorpus(t, path, 1)
	for _, threads := range []int{1, 2} {
		if threads > 1 && raceEnabled {
			continue // Hogwild SGD races on purpose
		}
		cfg := smallConfig(threads)
		cfg.Epochs = 2
		tr := ranTrainer(t, enc, v, cfg)
		if got, max := tr.processed.Load(), tr.total+int64(threads-1)*2500; got < tr.total || got > max {
			t.Errorf("%d threads: %d tokens trained, want %d … %d", threads, got, tr.total, max)
		}
	}
}

// One thread trains exactly Epochs passes over the units in order, each unit
// stepped once a pass (the loop before the sweep): the same vectors bit for
// bit, for both trainers, in file order and shuffled.
func TestOneThreadIsEpochPasses(t *testing.T) {
	_, v, enc := readCorpus(t, morphCorpus(t, 300), 2)
	for _, maxn := range []int{0, 5} {
		for _, shuffle := range []bool{false, true} {
			cfg := smallConfig(1)
			cfg.MaxN, cfg.Bucket, cfg.Shuffle = maxn, 0, shuffle
			got := ranTrainer(t, enc, v, cfg).syn0
			tr, err := newTrainer(enc, v, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := tr.initInputs(v); err != nil {
				t.Fatal(err)
			}
			w := newWorker(tr, 1, 0)
			for range cfg.Epochs {
				for p := range enc.NumUnits() {
					if !w.step(unitAt(tr.order, p)) {
						t.Fatalf("maxn %d: the budget ran out before the last epoch's unit %d", maxn, p)
					}
				}
			}
			if w.step(0) {
				t.Errorf("maxn %d: budget left after Epochs passes", maxn)
			}
			w.sync()
			if !reflect.DeepEqual(tr.syn0, got) {
				t.Errorf("maxn %d, shuffle %v: one thread differs from Epochs passes in order", maxn, shuffle)
			}
		}
	}
}

// ranTrainer trains with cfg and returns the trainer afterwards.
func ranTrainer(t *testing.T, enc *corpus.Encoded, v *corpus.Vocab, cfg Config) *trainer {
	t.Helper()
	tr, err := prepare(enc, v, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return tr
}

// Several workers together process the budget, Epochs passes' tokens, and
// at most one more unit each; every worker starts where sweepStarts says.
func TestWorkersSpendTheBudget(t *testing.T) {
	if raceEnabled {
		t.Skip("Hogwild SGD races on purpose; skipped under the race detector")
	}
	enc, v := halvesCorpus(t, 20000) // 80,000 tokens in units of 4
	for _, threads := range []int{2, 4, 7} {
		cfg := smallConfig(threads)
		cfg.Epochs = 2
		tr := ranTrainer(t, enc, v, cfg)
		if got, max := tr.processed.Load(), tr.total+int64(threads)*4; got < tr.total || got > max {
			t.Errorf("%d threads: %d tokens processed, want %d … %d", threads, got, tr.total, max)
		}
	}
	starts := sweepStarts(enc, nil, 4)
	if !slices.Equal(starts, []int{0, 5000, 10000, 15000}) {
		t.Errorf("starts %v, want every 5,000 units", starts)
	}

	// The run's workers start where sweepStarts says, each with its own stream.
	tr, err := newTrainer(enc, v, smallConfig(4))
	if err != nil {
		t.Fatal(err)
	}
	for k, w := range tr.newWorkers() {
		if w.pos != starts[k] || w.rng != newRNG(tr.cfg.Seed, uint64(k)+1) {
			t.Errorf("worker %d starts at %d with stream state %v, want %d and stream %d", k, w.pos, w.rng, starts[k], k+1)
		}
	}
	if p := tr.progress(tr.total+3, time.Now()); p.Done != p.Total {
		t.Errorf("progress past the budget: Done %d, Total %d", p.Done, p.Total)
	}
}
