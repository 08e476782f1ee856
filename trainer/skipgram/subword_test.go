package skipgram

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/simd"
	"github.com/text2vec-am/text2vec-am/trainer/corpus"
)

// TestFastTextHashKnownValues checks the hash against values computed with
// fastText's Dictionary::hash (FNV-1a over int8_t-cast bytes): non-ASCII bytes
// are sign-extended before the XOR, which differs from plain FNV-1a.
func TestFastTextHashKnownValues(t *testing.T) {
	for s, want := range map[string]uint32{
		"":        2166136261,
		"<wh":     1048167652,
		"her":     4105473420,
		"ere>":    2257568469,
		"<where>": 2319392596,
		"é":       1023043777,
		"<café>":  3312017187,
		"</s>":    3617362777,
	} {
		if got := model.FastTextHash(s); got != want {
			t.Errorf("FastTextHash(%q) = %d, want %d", s, got, want)
		}
	}
}

// TestNgramsAsFastText checks the n-grams of known words against fastText's
// computeSubwords with minn 3, maxn 6.
func TestNgramsAsFastText(t *testing.T) {
	cfg := Config{MinN: 3, MaxN: 6}.NgramConfig()
	got := cfg.AppendNgrams(nil, "where")
	want := []string{"<wh", "<whe", "<wher", "<where", "whe", "wher", "where", "where>", "her", "here", "here>", "ere", "ere>", "re>"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("n-grams of where = %q, want %q", got, want)
	}
	if got, want := cfg.AppendNgrams(nil, "a"), []string{"<a>"}; !reflect.DeepEqual(got, want) {
		t.Errorf("n-grams of a = %q, want %q", got, want)
	}
	if got, want := cfg.AppendNgrams(nil, "né"), []string{"<né", "<né>", "né>"}; !reflect.DeepEqual(got, want) {
		t.Errorf("n-grams of né = %q, want %q (characters, not bytes)", got, want)
	}
}

// TestNgramsAgainstFastTextBinary trains a tiny fastText model and compares,
// for every word, the n-grams `fasttext print-ngrams` lists with ours, and the
// bucket of each (n-grams in the same bucket share one vector in fastText;
// with 97 buckets there are many collisions to check). Skipped without fastText.
func TestNgramsAgainstFastTextBinary(t *testing.T) {
	ft, err := exec.LookPath("fasttext")
	if err != nil {
		t.Skip("fasttext not installed")
	}
	dir := t.TempDir()
	words := []string{"where", "here", "there", "café", "naïve", "a", "xylophone", "kernel", "kernels"}
	var b strings.Builder
	for i := 0; i < 300; i++ {
		b.WriteString(strings.Join(words, " ") + "\n")
	}
	in := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "m")
	if msg, err := exec.Command(ft, "skipgram", "-input", in, "-output", out, "-minCount", "1", "-bucket", "97",
		"-dim", "8", "-epoch", "5", "-minn", "3", "-maxn", "6", "-thread", "1", "-verbose", "0").CombinedOutput(); err != nil {
		t.Fatalf("fasttext skipgram: %v\n%s", err, msg)
	}
	cfg := Config{MinN: 3, MaxN: 6}.NgramConfig()
	bucketVec := map[uint32]string{}
	bucketGram := map[uint32]string{}
	collisions := 0
	for _, w := range words {
		msg, err := exec.Command(ft, "print-ngrams", out+".bin", w).Output()
		if err != nil {
			t.Fatalf("fasttext print-ngrams %s: %v", w, err)
		}
		var grams []string
		lines := strings.Split(strings.TrimSpace(string(msg)), "\n")
		if len(lines) == 0 || !strings.HasPrefix(lines[0], w+" ") {
			t.Fatalf("print-ngrams %s: want the word's own row first, got %q", w, lines[0])
		}
		for _, line := range lines[1:] { // the word's own row first, then its n-grams
			g, vec, _ := strings.Cut(strings.TrimSpace(line), " ")
			grams = append(grams, g)
			bucket := model.FastTextHash(g) % 97
			if _, ok := bucketVec[bucket]; ok && bucketGram[bucket] != g {
				collisions++
			}
			if prev, ok := bucketVec[bucket]; ok && prev != vec {
				t.Errorf("n-grams %q and %q: our bucket %d, different vectors in fastText (%s, %s)", bucketGram[bucket], g, bucket, prev, vec)
			}
			bucketVec[bucket], bucketGram[bucket] = vec, g
		}
		if got := cfg.AppendNgrams(nil, w); !reflect.DeepEqual(got, grams) {
			t.Errorf("n-grams of %q: ours %q, fastText %q", w, got, grams)
		}
	}
	if len(bucketVec) < 20 || collisions < 10 {
		t.Errorf("%d buckets seen, %d shared by different n-grams: the check has too little to compare", len(bucketVec), collisions)
	}
}

// TestSubwordUpdateMatchesNaive runs one unit through trainUnitSubwords and
// through a float64 transcription of fastText's Model::update (skipgram,
// negative sampling, unnormalised gradient) with the same random draws.
// Held words (Config.HoldForms) send the gradient to their own row only,
// times their number of rows.
func TestSubwordUpdateMatchesNaive(t *testing.T) {
	for _, bucket := range []int{11, 0} {
		for _, held := range [][]bool{nil, {false, true, false, true}} {
			t.Run(fmt.Sprint("bucket=", bucket, ",held=", held != nil), func(t *testing.T) { checkSubwordUpdate(t, bucket, held) })
		}
	}
}

// checkSubwordUpdate replays one unit of subword training naively in float64
// with bucket hash buckets (0: exact n-gram rows) and the words of held held.
func checkSubwordUpdate(t *testing.T, bucket int, held []bool) {
	vocab := vocabOf(t, map[string]int{"alpha": 40, "beta": 30, "gamma": 20, "delta": 10})
	words := vocab.Words
	if !reflect.DeepEqual(words, []string{"alpha", "beta", "gamma", "delta"}) {
		t.Fatalf("vocabulary %q", words)
	}
	enc := &corpus.Encoded{IDs: []int32{0, 1, 2, 3, 0, 2}, Offsets: []int64{0, 6}}
	cfg := DefaultConfig()
	cfg.Dim, cfg.Window, cfg.Negative, cfg.MinN, cfg.MaxN, cfg.Bucket = 8, 2, 3, 3, 4, bucket
	tr, err := newTrainer(enc, vocab, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.initInputs(vocab); err != nil {
		t.Fatal(err)
	}
	tr.sub.held = held
	r := rand.New(rand.NewPCG(1, 2))
	for i := range tr.syn0 {
		tr.syn0[i] = float32(r.NormFloat64() * 0.3)
	}
	for i := range tr.syn1neg {
		tr.syn1neg[i] = float32(r.NormFloat64() * 0.3)
	}
	nv, w, rng := newNaive(tr)
	sen := enc.IDs
	w.trainUnitSubwords(sen)

	dim := cfg.Dim
	for pos, word := range sen {
		win := rng.window(cfg.Window)
		ids := tr.sub.rows[tr.sub.offs[word]:tr.sub.offs[word+1]]
		for c := max(pos-win, 0); c < min(pos+win+1, len(sen)); c++ {
			if c == pos {
				continue
			}
			hidden := make([]float64, dim)
			for _, id := range ids {
				for k := range hidden {
					hidden[k] += nv.syn0[int(id)*dim+k] / float64(len(ids))
				}
			}
			grad := make([]float64, dim)
			nv.step(hidden, grad, sen[c], 1)
			for d := 0; d < cfg.Negative; d++ {
				neg := tr.neg.sample(&rng)
				for tries := 0; neg == sen[c] && tries < 8; tries++ {
					neg = tr.neg.sample(&rng)
				}
				if neg != sen[c] {
					nv.step(hidden, grad, neg, 0)
				}
			}
			if held != nil && held[word] { // the own row alone, the whole step of the mean
				for k := range grad {
					nv.syn0[int(ids[0])*dim+k] += float64(len(ids)) * grad[k]
				}
				continue
			}
			for _, id := range ids {
				for k := range grad {
					nv.syn0[int(id)*dim+k] += grad[k]
				}
			}
		}
	}
	nv.check(t, tr, w)
}

// naive replays training updates in float64 beside a trainer, from a copy
// of its weights, summing the exact loss.
type naive struct {
	syn0, syn1  []float64
	dim         int
	alpha, loss float64
	terms       int
}

// newNaive returns a replay of tr's weights, a worker of tr at the replay's
// learning rate and a copy of the worker's random numbers for the replay to
// draw the same ones.
func newNaive(tr *trainer) (*naive, *worker, rng) {
	nv := &naive{syn0: toF64(tr.syn0), syn1: toF64(tr.syn1neg), dim: tr.cfg.Dim, alpha: 0.05}
	w := newWorker(tr, 1, 0)
	w.alpha = float32(nv.alpha)
	return nv, w, w.rng
}

// step scores output row target against the input vector in, adds the
// exact logistic loss of label, the gradient for in to grad and updates the
// row, as BinaryLogisticLoss in fastText and word2vec.c's inner loop do.
func (nv *naive) step(in, grad []float64, target int32, label float64) {
	out := nv.syn1[int(target)*nv.dim : int(target+1)*nv.dim]
	var dot float64
	for k := range out {
		dot += out[k] * in[k]
	}
	p := 1 / (1 + math.Exp(-dot))
	nv.loss -= label*math.Log(p) + (1-label)*math.Log(1-p)
	nv.terms++
	g := nv.alpha * (label - float64(sigmoid(float32(dot))))
	for k := range out {
		grad[k] += g * out[k]
		out[k] += g * in[k]
	}
}

// check compares the replay with the trainer's weights and the loss worker
// w summed (the table's loss within half a step a term of the exact one).
func (nv *naive) check(t *testing.T, tr *trainer, w *worker) {
	t.Helper()
	for name, p := range map[string][2][]float64{"input": {nv.syn0, toF64(tr.syn0)}, "output": {nv.syn1, toF64(tr.syn1neg)}} {
		for i := range p[0] {
			if math.Abs(p[0][i]-p[1][i]) > 1e-4 {
				t.Fatalf("%s value %d: naive %v, trainer %v", name, i, p[0][i], p[1][i])
			}
		}
	}
	if reflect.DeepEqual(nv.syn0, toF64(tr.syn0)) && reflect.DeepEqual(nv.syn1, toF64(tr.syn1neg)) {
		t.Log("bit-identical")
	}
	if tol := float64(nv.terms) * 0.5 / sigmoidScale; nv.loss == 0 || math.Abs(w.stats.loss-nv.loss) > tol {
		t.Errorf("loss %v over %d terms, exact %v (tolerance %v)", w.stats.loss, nv.terms, nv.loss, tol)
	}
}

func toF64(x []float32) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(v)
	}
	return y
}

// morphCorpus writes lines from two topics whose words share a stem: topic a
// words all contain "zork", topic b words "blim"; each line also holds topic
// context words.
func morphCorpus(t *testing.T, lines int) string {
	t.Helper()
	r := rand.New(rand.NewPCG(3, 3))
	stems := [2]string{"zork", "blim"}
	affixes := []string{"el", "in", "ish", "er", "ous", "ate", "ing", "ed"}
	var b strings.Builder
	for i := range lines {
		topic := i % 2
		for j := range 10 {
			if j > 0 {
				b.WriteByte(' ')
			}
			if j%2 == 0 {
				fmt.Fprintf(&b, "%s%s", stems[topic], affixes[r.IntN(len(affixes))])
			} else {
				fmt.Fprintf(&b, "ctx%c%d", 'a'+topic, r.IntN(6))
			}
		}
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "morph.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSubwordsOOVNearRelatedWords trains subwords on morphCorpus and checks
// that an unseen word's vector from its n-grams alone (the fastText style
// NgramVocab over the trained n-gram table, as AM's form embedding sees it)
// is closer to the words of its stem's topic than to the other topic's.
func TestSubwordsOOVNearRelatedWords(t *testing.T) {
	for _, bucket := range []int{5000, 0} {
		t.Run(fmt.Sprint("bucket=", bucket), func(t *testing.T) { checkOOVNearRelatedWords(t, bucket) })
	}
}

// checkOOVNearRelatedWords is TestSubwordsOOVNearRelatedWords with bucket
// hash buckets (0: exact n-gram rows).
func checkOOVNearRelatedWords(t *testing.T, bucket int) {
	_, vocab, enc := readCorpus(t, morphCorpus(t, 3000), 5)
	cfg := smallConfig(2)
	cfg.MinN, cfg.MaxN, cfg.Bucket, cfg.Epochs = 3, 6, bucket, 3
	sw, err := TrainSubwords(context.Background(), enc, vocab, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sw.Ngrams.Len() == 0 || sw.Words.Len() != vocab.Len() {
		t.Fatalf("%d n-grams, %d words", sw.Ngrams.Len(), sw.Words.Len())
	}
	nv, err := model.NewNgramVocab(sw.Config, sw.Ngrams.Words)
	if err != nil {
		t.Fatal(err)
	}
	oov := func(word string) []float32 {
		ids := nv.AppendIDs(nil, word)
		v := make([]float32, cfg.Dim)
		for _, id := range ids {
			if id == model.UnknownNgram {
				t.Fatalf("%s: an n-gram-less word", word)
			}
			simd.Add(v, sw.Ngrams.Row(id-1))
		}
		return v
	}
	for _, c := range []struct{ word, own, other string }{
		{"zorkless", "zork", "blim"}, {"blimful", "blim", "zork"}, {"unzorkable", "zork", "blim"},
	} {
		if _, ok := sw.Words.ID(c.word); ok {
			t.Fatalf("%s is in the vocabulary", c.word)
		}
		v := oov(c.word)
		var own, other float64
		var nOwn, nOther int
		for i, w := range sw.Words.Words {
			cos := cosine(v, sw.Words.Row(int32(i)))
			switch {
			case strings.Contains(w, c.own):
				own += cos
				nOwn++
			case strings.Contains(w, c.other):
				other += cos
				nOther++
			}
		}
		own, other = own/float64(nOwn), other/float64(nOther)
		if own < other+0.3 {
			t.Errorf("%s: mean cosine %.3f to %s words, %.3f to %s words: want the own stem clearly ahead", c.word, own, c.own, other, c.other)
		}
	}
	// The word vector is the mean of the word's row and its n-gram rows: a
	// word's vector and its n-grams' mean agree more than two unrelated words.
	id, _ := sw.Words.ID("zorkish")
	if cos := cosine(sw.Words.Row(id), oov("zorkish")); cos < 0.5 {
		t.Errorf("zorkish: cosine %.3f between its vector and its n-grams' mean", cos)
	}
}

func TestSubwordConfigErrors(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxN, cfg.MinN, cfg.Bucket = 6, 3, -1
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "Bucket") {
		t.Errorf("bucket -1: %v", err)
	}
	cfg.Bucket = 0 // exact n-gram rows
	if err := cfg.Validate(); err != nil {
		t.Errorf("bucket 0: %v", err)
	}
	cfg.Bucket, cfg.MinN = 10, 7
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "MaxN") {
		t.Errorf("minn > maxn: %v", err)
	}
	_, vocab, enc := readCorpus(t, topicCorpus(t, 50), 1)
	if _, err := TrainSubwords(context.Background(), enc, vocab, DefaultConfig()); err == nil {
		t.Error("TrainSubwords with MaxN 0: no error")
	}
	cfg = DefaultConfig()
	cfg.MaxN, cfg.Bucket = 6, 10
	if _, err := Train(context.Background(), enc, vocab, cfg); err == nil {
		t.Error("Train with MaxN 6: no error")
	}
}

// vocabOf builds the vocabulary of a corpus holding each word count times:
// ids by count, descending.
func vocabOf(t *testing.T, counts map[string]int) *corpus.Vocab {
	t.Helper()
	var b strings.Builder
	for w, n := range counts {
		for range n {
			b.WriteString(w + "\n")
		}
	}
	path := filepath.Join(t.TempDir(), "corpus.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := corpus.Read(context.Background(), []string{path}, corpus.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return c.Vocab(1)
}

// TestProgressCountsPairs checks the work the trainers report: with window 1
// and no subsampling every word of a unit of n words has its neighbours as
// contexts, 2(n−1) pairs per unit and epoch, and every pair draws Negative
// words (the subword trainer draws again when it hits the target).
func TestProgressCountsPairs(t *testing.T) {
	vocab := vocabOf(t, map[string]int{"alpha": 40, "beta": 30, "gamma": 20, "delta": 10})
	// Units of 6, 1 and 3 words: 10 + 0 + 4 pairs per epoch.
	enc := &corpus.Encoded{IDs: []int32{0, 1, 2, 3, 0, 2, 1, 3, 0, 1}, Offsets: []int64{0, 6, 7, 10}}
	for _, maxn := range []int{0, 4} {
		cfg := DefaultConfig()
		cfg.Dim, cfg.Window, cfg.Sample, cfg.Epochs, cfg.MinN, cfg.MaxN, cfg.Bucket = 8, 1, 0, 3, 3, maxn, 11
		last := finalProgress(t, enc, vocab, cfg)
		if want := int64(3 * 14); last.Pairs != want {
			t.Errorf("maxn %d: %d pairs, want %d", maxn, last.Pairs, want)
		}
		if min := last.Pairs * int64(cfg.Negative); last.Negatives < min || (maxn == 0 && last.Negatives != min) {
			t.Errorf("maxn %d: %d negatives for %d pairs × %d", maxn, last.Negatives, last.Pairs, cfg.Negative)
		}
		if maxn > 0 && last.Negatives == last.Pairs*int64(cfg.Negative) {
			t.Errorf("maxn %d: no redraw among %d negatives from a 4-word vocabulary", maxn, last.Negatives)
		}
	}
}

// TestExactNgramRows checks the exact table (Bucket 0): one row per distinct
// n-gram, shared by every word holding it, and no two n-grams in one row,
// where hashed buckets put several n-grams in one row.
func TestExactNgramRows(t *testing.T) {
	words := []string{"where", "here", "there", "hereby", "a"}
	for _, tc := range []struct {
		bucket    int
		collision bool
	}{{0, false}, {3, true}} {
		cfg := Config{MinN: 3, MaxN: 6, Bucket: tc.bucket}
		tab, err := newSubwordTable(words, cfg)
		if err != nil {
			t.Fatal(err)
		}
		rowOf := map[string]int32{}
		ngramOf := map[int32]string{}
		collided := false
		n := int32(len(words))
		for i, w := range words {
			rows := tab.rows[tab.offs[i]:tab.offs[i+1]]
			if rows[0] != int32(i) {
				t.Fatalf("bucket %d, %s: first row %d, want its own %d", tc.bucket, w, rows[0], i)
			}
			for j, g := range cfg.NgramConfig().AppendNgrams(nil, w) {
				r := rows[j+1]
				if r < n || int(r-n) >= tab.nrows {
					t.Fatalf("bucket %d, %s: n-gram %s in row %d outside %d..%d", tc.bucket, w, g, r, n, int(n)+tab.nrows-1)
				}
				if prev, ok := rowOf[g]; ok && prev != r {
					t.Errorf("bucket %d: n-gram %s in rows %d and %d", tc.bucket, g, prev, r)
				}
				rowOf[g] = r
				if other, ok := ngramOf[r]; ok && other != g {
					collided = true
				}
				ngramOf[r] = g
			}
		}
		if collided != tc.collision {
			t.Errorf("bucket %d: n-grams sharing a row: %v, want %v", tc.bucket, collided, tc.collision)
		}
		if tc.bucket == 0 && tab.nrows != len(rowOf) {
			t.Errorf("exact: %d n-gram rows for %d distinct n-grams", tab.nrows, len(rowOf))
		}
	}
}

// TestExportSubwords checks the result of subword training against the input
// matrix, hashed and exact: every word's vector is the mean of its rows, every
// n-gram's vector the row its words use.
func TestExportSubwords(t *testing.T) {
	vocab := vocabOf(t, map[string]int{"where": 9, "here": 7, "there": 5, "hereby": 3, "a": 2})
	for _, bucket := range []int{0, 7} {
		cfg := Config{Dim: 3, MinN: 3, MaxN: 6, Bucket: bucket}
		sub, err := newSubwordTable(vocab.Words, cfg)
		if err != nil {
			t.Fatal(err)
		}
		n := vocab.Len()
		syn0 := make([]float32, (n+sub.nrows)*cfg.Dim)
		r := rand.New(rand.NewPCG(4, 4))
		for i := range syn0 {
			syn0[i] = float32(r.IntN(1000))
		}
		sw, err := exportSubwords(vocab, cfg, sub, syn0, make([]float32, len(vocab.Words)*cfg.Dim))
		if err != nil {
			t.Fatal(err)
		}
		row := func(id int32) []float32 { return syn0[int(id)*cfg.Dim : int(id+1)*cfg.Dim] }
		ncfg := cfg.NgramConfig()
		for i, w := range vocab.Words {
			ids := sub.rows[sub.offs[i]:sub.offs[i+1]]
			mean := make([]float64, cfg.Dim)
			for _, id := range ids {
				for k, x := range row(id) {
					mean[k] += float64(x) / float64(len(ids))
				}
			}
			for k, x := range sw.Words.Row(int32(i)) {
				if math.Abs(float64(x)-mean[k]) > 1e-3 {
					t.Fatalf("bucket %d, %s: vector %v, want the mean of its %d rows %v", bucket, w, sw.Words.Row(int32(i)), len(ids), mean)
				}
			}
			for j, g := range ncfg.AppendNgrams(nil, w) {
				id, ok := sw.Ngrams.ID(g)
				if !ok {
					t.Fatalf("bucket %d: n-gram %s of %s missing", bucket, g, w)
				}
				if got, want := sw.Ngrams.Row(id), row(ids[j+1]); !slices.Equal(got, want) {
					t.Errorf("bucket %d: n-gram %s of %s: vector %v, want its row %v", bucket, g, w, got, want)
				}
			}
		}
	}
}

// TestInitInput checks the input matrix's start: word rows uniform in ±1/dim
// (the same draws either way), n-gram rows too unless ZeroNgramRows.
func TestInitInput(t *testing.T) {
	const dim, words, ngrams = 4, 3, 5
	cfg := DefaultConfig()
	cfg.Dim, cfg.Seed = dim, 7
	uniform := make([]float32, (words+ngrams)*dim)
	initInput(uniform, words*dim, dim, cfg)
	cfg.ZeroNgramRows = true
	zero := make([]float32, len(uniform))
	initInput(zero, words*dim, dim, cfg)
	for i := range zero {
		switch {
		case math.Abs(float64(uniform[i])) > 1.0/dim:
			t.Fatalf("value %d = %v outside ±1/%d", i, uniform[i], dim)
		case i < words*dim && (zero[i] != uniform[i] || zero[i] == 0):
			t.Fatalf("word value %d: %v with zero n-gram rows, %v with uniform ones", i, zero[i], uniform[i])
		case i >= words*dim && zero[i] != 0:
			t.Fatalf("n-gram value %d = %v, want 0", i, zero[i])
		case i >= words*dim && uniform[i] == 0:
			t.Fatalf("n-gram value %d is 0 without ZeroNgramRows", i)
		}
	}
}

// TestHeldWords checks the draw of Config.HoldForms: only words with at least
// HoldMinCount occurrences, about the fraction asked for, the same words for
// the same seed and other words for another.
func TestHeldWords(t *testing.T) {
	counts := map[string]int{}
	for i := range 400 {
		counts[fmt.Sprintf("w%03d", i)] = 3 + i%5 // 3..7
	}
	vocab := vocabOf(t, counts)
	cfg := Config{HoldForms: 0.5, HoldMinCount: 5, Seed: 1}
	held := heldWords(vocab, cfg)
	n := 0
	for i, h := range held {
		if h && vocab.Counts[i] < cfg.HoldMinCount {
			t.Fatalf("%s held with %d occurrences, below %d", vocab.Words[i], vocab.Counts[i], cfg.HoldMinCount)
		}
		if h {
			n++
		}
	}
	if eligible := 240; n < eligible*4/10 || n > eligible*6/10 {
		t.Errorf("%d of %d eligible words held, want about half", n, eligible)
	}
	if again := heldWords(vocab, cfg); !slices.Equal(again, held) {
		t.Error("the same seed held other words")
	}
	cfg.Seed = 2
	if other := heldWords(vocab, cfg); slices.Equal(other, held) {
		t.Error("another seed held the same words")
	}
	cfg.HoldForms = 0
	if none := heldWords(vocab, cfg); none != nil {
		t.Errorf("HoldForms 0 held %v", none)
	}
}

// TestExportLeavesOutUntrainedNgrams checks that the n-gram table of a run
// with held words leaves out the n-grams only held words have (no
// occurrence trained them), keeps those another word shares, and lists the
// held words.
func TestExportLeavesOutUntrainedNgrams(t *testing.T) {
	vocab := vocabOf(t, map[string]int{"where": 9, "here": 7, "zyx": 5})
	cfg := Config{Dim: 3, MinN: 3, MaxN: 6}
	sub, err := newSubwordTable(vocab.Words, cfg)
	if err != nil {
		t.Fatal(err)
	}
	sub.held = []bool{false, true, true} // here and zyx held
	syn0 := make([]float32, (vocab.Len()+sub.nrows)*cfg.Dim)
	sw, err := exportSubwords(vocab, cfg, sub, syn0, make([]float32, len(vocab.Words)*cfg.Dim))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sw.Held, []string{"here", "zyx"}) {
		t.Errorf("held %q, want [here zyx]", sw.Held)
	}
	for _, g := range []string{"<zy", "zyx", "yx>", "<zyx>", "<here>", "<her"} {
		if _, ok := sw.Ngrams.ID(g); ok {
			t.Errorf("n-gram %s only held words have is in the table", g)
		}
	}
	for _, g := range []string{"ere", "here", "ere>", "<wh"} {
		if _, ok := sw.Ngrams.ID(g); !ok {
			t.Errorf("n-gram %s of the word where is missing", g)
		}
	}
}
