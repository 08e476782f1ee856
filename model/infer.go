package model

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/text2vec-am/text2vec-am/simd"
)

// rhoEpsilon is added to the attention's normaliser Σ_jk s(C_j, C_k), as the
// reference implementation does (tf.div(match_scores, summed + 1e-9)).
const rhoEpsilon = 1e-9

// Workspace holds the scratch memory of one inference (and what Backward
// needs of it). It is not safe for concurrent use: give each goroutine its
// own. After the first calls have grown it, Infer does not allocate.
type Workspace struct {
	dim int

	// State of the last Infer, read by Backward.
	valid     bool
	mode      Mode
	formOnly  bool    // no usable context
	alpha     float32 // the gate
	scale     float32 // ScaleGate's factor of the gate
	formGiven bool    // the form came from InferForm: ws.ids does not hold its n-grams
	bucket    int     // the gate's count bucket (with Config.CountBuckets > 0)
	agree     float32 // the contexts' agreement (with Config.GateAgreement)
	cover     float32 // the form's coverage (Form; its shortfall is the gate's input with Config.GateCoverage)
	den       float64 // max(Σ num_i, 0) + ε (AM)
	clamped   bool    // Σ num_i was ≤ 0 and was replaced by 0

	ids    []int32   // n-gram ids of the word
	keep   []bool    // when set (KeepNgrams), the form uses only the n-grams it marks
	gram   []float32 // when set (UseGram), MᵀM
	mass   []float64 // when set (LeaveOut), per n-gram the summed counts of the words that have it
	self   float64   // LeaveOut: the count of the word whose form is inferred
	share  float64   // LeaveOut: n-grams of which self holds more than this are left out
	counts []int32   // words per context
	cw     []float32 // the weights of one context's words (Config.ContextSIF)
	means  []float32 // contexts × dim: v_Ci
	num    []float32 // per context: Σ_j s(C_i, C_j)
	rho    []float32 // per context: ρ_i
	form   []float32 // v_form
	sum    []float32 // S = Σ v_Ci
	ms     []float32 // M·S
	t      []float32 // Mᵀ·M·S
	ctx    []float32 // v_ctx = Σ ρ_i v_Ci
	actx   []float32 // A·v_ctx
	usum   []float32 // Σ v_Ci/|v_Ci| (GateAgreement)
	out    []float32 // the output v

	// Backward scratch.
	gv, dctx, dform, w, mw []float32
	drho                   []float32
}

// NewWorkspace returns a workspace for m's dimension.
func (m *Model) NewWorkspace() *Workspace {
	d := m.Dim
	vec := make([]float32, 13*d)
	next := func() []float32 {
		v := vec[:d:d]
		vec = vec[d:]
		return v
	}
	return &Workspace{dim: d, scale: 1,
		form: next(), sum: next(), ms: next(), t: next(), ctx: next(), actx: next(), usum: next(), out: next(),
		gv: next(), dctx: next(), dform: next(), w: next(), mw: next()}
}

// KeepNgrams makes every later Infer with ws build a word's form from the
// n-grams whose id keep marks (keep has one entry per n-gram of the model's
// vocabulary, or Infer panics; nil: all of them), or from all of the word's
// n-grams when keep marks none of them. Training uses it to give a word
// about the form it would have if it were new: without the n-grams only it
// has, which were trained on its own contexts (amtrain's SharedForm).
func (ws *Workspace) KeepNgrams(keep []bool) { ws.keep = keep }

// ScaleGate makes every later Infer with ws multiply AM's gate α by s, 0 ≤ s
// ≤ 1 (1, a new workspace's, is the model's own gate): the vector moves toward
// the form, α·s·A·v_ctx + (1 − α·s)·v_form, and the Explanation gives α·s.
// Serving lowers it for a word whose only contexts are the sentences of the
// text being vectorized, which the text's vector holds already. Backward
// panics after an Infer with s ≠ 1.
func (ws *Workspace) ScaleGate(s float32) { ws.scale = s }

// UseGram makes every later Infer with ws compute the attention's MᵀM·S as
// g·S, one mat-vec instead of two: g is AttentionGram's of the same model,
// whose M must not change afterwards (nil: M·S, then Mᵀ of it). The vector is
// Infer's up to float32 rounding. Serving uses it; Backward panics after an
// Infer with g set, as it needs M·S.
func (ws *Workspace) UseGram(g []float32) {
	if g != nil && len(g) != ws.dim*ws.dim {
		panic(fmt.Sprintf("model.UseGram: %d values, want %d×%d", len(g), ws.dim, ws.dim))
	}
	ws.gram = g
}

// AttentionGram returns MᵀM (Dim×Dim, row-major, symmetric), summed in
// float64 from the model's M as it is now, for Workspace.UseGram; nil for
// a model without AM's attention.
func (m *Model) AttentionGram() []float32 {
	if !m.Mode.attentive() {
		return nil
	}
	d := m.Dim
	acc := make([]float64, d*d)
	for k := range d {
		row := m.M[k*d : (k+1)*d]
		for i, a := range row {
			gi := acc[i*d : (i+1)*d]
			for j := i; j < d; j++ {
				gi[j] += float64(a) * float64(row[j])
			}
		}
	}
	g := make([]float32, d*d)
	for i := range d {
		for j := i; j < d; j++ {
			g[i*d+j] = float32(acc[i*d+j])
			g[j*d+i] = g[i*d+j]
		}
	}
	return g
}

// LeaveOut makes every later Infer with ws also leave out of the form the
// n-grams of which a word of count self holds more than share of the
// occurrences, those with self > share·mass[id] (mass has one entry per
// n-gram of the model's vocabulary, or Infer panics: the summed counts of the
// words that have it; nil mass or a share ≤ 0: none left out), among those the
// KeepNgrams rule keeps. When the word holds more than share of every one of
// them, the form keeps those it holds least (the largest mass), so a smaller
// share never gives back an n-gram a larger one left out. The unknown n-gram
// (UnknownNgram) is never left out. Training sets self
// to each training word's count in turn (amtrain's FormShare): the n-grams
// whose occurrences are mostly that word's were trained mostly on its own
// contexts, which a new word's never were.
func (ws *Workspace) LeaveOut(mass []float64, self, share float64) {
	ws.mass, ws.self, ws.share = mass, self, share
}

// Holds reports whether a word of count self holds more than share of an
// n-gram whose words' counts sum to mass: LeaveOut's rule.
func Holds(self, share, mass float64) bool { return self > share*mass }

// formNgrams filters ids in place to those keep marks (all when keep is nil
// or marks none of them) and, when mass is set and share > 0, to those of
// which a word of count self holds at most share of mass, or, when it holds
// more of all of them, to those of the largest mass. The unknown n-gram
// (UnknownNgram) takes no part in that choice and stays wherever keep keeps it.
func formNgrams(ids []int32, keep []bool, mass []float64, self, share float64) []int32 {
	keep = keepOf(ids, keep)
	kept := func(id int32) bool { return keep == nil || keep[id] }
	if mass == nil || share <= 0 {
		if keep != nil {
			return filterIDs(ids, kept)
		}
		return ids
	}
	if holdsAll(ids, keep, mass, self, share) {
		top := leastHeld(ids, kept, mass)
		return filterIDs(ids, func(id int32) bool { return kept(id) && (id == UnknownNgram || mass[id] == top) })
	}
	return filterIDs(ids, func(id int32) bool { return kept(id) && (id == UnknownNgram || !Holds(self, share, mass[id])) })
}

// HoldsAll reports whether a word of count self holds more than share of
// every n-gram of ids that keep marks (of all of them when keep is nil or
// marks none), the unknown n-gram aside, and has at least one such n-gram:
// then LeaveOut leaves it those it holds least.
func HoldsAll(ids []int32, keep []bool, mass []float64, self, share float64) bool {
	return holdsAll(ids, keepOf(ids, keep), mass, self, share)
}

// holdsAll is HoldsAll for a keep that keepOf has already applied to ids.
func holdsAll(ids []int32, keep []bool, mass []float64, self, share float64) bool {
	held := false
	for _, id := range ids {
		if id == UnknownNgram || !(keep == nil || keep[id]) {
			continue
		}
		if !Holds(self, share, mass[id]) {
			return false
		}
		held = true
	}
	return held
}

// keepOf returns keep, or nil when keep marks none of ids (KeepNgrams: then
// all of them count).
func keepOf(ids []int32, keep []bool) []bool {
	if keep != nil && !slices.ContainsFunc(ids, func(id int32) bool { return keep[id] }) {
		return nil
	}
	return keep
}

// leastHeld returns the largest mass of the ids kept marks, the unknown
// n-gram aside (a word holds the least of those n-grams); -1 when there is none.
func leastHeld(ids []int32, kept func(int32) bool, mass []float64) float64 {
	top := -1.0
	for _, id := range ids {
		if id != UnknownNgram && kept(id) && mass[id] > top {
			top = mass[id]
		}
	}
	return top
}

// filterIDs keeps, in place, the ids kept returns true for.
func filterIDs(ids []int32, kept func(int32) bool) []int32 {
	out := ids[:0]
	for _, id := range ids {
		if kept(id) {
			out = append(out, id)
		}
	}
	return out
}

// grow sizes the per-context buffers for n contexts.
func (ws *Workspace) grow(n int) {
	if cap(ws.counts) < n {
		c := max(n, 2*cap(ws.counts))
		ws.counts = make([]int32, c)
		ws.num = make([]float32, c)
		ws.rho = make([]float32, c)
		ws.drho = make([]float32, c)
		ws.means = make([]float32, c*ws.dim)
	}
	ws.counts = ws.counts[:n]
	ws.num = ws.num[:n]
	ws.rho = ws.rho[:n]
	ws.drho = ws.drho[:n]
	ws.means = ws.means[:n*ws.dim]
}

// Explanation says how an inferred vector came about.
type Explanation struct {
	// Alpha is the gate α, the weight of the context part (0 in form-only
	// mode and when there was no usable context; 1 in context-only modes).
	Alpha float32
	// Rho is the weight of each context given, in order (AM's reliability;
	// for FCM the context's share of all context words; 0 for a context
	// without known words). It is owned by the Workspace and overwritten by
	// the next Infer.
	Rho []float32
	// FormOnly is set when no context had a known word (or the model is
	// form-only): the form embedding was returned — or, in the context-only
	// modes, the zero vector, as the reference implementation does.
	FormOnly bool
}

// Infer writes the embedding of word, inferred from its surface form and its
// contexts (each a list of Base ids, target word excluded; see ContextIDs),
// to dst (len Dim). It panics when dst has the wrong length, when a context
// id is outside Base, or when ws belongs to a model of another dimension.
func (m *Model) Infer(ws *Workspace, word string, contexts [][]int32, dst []float32) Explanation {
	m.checkInfer(ws, dst, "Infer")
	m.form(ws, word)
	ws.formGiven = false
	return m.inferContexts(ws, contexts, dst)
}

// Form writes v_form of word to dst (len Dim): the part of Infer that
// depends on the word alone (the mean of its n-grams' rows; zeros in the
// context-only modes), with ws's KeepNgrams and LeaveOut settings, and
// returns the form's coverage: the share of the word's character n-grams
// (NgramVocab.Count) that the form takes from the n-gram table, whose
// shortfall below CoverageKnee is the gate's input with Config.GateCoverage
// (0 without it, and in the context-only modes). A caller that infers the same word again and again
// keeps both and passes them to InferForm.
func (m *Model) Form(ws *Workspace, word string, dst []float32) (coverage float32) {
	m.checkInfer(ws, dst, "Form")
	m.form(ws, word)
	copy(dst, ws.form)
	return ws.cover
}

// InferForm is Infer with the word's form and its coverage given: what
// Form gives for the word with ws's settings, and the result is then
// Infer's to the last bit. Backward panics after it (the form's n-grams are
// not known).
func (m *Model) InferForm(ws *Workspace, form []float32, coverage float32, contexts [][]int32, dst []float32) Explanation {
	m.checkInfer(ws, dst, "InferForm")
	if len(form) != m.Dim {
		panic(fmt.Sprintf("model.InferForm: form has length %d, the model's dimension is %d", len(form), m.Dim))
	}
	ws.valid = false
	copy(ws.form, form)
	ws.cover = coverage
	ws.ids = ws.ids[:0]
	ws.formGiven = true
	return m.inferContexts(ws, contexts, dst)
}

// checkInfer panics when dst or ws do not fit m (fn names the caller).
func (m *Model) checkInfer(ws *Workspace, dst []float32, fn string) {
	d := m.Dim
	if len(dst) != d || ws.dim != d {
		panic(fmt.Sprintf("model.%s: dst has length %d and the workspace dimension %d, the model's dimension is %d",
			fn, len(dst), ws.dim, d))
	}
	if ws.keep != nil && len(ws.keep) != m.Vocab.Len() {
		panic(fmt.Sprintf("model.%s: the workspace keeps n-grams of a vocabulary of %d, the model has %d",
			fn, len(ws.keep), m.Vocab.Len()))
	}
	if ws.mass != nil && len(ws.mass) != m.Vocab.Len() {
		panic(fmt.Sprintf("model.%s: the workspace leaves out n-grams of a vocabulary of %d, the model has %d",
			fn, len(ws.mass), m.Vocab.Len()))
	}
}

// form computes v_form of word into ws.form, its n-gram ids into ws.ids and
// its coverage into ws.cover.
func (m *Model) form(ws *Workspace, word string) {
	ws.valid = false // until Infer completes
	if !m.Mode.UsesForm() {
		ws.ids = ws.ids[:0]
		ws.cover = 0
		clear(ws.form)
		return
	}
	ws.ids = m.Vocab.AppendIDs(ws.ids[:0], word)
	ws.ids = formNgrams(ws.ids, ws.keep, ws.mass, ws.self, ws.share)
	ws.cover = 0
	if m.GateCoverage {
		ws.cover = knownShare(ws.ids, m.Vocab.Count(word))
	}
	simd.GatherSum(ws.form, m.Ngrams, ws.ids)
	simd.Scale(1/float32(len(ws.ids)), ws.form)
}

// Coverage returns the share of word's character n-grams (NgramVocab.Count)
// that the model's n-gram table holds: how much of its spelling its form can
// draw on, what Form returns for it from a model with Config.GateCoverage
// and a workspace without KeepNgrams or LeaveOut. It is 0 for a model without
// a form.
func (m *Model) Coverage(word string) float32 {
	if !m.Mode.UsesForm() {
		return 0
	}
	var stack [128]int32
	return knownShare(m.Vocab.AppendIDs(stack[:0], word), m.Vocab.Count(word))
}

// knownShare returns the share of n n-grams that ids, a word's n-gram ids,
// holds other than UnknownNgram (0 when n is 0).
func knownShare(ids []int32, n int) float32 {
	known := 0
	for _, id := range ids {
		if id != UnknownNgram {
			known++
		}
	}
	return float32(known) / float32(max(n, 1))
}

// inferContexts is Infer once ws.form holds the word's form: the context
// means, the attention, A and the gate (the paper's equations in order).
func (m *Model) inferContexts(ws *Workspace, contexts [][]int32, dst []float32) Explanation {
	d := m.Dim
	ws.mode = m.Mode
	ws.formOnly = false
	ws.alpha = 0
	ws.agree = 0
	ws.grow(len(contexts))
	clear(ws.rho)

	total := 0
	if m.Mode.usesContext() {
		total = m.contextMeans(ws, contexts)
	}
	if total == 0 {
		ws.formOnly = true
		copy(ws.out, ws.form) // zeros in the context-only modes
		copy(dst, ws.out)
		ws.valid = true
		return Explanation{Rho: ws.rho, FormOnly: true}
	}

	if m.Mode.attentive() {
		m.attention(ws)
	} else {
		inv := 1 / float32(total)
		for i, n := range ws.counts {
			ws.rho[i] = float32(n) * inv
		}
	}
	simd.WeightedSum(ws.ctx, ws.rho, ws.means)
	simd.MatVec(ws.actx, m.A, d, d, ws.ctx)

	if m.Mode.Gated() {
		a := float32(1/(1+math.Exp(-m.gateInput(ws)))) * ws.scale
		ws.alpha = a
		for k := range ws.out {
			ws.out[k] = a*ws.actx[k] + (1-a)*ws.form[k]
		}
	} else {
		ws.alpha = 1
		copy(ws.out, ws.actx)
	}
	copy(dst, ws.out)
	ws.valid = true
	return Explanation{Alpha: ws.alpha, Rho: ws.rho}
}

// gateInput returns the gate's logit z = U·[v_ctx; v_form; onehot(bucket); a; s(c)] + B, s the
// coverage's shortfall, and records the count bucket and the agreement a in ws.
func (m *Model) gateInput(ws *Workspace) float64 {
	d := m.Dim
	z := float64(simd.Dot(m.U[:d], ws.ctx)) + float64(simd.Dot(m.U[d:2*d], ws.form)) + float64(m.B)
	if m.CountBuckets > 0 {
		k := 0
		for _, n := range ws.counts {
			if n > 0 {
				k++
			}
		}
		ws.bucket = CountBucket(k, m.CountBuckets)
		z += float64(m.U[2*d+ws.bucket])
	}
	if m.GateAgreement {
		ws.agree = agreement(ws.usum, ws.means, ws.counts, d)
		z += float64(m.U[m.agreementIndex()]) * float64(ws.agree)
	}
	if m.GateCoverage {
		z += float64(m.U[m.coverageIndex()]) * float64(coverageShortfall(ws.cover))
	}
	return z
}

// Agreement returns the contexts' agreement the gate of a model with
// Config.GateAgreement sees: the mean cosine between the means of two distinct
// contexts, over the contexts that have a known word (each a list of Base
// ids, as Infer takes them), 0 with fewer than two of them.
func (m *Model) Agreement(contexts [][]int32) float32 {
	ws := m.NewWorkspace()
	ws.grow(len(contexts))
	m.contextMeans(ws, contexts)
	return agreement(ws.usum, ws.means, ws.counts, m.Dim)
}

// agreement returns the mean pairwise cosine of the non-zero context means
// (means holds one row of d per entry of counts, a context without known
// words has count 0): with û_i = v_Ci/|v_Ci| over the k such contexts,
// Σ_{i≠j} û_i·û_j / (k(k − 1)) = (|Σ û_i|² − k) / (k(k − 1)), in one pass
// over the means (usum, of length d, is scratch). It is 0 when k < 2.
func agreement(usum, means []float32, counts []int32, d int) float32 {
	clear(usum)
	k := 0
	for i, n := range counts {
		v := means[i*d : (i+1)*d]
		if n == 0 {
			continue
		}
		norm := math.Sqrt(float64(simd.Dot(v, v)))
		if norm == 0 {
			continue
		}
		simd.Axpy(float32(1/norm), v, usum)
		k++
	}
	if k < 2 {
		return 0
	}
	s := float64(simd.Dot(usum, usum))
	return float32((s - float64(k)) / float64(k*(k-1)))
}

// contextMeans fills ws.means and ws.counts and returns the number of known
// context words in all contexts.
func (m *Model) contextMeans(ws *Workspace, contexts [][]int32) int {
	d := m.Dim
	total := 0
	for i, ids := range contexts {
		mean := ws.means[i*d : (i+1)*d]
		n := 0
		if m.Base != nil {
			n = len(ids)
		}
		ws.counts[i] = int32(n)
		if n == 0 {
			clear(mean)
			continue
		}
		ws.cw = m.contextMean(mean, ids, ws.cw)
		total += n
	}
	return total
}

// contextMean writes to dst the mean of the Base rows ids (not empty), each
// weighted by its Config.ContextSIF weight when the model has them (w is
// scratch for the weights, returned grown). It panics on an id outside Base.
func (m *Model) contextMean(dst []float32, ids []int32, w []float32) []float32 {
	table := m.Base.Vectors
	if m.ctxW == nil {
		simd.GatherSum(dst, table, ids)
		simd.Scale(1/float32(len(ids)), dst)
		return w
	}
	w = slices.Grow(w[:0], len(ids))[:len(ids)]
	var sum float32
	for j, id := range ids {
		w[j] = m.ctxW[id]
		sum += w[j]
	}
	clear(dst)
	simd.GatherAxpy(dst, table, ids, w)
	simd.Scale(1/sum, dst)
	return w
}

// ContextMean writes to dst (len Dim) the vector v_C of one context, the
// (Config.ContextSIF-weighted) mean of the Base rows ids as Infer computes
// it, and reports false, dst cleared, when ids is empty or no Base is
// attached. It panics on an id outside Base.
func (m *Model) ContextMean(dst []float32, ids []int32) bool {
	if len(dst) != m.Dim {
		panic(fmt.Sprintf("model.ContextMean: dst has length %d, the model's dimension is %d", len(dst), m.Dim))
	}
	if len(ids) == 0 || m.Base == nil {
		clear(dst)
		return false
	}
	m.contextMean(dst, ids, nil)
	return true
}

// attention computes AM's reliability ρ_i = Σ_j s(C_i,C_j) / Σ_jk s(C_j,C_k)
// with s(a,b) = (M v_a)·(M v_b)/√d. Since Σ_j s(C_i,C_j) = v_i·(MᵀM S)/√d
// with S = Σ_j v_j, this costs two d×d mat-vecs and m dot products.
func (m *Model) attention(ws *Workspace) {
	d := m.Dim
	clear(ws.sum)
	for i, n := range ws.counts {
		if n > 0 {
			simd.Add(ws.sum, ws.means[i*d:(i+1)*d])
		}
	}
	if ws.gram != nil {
		simd.MatVec(ws.t, ws.gram, d, d, ws.sum)
	} else {
		simd.MatVec(ws.ms, m.M, d, d, ws.sum)
		simd.MatTVec(ws.t, m.M, d, d, ws.ms)
	}
	invSqrt := float32(1 / math.Sqrt(float64(d)))
	var z float64
	for i, n := range ws.counts {
		if n == 0 {
			ws.num[i] = 0
			continue
		}
		ws.num[i] = simd.Dot(ws.means[i*d:(i+1)*d], ws.t) * invSqrt
		z += float64(ws.num[i])
	}
	// Mathematically Σ num_i = |M S|²/√d ≥ 0; rounding can make it slightly
	// negative. The reference adds 1e-9, which keeps ρ finite.
	ws.clamped = z < 0
	if ws.clamped {
		z = 0
	}
	ws.den = z + rhoEpsilon
	inv := 1 / ws.den
	for i := range ws.num {
		ws.rho[i] = float32(float64(ws.num[i]) * inv)
	}
}

// Query is one word and its contexts (Base ids) for InferBatch.
type Query struct {
	Word     string
	Contexts [][]int32
}

// InferBatch infers the embedding of every query into dst[i] (each of length
// Dim), in parallel over GOMAXPROCS goroutines, each with its own Workspace:
// it allocates per call (goroutines and workspaces), never per query.
func (m *Model) InferBatch(queries []Query, dst [][]float32) {
	if len(dst) != len(queries) {
		panic(fmt.Sprintf("model.InferBatch: %d queries but %d destinations", len(queries), len(dst)))
	}
	workers := min(runtime.GOMAXPROCS(0), len(queries))
	if workers <= 1 {
		if len(queries) > 0 {
			ws := m.NewWorkspace()
			for i, q := range queries {
				m.Infer(ws, q.Word, q.Contexts, dst[i])
			}
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws := m.NewWorkspace()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(queries) {
					return
				}
				m.Infer(ws, queries[i].Word, queries[i].Contexts, dst[i])
			}
		}()
	}
	wg.Wait()
}
