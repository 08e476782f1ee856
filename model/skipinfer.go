package model

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/text2vec-am/text2vec-am/simd"
)

// SkipConfig is how SkipInference trains a word: the skipgram with negative
// sampling of the subword model, run on the word's sentences alone.
type SkipConfig struct {
	// Epochs is the number of passes over the sentences.
	Epochs int
	// LR is the learning rate of the first step; it falls linearly to 0 over
	// all the steps.
	LR float64
	// Window is the largest distance of a context word; each occurrence of
	// the word draws its window from 1..Window, as in training.
	Window int
	// Negative is the number of negatives drawn for each context word.
	Negative int
	// Sample is the subsampling threshold t: a context word of relative
	// frequency f is kept with probability √(t/f) + t/f (0: all kept).
	Sample float64
	// NegativePower is the exponent of the counts negatives are drawn by.
	NegativePower float64
}

// DefaultSkipConfig is the subword model's training recipe (window 5, 5
// negatives drawn by count^0.5, t = 1e-4) with 5 passes from half its
// starting learning rate: a quarter of the learning rate training sums over a
// word's row per occurrence (5 × 0.0125 against 10 × 0.025), which keeps the
// vector nearer its form (chosen on rare-word development pairs:
// docs/evaluation.md).
func DefaultSkipConfig() SkipConfig {
	return SkipConfig{Epochs: 5, LR: 0.025, Window: 5, Negative: 5, Sample: 1e-4, NegativePower: 0.5}
}

// SkipInference estimates the vector a subword skipgram (fastText) would give
// a word it never trained on, from sentences the word occurs in: the skipgram
// step of training, with the output vectors and the n-gram vectors frozen and
// the word's own row the only one that learns.
//
// A trained word's vector is the mean of its row and its n-grams' rows,
//
//	h = (r + Σ_g E[g]) / (n + 1) = (r + n·v_form) / (n + 1),
//
// and a never-trained row is (about) zero, so h starts at n·v_form/(n + 1).
// For each occurrence of the word and each context word c within the drawn
// window, with σ the logistic function and o_c the output vector of c,
//
//	g = lr·(1 − σ(h·o_c))·o_c − Σ_{x ∈ negatives} lr·σ(h·o_x)·o_x,
//
// and the row takes the step the mean of all the word's rows would take, so
// that h moves by g (a held word's row learns so in training: train-embeddings
// --hold-forms). Context words without an output vector are dropped from the
// sentence, as fastText drops words outside its dictionary; a negative equal
// to the context word is drawn again, up to 8 times, as in training. The cost is
// Epochs × occurrences × (about Window) × (Negative + 1) dot products and
// updates of the dimension: the caller bounds the sentences.
type SkipInference struct {
	out  *Embeddings
	cfg  SkipConfig
	keep []float64 // probability of keeping each output word
	cum  []float64 // cumulative negative-sampling weights, the last 1
}

// NewSkipInference prepares inference against the output vectors out, whose
// Counts (required) give the subsampling and the negatives.
func NewSkipInference(out *Embeddings, cfg SkipConfig) (*SkipInference, error) {
	switch {
	case out == nil || out.Len() == 0:
		return nil, errors.New("skip inference: no output vectors")
	case len(out.Counts) != out.Len():
		return nil, errors.New("skip inference: the output vectors have no word counts")
	case cfg.Epochs < 1 || cfg.Window < 1 || cfg.Negative < 0 || !(cfg.LR > 0) || math.IsInf(cfg.LR, 1) ||
		!(cfg.Sample >= 0) || math.IsInf(cfg.Sample, 1) || !(cfg.NegativePower >= 0) || math.IsInf(cfg.NegativePower, 1):
		return nil, fmt.Errorf("skip inference: configuration out of range: %+v", cfg)
	}
	var total float64
	for _, c := range out.Counts {
		total += float64(max(c, 0))
	}
	if !(total > 0) {
		return nil, errors.New("skip inference: every word count is zero")
	}
	s := &SkipInference{out: out, cfg: cfg, keep: make([]float64, out.Len()), cum: make([]float64, out.Len())}
	var cum float64
	for i, c := range out.Counts {
		f := float64(max(c, 0)) / total
		s.keep[i] = 1
		if cfg.Sample > 0 && f > 0 {
			s.keep[i] = min(1, math.Sqrt(cfg.Sample/f)+cfg.Sample/f)
		}
		cum += math.Pow(float64(max(c, 0)), cfg.NegativePower)
		s.cum[i] = cum
	}
	for i := range s.cum {
		s.cum[i] /= cum
	}
	return s, nil
}

// Infer writes to dst the vector of word inferred from sentences (tokens as
// the tokenizer gives them, the word among them) starting from its form
// vector form (the mean of its nForm n-gram vectors; nil or nForm 0: no
// form), and returns the number of the word's occurrences in a sentence with
// a context word (one with an output vector): 0 leaves dst at n/(n+1) of the
// form (zero without one). dst, and form when given, must hold at least the
// output vectors' dimension. The same seed, word and sentences give the same
// vector.
func (s *SkipInference) Infer(dst, form []float32, nForm int, word string, sentences [][]string, seed uint64) int {
	d := s.out.Dim
	dst = dst[:d]
	clear(dst)
	if form != nil && nForm > 0 {
		simd.Axpy(float32(nForm)/float32(nForm+1), form[:d], dst)
	}
	lines, occurrences, withContext := s.encode(word, sentences)
	if withContext == 0 {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(word))
	rng := rand.New(rand.NewPCG(seed, h.Sum64()))
	grad := make([]float32, d)
	line := make([]int32, 0, 64)
	steps, step := s.cfg.Epochs*occurrences, 0
	for range s.cfg.Epochs {
		for _, l := range lines {
			line = s.subsample(line[:0], l, rng)
			for p, id := range line {
				if id != wordID {
					continue
				}
				lr := float32(s.cfg.LR * (1 - float64(step)/float64(steps)))
				step++
				b := 1 + rng.IntN(s.cfg.Window)
				for c := max(p-b, 0); c <= min(p+b, len(line)-1); c++ {
					if line[c] != wordID {
						s.pair(dst, grad, line[c], lr, rng)
					}
				}
			}
		}
	}
	return withContext
}

// wordID marks the inferred word in an encoded sentence.
const wordID = -1

// encode maps the sentences' tokens to output rows (the word to wordID,
// words without an output vector dropped) and counts the word's occurrences,
// all of them and those in a line with another word.
func (s *SkipInference) encode(word string, sentences [][]string) (lines [][]int32, occurrences, withContext int) {
	lines = make([][]int32, 0, len(sentences))
	for _, sen := range sentences {
		l := make([]int32, 0, len(sen))
		n := 0
		for _, t := range sen {
			if t == word {
				l = append(l, wordID)
				n++
			} else if id, ok := s.out.ID(t); ok {
				l = append(l, id)
			}
		}
		occurrences += n
		if n < len(l) {
			withContext += n
		}
		lines = append(lines, l)
	}
	return lines, occurrences, withContext
}

// subsample appends to dst the tokens of l kept by subsampling; the word is
// always kept.
func (s *SkipInference) subsample(dst, l []int32, rng *rand.Rand) []int32 {
	for _, id := range l {
		if id == wordID || rng.Float64() < s.keep[id] {
			dst = append(dst, id)
		}
	}
	return dst
}

// pair takes one skipgram step of h towards predicting the output word c,
// against cfg.Negative negatives (grad is scratch of len Dim).
func (s *SkipInference) pair(h, grad []float32, c int32, lr float32, rng *rand.Rand) {
	clear(grad)
	s.logistic(h, grad, c, 1, lr)
	for range s.cfg.Negative {
		x := s.negative(rng)
		for tries := 0; x == c && tries < 8; tries++ {
			x = s.negative(rng)
		}
		if x != c {
			s.logistic(h, grad, x, 0, lr)
		}
	}
	simd.Add(h, grad)
}

// negative draws an output row by the counts raised to NegativePower.
func (s *SkipInference) negative(rng *rand.Rand) int32 {
	return int32(min(sort.SearchFloat64s(s.cum, rng.Float64()), len(s.cum)-1))
}

// logistic adds to grad lr·(label − σ(h·o))·o for the output vector o of id.
func (s *SkipInference) logistic(h, grad []float32, id int32, label, lr float32) {
	o := s.out.Row(id)
	z := float64(simd.Dot(h, o))
	simd.Axpy(lr*(label-float32(1/(1+math.Exp(-z)))), o, grad)
}
