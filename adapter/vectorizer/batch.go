package vectorizer

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
)

// parsed is what prepare makes of a text: its sentences and tokens, every
// token classified, and the occurrences of the non-frequent words linked.
type parsed struct {
	sentences []string
	sentEnd   []int     // tokens[sentEnd[i-1]:sentEnd[i]] are the tokens of sentence i
	tokens    []string  // all tokens, sentence after sentence
	tokOff    []int32   // byte offsets of token i in its sentence: tokOff[2i], tokOff[2i+1]
	info      []tokInfo // parallel to tokens
	occHead   map[string]int32
	occ       []occNode
	amWords   int // distinct words of source AM
	// dfDocs > 0: the work's dfs were read while counting this text
	// (countPassageRead), with this passage count. It belongs to the parse,
	// not to the pooled work, so that a kept parse never inherits the counts
	// of another call; keep leaves it 0.
	dfDocs int64
}

// batchPassages is VectorizeBatchContext for TaskPassage. Every text is
// prepared (tokenized and classified) once and its parse kept; then the
// memory learns the contexts of all texts; then, while the memory counts the
// texts as passages, the AM vectors of the batch's words that the memory
// now holds contexts for are inferred in parallel (they do not depend on the
// counts); then the texts are combined in parallel from their parses, so
// that every vector sees the contexts and the counts of the whole batch.
func (v *Vectorizer) batchPassages(ctx context.Context, texts []string, opts Options, vecs [][]float32, errs []error) {
	parses, arenas, obs, taught := v.prepareBatch(ctx, texts, &opts, errs)
	v.rememberBatch(obs, taught, errs)
	clear(obs) // do not pin the texts
	words := v.rememberedWords(parses, &opts, errs)
	var counted sync.WaitGroup
	var p panicked
	counted.Go(func() { p.run(func() { v.countBatch(parses, &opts, errs) }) })
	v.inferWords(ctx, words, &opts)
	counted.Wait()
	p.repanic()
	all := batchVectors(len(texts), v.dim)
	v.inParallel(len(texts), func(w *work, i int) {
		if errs[i] != nil {
			return
		}
		if errs[i] = ctx.Err(); errs[i] == nil {
			w.parsed = parses[i]
			if errs[i] = v.combine(ctx, w, &opts, nil); errs[i] == nil {
				vecs[i] = all[i*v.dim : (i+1)*v.dim : (i+1)*v.dim]
				copy(vecs[i], w.acc)
			}
		}
		parses[i] = parsed{} // do not pin the text longer than needed
	})
	clear(parses)
	for i := range arenas {
		v.putArena(&arenas[i])
	}
}

// batchVectors returns the array that the n vectors of dimension d of one
// batch share: zeroed in one sequential pass, where a new slice per vector
// costs each text the cache misses of writing to memory no cache holds.
func batchVectors(n, d int) []float32 { return make([]float32, n*d) }

// inParallel calls fn(w, i) for every i in [0, n) on min(GOMAXPROCS, n)
// goroutines, each with a work of the pool (whose own parse it gets back),
// and returns when all calls have.
func (v *Vectorizer) inParallel(n int, fn func(w *work, i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	var p panicked
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			p.run(func() {
				w := v.pool.Get().(*work)
				own := w.parsed
				for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
					fn(w, i)
				}
				w.parsed = own
				v.pool.Put(w) // not after a panic: its state is unknown
			})
		})
	}
	wg.Wait()
	p.repanic()
}

// panicked holds the first panic of the goroutines of one call, which the
// call raises again once they are done: a panic (a store's, say) reaches
// the caller, as it would without the goroutines, instead of ending the
// process.
type panicked struct {
	mu  sync.Mutex
	val any
	set bool
}

// run calls fn and records its panic, if any.
func (p *panicked) run(fn func()) {
	defer func() {
		if r := recover(); r != nil {
			p.mu.Lock()
			if !p.set {
				p.val, p.set = r, true
			}
			p.mu.Unlock()
		}
	}()
	fn()
}

// repanic raises the recorded panic, if any; call it after the goroutines are done.
func (p *panicked) repanic() {
	if p.set {
		panic(p.val)
	}
}

// prepareBatch prepares every text of a batch and keeps its parse in an
// arena; it returns the parses, the arenas, the observations of the texts
// and which texts offered some. Texts that fail get their error in errs.
// The texts are prepared in parallel, in runs of consecutive texts of about
// equal bytes, one arena each.
func (v *Vectorizer) prepareBatch(ctx context.Context, texts []string, o *Options,
	errs []error) (parses []parsed, keep []parseArena, obs []memory.Observation, taught []bool) {
	parses = make([]parsed, len(texts))
	taught = make([]bool, len(texts))
	bounds := byteRuns(texts, min(runtime.GOMAXPROCS(0), len(texts)/minPrepareRun))
	keep = make([]parseArena, len(bounds)-1)
	if len(keep) == 1 { // one run: no goroutine
		keep[0], obs = v.prepareTexts(ctx, texts, o, parses, taught, errs)
		return parses, keep, obs, taught
	}
	runObs := make([][]memory.Observation, len(keep))
	var wg sync.WaitGroup
	var p panicked
	for r := range keep {
		wg.Go(func() {
			lo, hi := bounds[r], bounds[r+1]
			p.run(func() {
				keep[r], runObs[r] = v.prepareTexts(ctx, texts[lo:hi], o, parses[lo:hi], taught[lo:hi], errs[lo:hi])
			})
		})
	}
	wg.Wait()
	p.repanic()
	for _, ob := range runObs {
		obs = append(obs, ob...)
	}
	return parses, keep, obs, taught
}

// minPrepareRun is the fewest texts prepareBatch gives a goroutine of its own.
const minPrepareRun = 8

// byteRuns splits texts into at most n (at least 1) runs of consecutive
// texts of about equal bytes: run r is texts[b[r]:b[r+1]] of the returned b.
func byteRuns(texts []string, n int) []int {
	n = max(n, 1)
	total := textBytes(texts)
	b := []int{0}
	sum := 0
	for i, t := range texts {
		sum += len(t)
		if len(b) < n && sum*n >= len(b)*total && i+1 < len(texts) {
			b = append(b, i+1)
		}
	}
	return append(b, len(texts))
}

// prepareTexts is prepareBatch for one run of texts, with its own work and arena.
func (v *Vectorizer) prepareTexts(ctx context.Context, texts []string, o *Options, parses []parsed, taught []bool,
	errs []error) (keep parseArena, obs []memory.Observation) {
	w := v.pool.Get().(*work)
	keep = v.getArena()
	reserved := false
	for i, t := range texts {
		if errs[i] = ctx.Err(); errs[i] != nil {
			continue
		}
		v.prepare(w, t, o)
		if errs[i] = checkAMWords(w, o); errs[i] != nil {
			continue
		}
		n := len(obs)
		obs = v.observations(obs, w)
		taught[i] = len(obs) > n
		if !reserved { // size the arena by the first text and the bytes left
			keep.reserve(w, len(t), textBytes(texts[i:]))
			reserved = true
		}
		parses[i] = keep.keep(w)
	}
	v.pool.Put(w) // not after a panic: its state is unknown
	return keep, obs
}

// passageCounter is a DocFreqStore that counts several passages in one
// call (*memory.Memory: one lock and one log write). As with CountPassage,
// the strings of passages may be reused once the call returns.
type passageCounter interface {
	CountPassages(passages [][]string) error
}

// countBatch counts every text of a batch whose contexts the memory took
// (rememberBatch) as a passage, in one CountPassages where the store has it:
// what counting each text in turn does, with one lock and one log write per
// memory for the batch instead of one per text. Texts that fail get their
// error in errs.
func (v *Vectorizer) countBatch(parses []parsed, o *Options, errs []error) {
	if o.Weighting != WeightSIFCollection {
		return
	}
	pc, batched := v.df.(passageCounter)
	batched = batched && v.ram == nil && !v.store.ReadOnly()
	var index []int // the texts counted in one call
	for i, p := range parses {
		switch {
		case errs[i] != nil || len(p.tokens) == 0:
		case batched:
			index = append(index, i)
		default:
			errs[i] = v.count(p.tokens, p.info)
		}
	}
	if len(index) == 0 {
		return
	}
	passages := make([][]string, len(index))
	for k, i := range index {
		passages[k] = parses[i].tokens
	}
	var err error
	if v.dfRows != nil {
		err = v.dfRows.mem.CountPassagesRows(passages, v.dfRows.table, batchRows(parses, index))
	} else {
		err = pc.CountPassages(passages)
	}
	if err != nil {
		err = fmt.Errorf("count passage: %w", err)
		for _, i := range index {
			errs[i] = err
		}
	}
}

// rememberBatch teaches the memory obs in one Remember; when it fails, each
// text that offered some (taught) gets the error in errs.
func (v *Vectorizer) rememberBatch(obs []memory.Observation, taught []bool, errs []error) {
	if len(obs) == 0 {
		return
	}
	if err := v.store.Remember(obs); err != nil {
		err = fmt.Errorf("remember contexts: %w", err)
		for i := range errs {
			if taught[i] && errs[i] == nil {
				errs[i] = err
			}
		}
	}
}

// batchRows returns the base rows of the tokens of parses[i] for each i
// of index, in one array of their total length.
func batchRows(parses []parsed, index []int) [][]int32 {
	total := 0
	for _, i := range index {
		total += len(parses[i].info)
	}
	arena := make([]int32, 0, total)
	rows := make([][]int32, len(index))
	for k, i := range index {
		start := len(arena)
		arena = appendRows(arena, parses[i].info)
		rows[k] = arena[start:len(arena):len(arena)]
	}
	return rows
}

// parseArena holds the parses of a batch in a few shared arrays (a fresh
// set of slices per text would cost more allocation than tokenizing twice).
// Once the batch is done the arrays go back to the vectorizer's arenas for
// the next batch (putArena, getArena).
type parseArena struct {
	sentences, tokens []string
	sentEnd           []int
	tokOff            []int32
	info              []tokInfo
	occ               []occNode
}

// reserve sizes the arena for parses of rest bytes of text like the one
// in w of n bytes, plus a quarter: each array in proportion to the bytes,
// so that a long text followed by short ones reserves no more than the
// batch's bytes call for.
func (a *parseArena) reserve(w *work, n, rest int) {
	size := func(first int) int {
		m := first * rest / max(n, 1)
		return m + m/4
	}
	a.sentences = slices.Grow(a.sentences[:0], size(len(w.sentences)))
	a.tokens = slices.Grow(a.tokens[:0], size(len(w.tokens)))
	a.sentEnd = slices.Grow(a.sentEnd[:0], size(len(w.sentEnd)))
	a.tokOff = slices.Grow(a.tokOff[:0], size(len(w.tokOff)))
	a.info = slices.Grow(a.info[:0], size(len(w.info)))
}

// getArena returns an arena of a finished batch, or an empty one.
func (v *Vectorizer) getArena() parseArena {
	if a, ok := v.arenas.Get().(*parseArena); ok {
		return *a
	}
	return parseArena{}
}

// putArena gives the arrays of a's finished batch to the next one. Its
// strings are cleared first, so that a pooled arena pins no text; the other
// arrays hold no pointers.
func (v *Vectorizer) putArena(a *parseArena) {
	if a.tokens == nil {
		return // no text was kept
	}
	clear(a.sentences)
	clear(a.tokens)
	a.sentences, a.tokens, a.sentEnd = a.sentences[:0], a.tokens[:0], a.sentEnd[:0]
	a.tokOff, a.info, a.occ = a.tokOff[:0], a.info[:0], a.occ[:0]
	v.arenas.Put(a)
}

// textBytes is the total length of texts.
func textBytes(texts []string) int {
	n := 0
	for _, t := range texts {
		n += len(t)
	}
	return n
}

// keep copies the parse of w into the arena and returns the copy; w keeps
// its buffers, but its map of occurrences (when it has one) moves to the copy.
func (a *parseArena) keep(w *work) parsed {
	p := parsed{amWords: w.amWords}
	a.sentences, p.sentences = appendKept(a.sentences, w.sentences)
	a.tokens, p.tokens = appendKept(a.tokens, w.tokens)
	a.sentEnd, p.sentEnd = appendKept(a.sentEnd, w.sentEnd)
	a.tokOff, p.tokOff = appendKept(a.tokOff, w.tokOff)
	a.info, p.info = appendKept(a.info, w.info)
	a.occ, p.occ = appendKept(a.occ, w.occ)
	if len(w.occHead) > 0 {
		p.occHead, w.occHead = w.occHead, nil
	}
	return p
}

// appendKept appends src to arena and returns the arena and the appended
// part (its capacity cut, so that appending to it never writes into the arena).
func appendKept[T any](arena, src []T) ([]T, []T) {
	start := len(arena)
	arena = append(arena, src...)
	return arena, arena[start:len(arena):len(arena)]
}

// rememberedWord is a word of a batch and its remembered contexts, at the
// memory's version of them.
type rememberedWord struct {
	word     string
	contexts []string
	version  uint64
}

// rememberedWords returns the distinct AM words of the parses of a batch
// (those of texts without an error) that the memory holds contexts for and
// whose vector from them the cache does not hold, each with those contexts.
// Combining a text takes a word's vector from the cache only when the word's
// contexts there are the remembered ones alone; otherwise (with
// MixTextContexts, a window of the text the memory did not keep) the word is
// inferred again as the text is combined.
func (v *Vectorizer) rememberedWords(parses []parsed, o *Options, errs []error) []rememberedWord {
	if v.store == nil || o.MaxContexts <= 0 {
		return nil
	}
	var words []rememberedWord
	var texts []string // the contexts of all words, in one array
	seen := make(map[string]bool)
	for i, p := range parses {
		if errs[i] != nil {
			continue
		}
		for j, t := range p.tokens {
			if p.info[j].kind != kindAM || seen[t] || v.charWord(t) {
				continue
			}
			seen[t] = true
			start := len(texts)
			var version uint64
			texts, version = v.rememberedContexts(texts, t, o)
			if len(texts) == start {
				continue
			}
			if _, hit, _ := v.cache.get(cacheKey{word: t, maxCtx: o.MaxContexts}, version); hit {
				texts = texts[:start]
				continue
			}
			words = append(words, rememberedWord{word: t, contexts: texts[start:len(texts):len(texts)], version: version})
		}
	}
	return words
}

// inferWords infers the AM vector of every word of words from its
// remembered contexts into the cache, in parallel.
func (v *Vectorizer) inferWords(ctx context.Context, words []rememberedWord, o *Options) {
	v.inParallel(len(words), func(w *work, i int) {
		if ctx.Err() != nil {
			return
		}
		r := words[i]
		w.ctxTexts = append(w.ctxTexts[:0], r.contexts...)
		w.ctxRem, w.ctxWin, w.amVecs = len(r.contexts), w.ctxWin[:0], w.amVecs[:0]
		v.inferGathered(w, r.word, o, r.version, true, nil, nil)
		w.amVecs = w.amVecs[:0]
	})
}
