package skipgram

import (
	"context"
	"errors"
	"fmt"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/simd"
	"github.com/text2vec-am/text2vec-am/trainer/corpus"
)

// MaxBucket bounds Config.Bucket (2²⁶ rows), and the distinct n-grams of an
// exact table (Bucket 0).
const MaxBucket = 1 << 26

// Subwords is the result of subword training: the word vectors (fastText's:
// the mean of the word's own input row and its n-gram rows) and the n-gram
// vectors, one row per distinct n-gram of the vocabulary's words (n-grams
// sharing a hash bucket share the row; with Config.Bucket 0 none do).
type Subwords struct {
	// Words holds the vocabulary's word vectors, with its counts.
	Words *model.Embeddings
	// Ngrams holds the n-gram vectors; its words are the n-grams in fastText's
	// form ('<' and '>' mark the word's ends) and its counts the number of
	// vocabulary words containing each, in decreasing order of that number
	// (ties by decreasing summed word count, then by n-gram).
	Ngrams *model.Embeddings
	// Outputs holds the vocabulary's output vectors (the rows that predict a
	// word as the context of another), with its counts: what
	// model.SkipInference infers a new word's vector against.
	Outputs *model.Embeddings
	// Config is how words were cut into n-grams (the fastText style).
	Config model.NgramConfig
	// Held lists the words whose n-grams learned nothing from their own
	// occurrences (Config.HoldForms), in vocabulary order. Ngrams leaves out
	// the n-grams only held words have: no occurrence trained them.
	Held []string
}

// NgramConfig returns the n-gram settings of subword training (fastText's
// style, cfg.MinN…cfg.MaxN).
func (c Config) NgramConfig() model.NgramConfig {
	return model.NgramConfig{MinN: c.MinN, MaxN: c.MaxN, MinCount: 1, Style: model.NgramFastText}
}

// subwordTable lists, for every vocabulary word, its input rows: the word's
// own row first, then nwords + the row of each of its n-grams in fastText's
// order (computeSubwords). An n-gram's row is hash(g) % bucket (fastText's
// hashing), or with bucket 0 its index among the distinct n-grams of the
// vocabulary in order of first appearance (exact: no two n-grams share a row).
type subwordTable struct {
	rows  []int32
	offs  []int32 // word i: rows[offs[i]:offs[i+1]]
	nrows int     // n-gram rows
	held  []bool  // word i's occurrences update only its own row (nil: none held)
}

// heldWords draws the words of Config.HoldForms: each word with at least
// HoldMinCount occurrences is held when a hash of the seed and the word,
// read as a fraction of 2⁶⁴, is below HoldForms (nil when none is).
func heldWords(vocab *corpus.Vocab, cfg Config) []bool {
	if cfg.HoldForms == 0 {
		return nil
	}
	held := make([]bool, vocab.Len())
	limit := uint64(cfg.HoldForms * (1 << 63) * 2)
	for i, w := range vocab.Words {
		held[i] = vocab.Counts[i] >= cfg.HoldMinCount && holdHash(cfg.Seed, w) < limit
	}
	return held
}

// holdHash is FNV-1a of the word, seeded, mixed by splitmix64's finalizer.
func holdHash(seed uint64, w string) uint64 {
	h := uint64(14695981039346656037) ^ seed
	for i := 0; i < len(w); i++ {
		h ^= uint64(w[i])
		h *= 1099511628211
	}
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}

func newSubwordTable(words []string, cfg Config) (*subwordTable, error) {
	ncfg := cfg.NgramConfig()
	t := &subwordTable{offs: make([]int32, 1, len(words)+1), nrows: cfg.Bucket}
	var exact map[string]int32
	if cfg.Bucket == 0 {
		exact = make(map[string]int32)
	}
	var grams []string
	n := int64(len(words))
	for i, w := range words {
		t.rows = append(t.rows, int32(i))
		grams = ncfg.AppendNgrams(grams[:0], w)
		for _, g := range grams {
			var r int64
			if exact == nil {
				r = int64(model.FastTextHash(g) % uint32(cfg.Bucket))
			} else if id, ok := exact[g]; ok {
				r = int64(id)
			} else if len(exact) < MaxBucket {
				r = int64(len(exact))
				exact[g] = int32(r)
			} else {
				return nil, fmt.Errorf("more than %d distinct n-grams: hash them into buckets (--bucket > 0)", MaxBucket)
			}
			t.rows = append(t.rows, int32(n+r))
		}
		if len(t.rows) > 1<<31-1 {
			return nil, errors.New("subword table exceeds 2³¹ entries")
		}
		t.offs = append(t.offs, int32(len(t.rows)))
	}
	if exact != nil {
		t.nrows = len(exact)
	}
	return t, nil
}

// TrainSubwords learns word and character n-gram vectors as fastText's
// skipgram does (Bojanowski et al. 2017): a word's input vector is the mean of
// its own row and the rows of its n-grams (hashed into cfg.Bucket buckets by
// model.FastTextHash; with Bucket 0, one row per distinct n-gram), each
// context word within the shrunk window is predicted from it with negative
// sampling, and the gradient of the mean is added in full to every one of
// those rows (fastText does not normalise it for skipgram). Subsampling, negatives, the learning-rate schedule, the
// Hogwild workers and the checkpoints are Train's. cfg.MaxN must be > 0.
func TrainSubwords(ctx context.Context, enc *corpus.Encoded, vocab *corpus.Vocab, cfg Config) (*Subwords, error) {
	if cfg.MaxN == 0 {
		return nil, errors.New("skipgram: subword training needs MaxN > 0")
	}
	t, err := prepare(enc, vocab, cfg)
	if err != nil {
		return nil, err
	}
	if err := t.run(ctx); err != nil {
		return nil, err
	}
	return exportSubwords(vocab, cfg, t.sub, t.syn0, t.syn1neg)
}

// exportSubwords builds the result of subword training from the input matrix
// syn0 (the word rows, then the n-gram rows of sub): each word's vector is the
// mean of its rows, each n-gram's vector its row; the output vectors are
// syn1neg's rows.
func exportSubwords(vocab *corpus.Vocab, cfg Config, sub *subwordTable, syn0, syn1neg []float32) (*Subwords, error) {
	n, dim := vocab.Len(), cfg.Dim
	vecs := make([]float32, n*dim)
	for i := 0; i < n; i++ {
		ids := sub.rows[sub.offs[i]:sub.offs[i+1]]
		row := vecs[i*dim : (i+1)*dim]
		simd.GatherSum(row, syn0, ids)
		simd.Scale(1/float32(len(ids)), row)
	}
	words, err := model.NewEmbeddings(dim, vocab.Words, vecs, vocab.Counts)
	if err != nil {
		return nil, fmt.Errorf("skipgram: %w", err)
	}
	ngrams, err := ngramTable(vocab, cfg, sub, syn0[n*dim:])
	if err != nil {
		return nil, fmt.Errorf("skipgram: %w", err)
	}
	var held []string
	for i, h := range sub.held {
		if h {
			held = append(held, vocab.Words[i])
		}
	}
	outputs, err := model.NewEmbeddings(dim, vocab.Words, syn1neg[:n*dim:n*dim], vocab.Counts)
	if err != nil {
		return nil, fmt.Errorf("skipgram: output vectors: %w", err)
	}
	return &Subwords{Words: words, Ngrams: ngrams, Outputs: outputs, Config: cfg.NgramConfig(), Held: held}, nil
}

// ngramTable collects the distinct n-grams of the vocabulary's words with
// their rows of buckets (the n-gram rows, as sub assigns them), ordered by the
// number of words containing them.
func ngramTable(vocab *corpus.Vocab, cfg Config, sub *subwordTable, buckets []float32) (*model.Embeddings, error) {
	ncfg := cfg.NgramConfig()
	type stat struct {
		types, tokens int64
		row           int  // the n-gram's row in buckets
		trained       bool // a word that is not held has it
	}
	stats := make(map[string]*stat)
	var grams []string
	n := int32(vocab.Len())
	for i, w := range vocab.Words {
		grams = ncfg.AppendNgrams(grams[:0], w)
		rows := sub.rows[sub.offs[i]+1 : sub.offs[i+1]] // the same n-grams, in the same order
		if len(rows) != len(grams) {
			return nil, fmt.Errorf("n-gram table: word %q has %d n-grams, %d rows", w, len(grams), len(rows))
		}
		for j, g := range grams {
			s := stats[g]
			if s == nil {
				s = &stat{row: int(rows[j] - n)}
				stats[g] = s
			}
			s.types++
			s.tokens += vocab.Counts[i]
			s.trained = s.trained || sub.held == nil || !sub.held[i]
		}
	}
	names := make([]string, 0, len(stats))
	for g, s := range stats {
		if s.trained {
			names = append(names, g)
		}
	}
	model.SortNgramTable(names, func(g string) model.NgramRank {
		return model.NgramRank{Words: stats[g].types, Tokens: stats[g].tokens}
	})
	dim := cfg.Dim
	vecs := make([]float32, len(names)*dim)
	counts := make([]int64, len(names))
	for i, g := range names {
		b := stats[g].row
		copy(vecs[i*dim:(i+1)*dim], buckets[b*dim:(b+1)*dim])
		counts[i] = stats[g].types
	}
	return model.NewEmbeddings(dim, names, vecs, counts)
}

// trainUnitSubwords runs fastText's skipgram update over one subsampled unit:
// for each word and each context word within the shrunk window, the mean of
// the word's input rows predicts the context word (label 1) and Negative
// sampled words (label 0); the gradient of the mean goes to every input row.
func (w *worker) trainUnitSubwords(sen []int32) {
	t := w.t
	dim, window, nneg := t.cfg.Dim, t.cfg.Window, t.cfg.Negative
	syn0, syn1neg := t.syn0, t.syn1neg
	hidden, grad := w.hidden, w.neu1e
	alpha := w.alpha
	rows, offs := t.sub.rows, t.sub.offs
	n := len(sen)
	var pairs, negs int64
	var loss float64
	for pos, word := range sen {
		win := w.rng.window(window)
		lo, hi := max(pos-win, 0), min(pos+win+1, n)
		pairs += int64(hi - lo - 1)
		ids := rows[offs[word]:offs[word+1]]
		inv := 1 / float32(len(ids))
		held := t.sub.held != nil && t.sub.held[word]
		for c := lo; c < hi; c++ {
			if c == pos {
				continue
			}
			simd.GatherSum(hidden, syn0, ids)
			simd.Scale(inv, hidden)
			clear(grad)
			target := sen[c]
			o := int(target) * dim
			out := syn1neg[o : o+dim : o+dim]
			sc := simd.Dot(hidden, out)
			loss += float64(softplus(-sc))
			g := (1 - sigmoid(sc)) * alpha
			simd.PairAxpy(g, hidden, out, grad)
			for d := 0; d < nneg; d++ {
				neg := t.neg.sample(&w.rng)
				negs++
				for tries := 0; neg == target && tries < 8; tries++ { // fastText draws again
					neg = t.neg.sample(&w.rng)
					negs++
				}
				if neg == target {
					continue
				}
				o := int(neg) * dim
				out := syn1neg[o : o+dim : o+dim]
				sc := simd.Dot(hidden, out)
				loss += float64(softplus(sc))
				g := -sigmoid(sc) * alpha
				simd.PairAxpy(g, hidden, out, grad)
			}
			if held { // the own row takes the whole step of the mean
				r := int(ids[0]) * dim
				simd.Axpy(float32(len(ids)), grad, syn0[r:r+dim:r+dim])
				continue
			}
			for _, id := range ids {
				r := int(id) * dim
				simd.Add(syn0[r:r+dim:r+dim], grad)
			}
		}
	}
	w.stats.pairs += pairs
	w.stats.negatives += negs
	w.stats.loss += loss
}

// initInput sets the input matrix syn0 as fastText does: uniform in ±1/dim,
// or with cfg.ZeroNgramRows only its first wordLen values (the word rows, the
// same draws either way), the n-gram rows after them staying zero. The output
// rows start at zero (newTrainer).
func initInput(syn0 []float32, wordLen, dim int, cfg Config) {
	rows := syn0
	if cfg.ZeroNgramRows {
		rows = syn0[:wordLen]
	}
	rng := newRNG(cfg.Seed, 0)
	for i := range rows {
		rows[i] = (float32(rng.next()>>40)/(1<<24)*2 - 1) / float32(dim)
	}
}
