package vectorizer

import (
	"context"
	"fmt"
	"runtime"
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
// memory learns the contexts of all texts and counts them as passages
// (learnBatch); then the texts are combined in parallel from their parses,
// so that every vector sees the contexts of the whole batch.
func (v *Vectorizer) batchPassages(ctx context.Context, texts []string, opts Options, vecs [][]float32, errs []error) {
	parses, _, obs, taught := v.prepareBatch(ctx, texts, &opts, errs)
	v.learnBatch(obs, taught, parses, &opts, errs)
	clear(obs) // do not pin the texts
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(texts)) {
		wg.Go(func() {
			w := v.pool.Get().(*work)
			own := w.parsed
			defer func() { w.parsed = own; v.pool.Put(w) }()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(texts) {
					return
				}
				if errs[i] != nil {
					continue
				}
				if errs[i] = ctx.Err(); errs[i] == nil {
					w.parsed = parses[i]
					if errs[i] = v.combine(ctx, w, &opts, nil); errs[i] == nil {
						vecs[i] = append([]float32(nil), w.acc...)
					}
				}
				parses[i] = parsed{} // do not pin the text longer than needed
			}
		})
	}
	wg.Wait()
}

// prepareBatch prepares every text of a batch and keeps its parse in an
// arena, which it returns too; it returns the observations of the texts and
// which texts offered some. Texts that fail get their error in errs.
func (v *Vectorizer) prepareBatch(ctx context.Context, texts []string, o *Options,
	errs []error) (parses []parsed, keep parseArena, obs []memory.Observation, taught []bool) {
	parses = make([]parsed, len(texts))
	taught = make([]bool, len(texts))
	w := v.pool.Get().(*work)
	defer v.pool.Put(w)
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
		if keep.tokens == nil { // size the arena by the first text and the bytes left
			keep.reserve(w, len(t), textBytes(texts[i:]))
		}
		parses[i] = keep.keep(w)
	}
	return parses, keep, obs, taught
}

// passageCounter is a DocFreqStore that counts several passages in one
// call (*memory.Memory: one lock and one log write).
type passageCounter interface {
	CountPassages(passages [][]string) error
}

// learnBatch teaches the memory the observations of a batch (taught[i]:
// text i offered some) in one Remember, then counts every text whose
// contexts the memory took as a passage, in one CountPassages where the
// store has it: what teaching and counting each text in turn does, with one
// lock and one log write per memory for the batch instead of one per text.
// Texts that fail get their error in errs.
func (v *Vectorizer) learnBatch(obs []memory.Observation, taught []bool, parses []parsed, o *Options, errs []error) {
	v.rememberBatch(obs, taught, errs)
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
	a.sentences = make([]string, 0, size(len(w.sentences)))
	a.tokens = make([]string, 0, size(len(w.tokens)))
	a.sentEnd = make([]int, 0, size(len(w.sentEnd)))
	a.tokOff = make([]int32, 0, size(len(w.tokOff)))
	a.info = make([]tokInfo, 0, size(len(w.info)))
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
