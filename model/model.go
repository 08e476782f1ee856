package model

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
)

// Config is the architecture of a model.
type Config struct {
	// Dim is the embedding dimension d (of the base embeddings and the output).
	Dim int
	// Mode selects AM, FCM, form only or context only.
	Mode Mode
	// Ngram sets the character n-grams of the surface form.
	Ngram NgramConfig
	// Tokenizer is how contexts are to be tokenized for this model.
	Tokenizer Tokenizer
	// CountBuckets, when > 0, gives the gate one learned bias per bucket of
	// the number of contexts k (see CountBucket); 0 is the paper's gate,
	// which does not know k.
	CountBuckets int
	// GateAgreement, when set, gives the gate one more input: the contexts'
	// agreement a, the mean cosine between the means of two of them
	// (Model.Agreement). false: the paper's gate, which cannot tell contexts that
	// say the same from contexts that say different things.
	GateAgreement bool
	// GateCoverage, when set, gives the gate one more input (an addition to
	// the paper): the shortfall of the form's coverage c, the share of the
	// word's character n-grams that its form takes from the n-gram table
	// (Model.Form), below CoverageKnee: (CoverageKnee − c)/CoverageKnee, 0 for
	// c ≥ CoverageKnee. It is high for a word whose spelling the model has not
	// seen the like of (a product code, a codename), whose form says little,
	// and 0 for the words whose spelling it knows at least that well, whose
	// gate it leaves alone. false: the gate cannot tell such a form from one
	// it knows well.
	GateCoverage bool
	// ContextSIF, when > 0, is the SIF weight a of the context words (an
	// addition to the paper): a context's mean v_Ci weighs each known word w
	// by a/(a + p(w)), p(w) its share of the base embeddings' counts, so that
	// "the" and "of" weigh little and the words that say something weigh
	// about 1 (Arora et al. 2017). 0 is the paper's plain mean. A model with
	// it needs base embeddings with counts (AttachBase).
	ContextSIF float32
}

// MaxCountBuckets bounds Config.CountBuckets (bucket 15 starts at 2¹⁵ contexts).
const MaxCountBuckets = 16

// CountBucket returns the gate's count bucket of k ≥ 1 non-empty contexts
// with nb ≥ 1 buckets: ⌊log₂ k⌋, the last bucket taking every larger k
// (k = 1, 2–3, 4–7, …). It returns 0 for k < 1 or nb < 1.
func CountBucket(k, nb int) int {
	if k < 1 || nb < 1 {
		return 0
	}
	return min(bits.Len(uint(k))-1, nb-1)
}

// gateLen is the length of U: the weights of v_ctx and v_form, then one
// bias per count bucket, then the weights of the agreement and the coverage.
func (c Config) gateLen() int { return c.coverageIndex() + boolInt(c.GateCoverage) }

// CoverageKnee is the coverage below which the gate's coverage input
// (Config.GateCoverage) is not 0: a form that takes at least this share of
// its word's n-grams from the table counts as known.
const CoverageKnee = 0.3

// coverageShortfall returns the gate's coverage input for coverage c:
// (CoverageKnee − c)/CoverageKnee, 0 for c ≥ CoverageKnee.
func coverageShortfall(c float32) float32 { return max(CoverageKnee-c, 0) / CoverageKnee }

// coverageIndex is the index in U of the coverage's weight (with GateCoverage).
func (c Config) coverageIndex() int { return c.agreementIndex() + boolInt(c.GateAgreement) }

// agreementIndex is the index in U of the agreement's weight (with GateAgreement).
func (c Config) agreementIndex() int { return 2*c.Dim + c.CountBuckets }

func boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}

// Validate reports a configuration the model cannot use.
func (c Config) Validate() error {
	if c.Dim < 1 || c.Dim > MaxDim {
		return fmt.Errorf("dimension %d out of range 1..%d", c.Dim, MaxDim)
	}
	if !c.Mode.valid() {
		return fmt.Errorf("unknown mode %d", c.Mode)
	}
	if err := c.Ngram.Validate(); err != nil {
		return err
	}
	if c.CountBuckets < 0 || c.CountBuckets > MaxCountBuckets {
		return fmt.Errorf("count buckets %d out of range 0..%d", c.CountBuckets, MaxCountBuckets)
	}
	if c.CountBuckets > 0 && !c.Mode.Gated() {
		return fmt.Errorf("count buckets %d: mode %v has no gate", c.CountBuckets, c.Mode)
	}
	if c.GateAgreement && !c.Mode.Gated() {
		return fmt.Errorf("gate agreement: mode %v has no gate", c.Mode)
	}
	if c.GateCoverage && !c.Mode.Gated() {
		return fmt.Errorf("gate coverage: mode %v has no gate", c.Mode)
	}
	if !(c.ContextSIF >= 0) || math.IsInf(float64(c.ContextSIF), 0) {
		return fmt.Errorf("context SIF weight %v: want a finite number ≥ 0", c.ContextSIF)
	}
	if c.ContextSIF > 0 && !c.Mode.usesContext() {
		return fmt.Errorf("context SIF weight %v: mode %v has no contexts", c.ContextSIF, c.Mode)
	}
	return nil
}

// Params are the trainable parameters.
type Params struct {
	// Ngrams is the n-gram embedding table, Vocab.Len() × Dim, row-major.
	Ngrams []float32
	// M is the attention's bilinear map and A maps the context embedding
	// into the output space; both Dim × Dim, row-major.
	M, A []float32
	// U is the gate's weight: U[:Dim] multiplies v_ctx, U[Dim:2·Dim]
	// multiplies v_form, and U[2·Dim+b] (Config.CountBuckets values) is the
	// bias of count bucket b: it multiplies the one-hot encoding of the
	// number of contexts. Then, with Config.GateAgreement, the weight of the
	// contexts' agreement, and, with Config.GateCoverage, that of the form's
	// coverage.
	U []float32
	// B is the gate's bias.
	B float32
}

// Model is an Attentive Mimicking model (see the package doc for the exact
// computation). After construction or loading it is read-only during
// inference and safe for concurrent use; each goroutine uses its own
// Workspace. A trainer may change Params between calls (never during them).
type Model struct {
	Config
	// Vocab maps character n-grams to rows of Ngrams.
	Vocab *NgramVocab
	Params
	// Base embeddings: context words are looked up here. In a serving bundle
	// the rows of words with 1 ≤ count < 32 hold the AM+skip vector, and
	// Counts are set. Set it with AttachBase.
	Base *Embeddings
	// ctxW is the weight of each Base row in a context's mean
	// (Config.ContextSIF; nil: every word weighs 1).
	ctxW []float32
}

// New returns a model with parameters initialised as the reference
// implementation does (TensorFlow's Glorot-uniform default for every
// variable, the gate bias included), drawn from a PCG generator seeded with
// seed. base may be nil (attach it later with AttachBase).
func New(cfg Config, vocab *NgramVocab, base *Embeddings, seed int64) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("new model: %w", err)
	}
	if vocab == nil {
		return nil, fmt.Errorf("new model: no n-gram vocabulary")
	}
	if vocab.Config() != cfg.Ngram {
		return nil, fmt.Errorf("new model: n-gram vocabulary built with %+v, config says %+v", vocab.Config(), cfg.Ngram)
	}
	d, n := cfg.Dim, vocab.Len()
	rng := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	glorot := func(x []float32, fanIn, fanOut int) {
		lim := math.Sqrt(6 / float64(fanIn+fanOut))
		for i := range x {
			x[i] = float32((2*rng.Float64() - 1) * lim)
		}
	}
	m := &Model{Config: cfg, Vocab: vocab}
	m.Ngrams = make([]float32, n*d)
	m.M = make([]float32, d*d)
	m.A = make([]float32, d*d)
	m.U = make([]float32, cfg.gateLen())
	glorot(m.Ngrams, n, d)
	glorot(m.M, d, d)
	glorot(m.A, d, d)
	glorot(m.U[:2*d], 2*d, 1) // the count biases, the agreement and coverage weights start at 0: the paper's gate
	var b [1]float32
	glorot(b[:], 1, 1)
	m.B = b[0]
	if base != nil {
		if err := m.AttachBase(base); err != nil {
			return nil, fmt.Errorf("new model: %w", err)
		}
	}
	return m, nil
}

// ErrNoBaseCounts reports base embeddings without counts given to a model
// whose contexts weigh their words by them (Config.ContextSIF).
var ErrNoBaseCounts = errors.New("the model weighs context words by their counts (SIF), and the base embeddings have none")

// AttachBase sets the base embeddings that context ids refer to; their
// dimension must equal the model's. A model with Config.ContextSIF needs
// their counts (ErrNoBaseCounts), attached before: it computes each word's
// weight here.
func (m *Model) AttachBase(e *Embeddings) error {
	if e == nil {
		return fmt.Errorf("attach base embeddings: nil")
	}
	if e.Dim != m.Dim {
		return fmt.Errorf("attach base embeddings: dimension %d, the model has %d", e.Dim, m.Dim)
	}
	w, err := contextWeights(e, m.ContextSIF)
	if err != nil {
		return fmt.Errorf("attach base embeddings: %w", err)
	}
	m.Base, m.ctxW = e, w
	return nil
}

// contextWeights returns the SIF weight a/(a + p(w)) of every row of e,
// p(w) its count over the sum of e's counts (nil when a is 0).
func contextWeights(e *Embeddings, a float32) ([]float32, error) {
	if a == 0 {
		return nil, nil
	}
	var total float64
	for _, c := range e.Counts {
		total += float64(max(c, 0))
	}
	if len(e.Counts) != e.Len() || total == 0 {
		return nil, ErrNoBaseCounts
	}
	w := make([]float32, e.Len())
	for i, c := range e.Counts {
		w[i] = float32(float64(a) / (float64(a) + float64(max(c, 0))/total))
	}
	return w, nil
}

// validate checks that the parameters fit the configuration.
func (m *Model) validate() error {
	if err := m.Config.Validate(); err != nil {
		return err
	}
	if m.Vocab == nil {
		return fmt.Errorf("no n-gram vocabulary")
	}
	if m.Vocab.Config() != m.Ngram {
		return fmt.Errorf("n-gram vocabulary built with %+v, the config says %+v", m.Vocab.Config(), m.Ngram)
	}
	d := m.Dim
	for _, c := range []struct {
		name string
		got  int
		want int
	}{{"n-gram table", len(m.Ngrams), m.Vocab.Len() * d}, {"M", len(m.M), d * d}, {"A", len(m.A), d * d}, {"U", len(m.U), m.gateLen()}} {
		if c.got != c.want {
			return fmt.Errorf("%s has %d values, want %d", c.name, c.got, c.want)
		}
	}
	if m.Base != nil && m.Base.Dim != d {
		return fmt.Errorf("base embeddings have dimension %d, the model %d", m.Base.Dim, d)
	}
	return nil
}

// ContextIDs appends the Base ids of tokens to dst, dropping the target word
// and words not in Base. With no Base attached nothing is appended.
func (m *Model) ContextIDs(dst []int32, tokens []string, target string) []int32 {
	if m.Base == nil {
		return dst
	}
	for _, t := range tokens {
		if t == target {
			continue
		}
		if id, ok := m.Base.index.lookup(t); ok {
			dst = append(dst, id)
		}
	}
	return dst
}

// AMSkipBeta is the weight of the AM vector in AM+skip (paper §4.3):
// β(f) = max(0, 1 − f/32) for a word seen f times; the skipgram vector gets
// 1 − β.
func AMSkipBeta(count int64) float32 {
	if count <= 0 {
		return 1
	}
	if count >= 32 {
		return 0
	}
	return 1 - float32(count)/32
}
