// Package vectorizer turns a text into one vector: every word gets a vector by
// its source — its base row for frequent words, the serving bundle's AM+skip
// row for known rare words, and Attentive Mimicking from its form and contexts
// (the sentences of the text that contain it plus the contexts remembered for
// it) for words the model has never seen — and the word vectors are combined
// with sif-collection weights (SIF a/(a + p(w)) times b/(b + df(w)/N) over the
// passages counted so far; see WeightSIFCollection), plain SIF or a plain
// mean, and L2-normalized.
//
// A text whose words all yield nothing (no words, or only words without a
// vector) is an error, ErrNoWords: the vectorizer never returns a zero or NaN
// vector. The package does not import Weaviate; both the HTTP server (adapter)
// and the in-process Weaviate module use it.
package vectorizer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/internal/prefetch"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/simd"
)

// ContextStore is the context memory as the vectorizer sees it;
// *memory.Memory satisfies it.
type ContextStore interface {
	// Remember offers observations (word, sentence) to the memory.
	Remember(obs []memory.Observation) error
	// Contexts appends the remembered contexts of word to dst; version
	// changes whenever they change.
	Contexts(dst []string, word string) ([]string, uint64)
	// ReadOnly reports whether Remember must not be called.
	ReadOnly() bool
}

// ErrNoWords reports a text with no word that yields a vector.
var ErrNoWords = errors.New("the text has no word that yields a vector")

// ErrTooManyAMWords reports a text with more distinct words needing AM
// inference than Options.MaxAMWords allows; nothing of it was done.
var ErrTooManyAMWords = errors.New("too many distinct words that need AM inference")

// Source says where a word's vector came from.
type Source string

const (
	// SourceBase is the word's base embedding (a frequent word).
	SourceBase Source = "base"
	// SourceAMSkip is the serving bundle's precomputed AM+skip vector (a known rare word).
	SourceAMSkip Source = "amskip"
	// SourceAM is Attentive Mimicking from the word's form and contexts.
	SourceAM Source = "am"
	// SourceChars is the character vector of a word AM gives none (see
	// charVector): a word of a script the model never saw.
	SourceChars Source = "chars"
	// SourceDropped marks a word that yielded no vector.
	SourceDropped Source = "dropped"
)

// cacheEntries bounds the cache of AM vectors of remembered words.
const cacheEntries = 16384

// Vectorizer turns texts into vectors. It is safe for concurrent use.
type Vectorizer struct {
	m         *model.Model
	base      *model.Embeddings
	tok       model.Tokenizer
	store     ContextStore
	opts      Options
	dim       int
	hasCounts bool
	total     float64   // sum of base counts
	rows      []rowMeta // count, SIF weight at opts.SIFA and zero flag of each base row
	// pool holds the scratch works, shared with the vectorizers WithStores
	// makes of this one: a work depends on the model only, and a view made
	// per request would otherwise grow new works' buffers each time.
	pool *sync.Pool
	// arenas holds the parse arenas of finished batches (*parseArena), shared
	// like pool: a batch reuses their arrays instead of zeroing new ones.
	arenas   *sync.Pool
	cache    *amCache
	ctxCache *contextIDCache // token ids of remembered contexts (nil: tokenize each time)
	// ctxScope is the address of the store when it is a *memory.Memory,
	// whose contexts are strings of its own (never a caller's memory), so
	// that ctxCache may keep them; 0 for any other store (see readingKey).
	ctxScope uintptr
	// df holds the collection statistics of WeightSIFCollection: the store
	// when it is a DocFreqStore (dfInStore), else a memory of its own in RAM.
	df        DocFreqStore
	dfInStore bool
	dfRows    *rowDocFreqs // df found by base row (nil: by word only)
	gram      []float32    // the model's MᵀM, which every work's Workspace uses
	ram       *ramDocFreq  // df when it is the vectorizer's own (counted by base row)
	charScale float32      // the norm of character vectors (meanRowNorm)
	common    *commonSpace // what every text vector shares (Options.CommonComponents)
	seen      runeSet      // the runes of the model's n-grams and words
	chars     bool         // words AM gives nothing get character vectors (a model with a form)

	cnt *counters // shared with the vectorizers WithStores makes of this one
}

// counters are the cumulative counts Stats reports.
type counters struct {
	nBase, nAMSkip, nAM, nDropped atomic.Int64
	inferences, hits, misses      atomic.Int64
}

// New returns a vectorizer over m (which must have base embeddings). store is
// the context memory (nil: none); opts are the defaults of every call.
func New(m *model.Model, store ContextStore, opts Options) (*Vectorizer, error) {
	if m == nil || m.Base == nil {
		return nil, errors.New("new vectorizer: the model has no base embeddings")
	}
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("new vectorizer: %w", err)
	}
	if m.Base.Dim != m.Dim {
		return nil, fmt.Errorf("new vectorizer: base embeddings have dimension %d, the model %d", m.Base.Dim, m.Dim)
	}
	v := &Vectorizer{
		m:        m,
		base:     m.Base,
		tok:      m.Tokenizer,
		store:    store,
		opts:     opts,
		dim:      m.Dim,
		cache:    newAMCache(),
		ctxCache: newContextIDCache(contextIDBytes),
		cnt:      &counters{},
	}
	v.ctxScope = readingScope(store)
	if ds, ok := store.(DocFreqStore); ok {
		v.df, v.dfInStore = ds, true
		v.dfRows = newRowDocFreqs(store, m.Base.Len())
	} else {
		v.ram = newRAMDocFreq(v)
		v.df = v.ram
	}
	if m.Base.Counts != nil {
		v.hasCounts = true
		for _, c := range m.Base.Counts {
			v.total += float64(max(c, 0))
		}
		if v.total == 0 {
			v.hasCounts = false
		}
	}
	v.rows = v.newRowMeta(m.Base)
	v.common = newCommonSpace(m.Base, v.rows, v.hasCounts)
	if opts.CommonComponents > 0 {
		if err := v.common.ready(); err != nil {
			return nil, fmt.Errorf("new vectorizer: %w", err)
		}
	}
	v.charScale = v.meanRowNorm()
	v.seen = v.newRuneSet()
	v.chars = m.Mode.UsesForm()
	v.gram = m.AttentionGram() // the attention in one mat-vec: M never changes while serving
	v.pool = &sync.Pool{New: func() any { return v.newWork() }}
	v.arenas = &sync.Pool{}
	return v, nil
}

func isZero(x []float32) bool {
	for _, f := range x {
		if f != 0 {
			return false
		}
	}
	return true
}

// Dim returns the vector dimension.
func (v *Vectorizer) Dim() int { return v.dim }

// Options returns the defaults given to New.
func (v *Vectorizer) Options() Options { return v.opts }

// Model returns the model.
func (v *Vectorizer) Model() *model.Model { return v.m }

// Store returns the context memory (nil: none).
func (v *Vectorizer) Store() ContextStore { return v.store }

func (v *Vectorizer) sifWeight(count int64, a float64) float32 {
	if !v.hasCounts || count <= 0 {
		return 1
	}
	return float32(a / (a + float64(count)/v.total))
}

// tokInfo is the classification of one token (16 bytes).
type tokInfo struct {
	count int64
	id    int32 // base row, -1 if unknown
	kind  tokKind
}

// tokKind is the Source of a token's vector as prepare classifies it, in a
// byte: tokens are classified and compared on the hot path.
type tokKind uint8

const (
	kindBase   tokKind = iota // SourceBase
	kindAMSkip                // SourceAMSkip
	kindAM                    // SourceAM
)

// source returns the Source k stands for.
func (k tokKind) source() Source {
	switch k {
	case kindBase:
		return SourceBase
	case kindAMSkip:
		return SourceAMSkip
	}
	return SourceAM
}

// classifyID says which source the vector of the word of base row id comes
// from under o (id -1: not a base word).
func (v *Vectorizer) classifyID(id int32, o *Options) tokInfo {
	if id < 0 {
		return tokInfo{id: -1, kind: kindAM}
	}
	if !v.hasCounts {
		return tokInfo{id: id, kind: kindBase}
	}
	c := v.rows[id].count
	switch {
	case c >= o.FrequentMin:
		return tokInfo{id: id, count: c, kind: kindBase}
	case c >= o.RareMin:
		return tokInfo{id: id, count: c, kind: kindAMSkip}
	}
	return tokInfo{id: id, count: c, kind: kindAM}
}

// weigher gives the combination weights of the tokens of one text under
// one call's options: which SIF weights apply and the collection's b are
// settled once per text, not once per token.
type weigher struct {
	rows   []rowMeta
	v      *Vectorizer
	mode   Weighting
	rowSIF bool    // the rows' SIF weights apply (counts, and the default SIFA)
	a, b   float64 // SIFA and the collection's b
	docs   int64   // passage count of WeightSIFCollection
}

// weigher returns the weigher of a text under o; docs is docFreqs' passage count.
func (v *Vectorizer) weigher(o *Options, docs int64) weigher {
	return weigher{rows: v.rows, v: v, mode: o.Weighting, rowSIF: v.hasCounts && o.SIFA == v.opts.SIFA,
		a: o.SIFA, b: o.collectionB(), docs: docs}
}

// weight is the combination weight of token t of document frequency df
// (used by WeightSIFCollection only).
func (g *weigher) weight(t tokInfo, df int64) float32 {
	if g.mode == WeightMean {
		return 1
	}
	var wt float32
	if t.id >= 0 && g.rowSIF {
		wt = g.rows[t.id].sifW
	} else {
		wt = g.v.sifWeight(t.count, g.a)
	}
	if g.mode == WeightSIFCollection {
		wt *= collectionWeight(df, g.docs, g.b)
	}
	return wt
}

// work is the per-call scratch space, pooled.
type work struct {
	parsed
	ws       *model.Workspace
	obs      []memory.Observation
	ctxTexts []string
	ctxRem   int     // ctxTexts[:ctxRem] came from the memory
	ctxWin   []int32 // token window [a, b) of each in-text context ctxTexts[ctxRem:], two values each
	occPos   []int32
	ctxTok   []string
	ctxFrom  []int32 // rememberedIDs: where the ids of each remembered context come from
	newIDs   []int32 // rememberedIDs: the ids of the contexts it tokenized
	idBuf    []int32
	idEnd    []int
	ctxUsed  []int // index in ctxTexts of each context in ctxIDs
	ctxIDs   [][]int32
	acc      []float32
	keep     []float32 // acc before the common space is taken out (textVector)
	amVec    []float32
	form     []float32      // a word's form when it is not cached
	amDone   map[string]int // word → offset in amVecs, -1 dropped
	amVecs   []float32
	explain  map[string]int // word → index in Explanation.Words (Explain only)
	dfs      []int64        // document frequency of each token (WeightSIFCollection)
	dfRowIDs []int32        // base row of each token, for dfRows
	rowIDs   []int32        // base rows of the text, summed by simd.GatherAxpy
	rowW     []float32      // their weights
	ids      []int32        // base row of each token, -1 unknown (prepare's scratch)
}

// occNode links the occurrences (token positions) of a non-frequent word.
type occNode struct {
	pos  int32
	next int32 // -1 ends the list
}

// newWork returns a work whose Workspace uses v.gram (model.Workspace.UseGram).
func (v *Vectorizer) newWork() *work {
	ws := v.m.NewWorkspace()
	ws.UseGram(v.gram)
	return &work{
		ws:     ws,
		acc:    make([]float32, v.dim),
		keep:   make([]float32, v.dim),
		amVec:  make([]float32, v.dim),
		form:   make([]float32, v.dim),
		amDone: make(map[string]int),
	}
}

// prepare splits text into sentences and tokens, classifies every token, and
// links the occurrences of every non-frequent word. It reports whether any
// token is non-frequent; w.amWords counts the distinct words of source AM.
func (v *Vectorizer) prepare(w *work, text string, o *Options) bool {
	// The words are looked up in batches whose cache misses overlap.
	sp := model.Split{Sentences: w.sentences[:0], Tokens: w.tokens[:0], Offsets: w.tokOff[:0], SentEnd: w.sentEnd[:0],
		Vocab: v.base, IDs: w.ids[:0]}
	v.tok.AppendSplit(&sp, text)
	w.sentences, w.tokens, w.tokOff, w.sentEnd, w.ids = sp.Sentences, sp.Tokens, sp.Offsets, sp.SentEnd, sp.IDs
	w.info = w.info[:0]
	w.dfDocs = 0
	clear(w.occHead)
	w.occ = w.occ[:0]
	w.amWords = 0
	rare := false
	w.info = slices.Grow(w.info, len(w.tokens))[:len(w.tokens)]
	if v.hasCounts && len(v.rows) > 0 { // the rows' counts, all in flight at once
		prefetch.Rows(unsafe.Pointer(unsafe.SliceData(v.rows)), unsafe.Sizeof(rowMeta{}), unsafe.Sizeof(int64(0)), w.ids)
	}
	for i, t := range w.tokens {
		info := v.classifyID(w.ids[i], o)
		w.info[i] = info
		if info.kind == kindBase {
			continue
		}
		rare = true
		head, ok := w.occHead[t]
		if !ok {
			head = -1
			if info.kind == kindAM {
				w.amWords++
			}
		}
		w.occ = append(w.occ, occNode{pos: int32(i), next: head})
		if w.occHead == nil {
			w.occHead = make(map[string]int32)
		}
		w.occHead[t] = int32(len(w.occ) - 1)
	}
	return rare
}

// checkAMWords refuses a prepared text with more distinct AM words than o allows.
func checkAMWords(w *work, o *Options) error {
	if limit := o.maxAMWords(); w.amWords > limit {
		return fmt.Errorf("%w: %d, more than the limit of %d", ErrTooManyAMWords, w.amWords, limit)
	}
	return nil
}

// window returns the context window [a, b) of the token at pos: at most
// model.ContextWindow tokens on either side, inside its sentence, as training
// cuts contexts; and its text, the span of the sentence from the window's
// first to its last token (to the sentence's ends where the window reaches
// them, so a short sentence is its own context).
func (w *work) window(pos int) (a, b int, text string) {
	s := tokenSentence(w, pos)
	lo, hi := sentStart(w, s), w.sentEnd[s]
	a = max(lo, pos-model.ContextWindow)
	b = min(hi, pos+model.ContextWindow+1)
	sent := w.sentences[s]
	from, to := int(w.tokOff[2*a]), int(w.tokOff[2*(b-1)+1])
	if a == lo {
		from = 0
	}
	if b == hi {
		to = len(sent)
	}
	return a, b, sent[from:to]
}

// teach offers the sentences of every non-frequent word of the prepared text
// to the memory and returns how many observations it offered. The memory
// keeps each word's k smallest-hash contexts, so the order of the offers
// does not matter.
func (v *Vectorizer) teach(w *work) (int, error) {
	w.obs = v.observations(w.obs[:0], w)
	if len(w.obs) == 0 {
		return 0, nil
	}
	n := len(w.obs)
	err := v.store.Remember(w.obs)
	clear(w.obs) // do not pin the text
	if err != nil {
		return 0, fmt.Errorf("remember contexts: %w", err)
	}
	return n, nil
}

// observations appends to obs what teach offers the memory for the prepared
// text: the sentence of every occurrence of each word that is not frequent,
// in text order per word (nothing without a writable store).
func (v *Vectorizer) observations(obs []memory.Observation, w *work) []memory.Observation {
	if v.store == nil || v.store.ReadOnly() || len(w.occHead) == 0 {
		return obs
	}
	for t, head := range w.occHead {
		if v.frequentByDefault(t) {
			continue // a request's frequent_min never widens what the memory stores
		}
		start := len(obs)
		for n := head; n >= 0; n = w.occ[n].next {
			_, _, ctx := w.window(int(w.occ[n].pos))
			obs = append(obs, memory.Observation{Word: t, Context: ctx})
		}
		// The list runs last sentence first.
		for a, b := start, len(obs)-1; a < b; a, b = a+1, b-1 {
			obs[a], obs[b] = obs[b], obs[a]
		}
	}
	return obs
}

// frequentByDefault reports whether word is frequent under the defaults given
// to New: the memory only ever stores contexts of words that are not.
func (v *Vectorizer) frequentByDefault(word string) bool {
	id, ok := v.base.ID(word)
	return ok && (!v.hasCounts || v.rows[id].count >= v.opts.FrequentMin)
}

// Vectorize returns the L2-normalized vector of text (len Dim). TaskPassage
// first offers the contexts around the text's non-frequent words to the memory.
func (v *Vectorizer) Vectorize(text string, task Task, opts Options) ([]float32, error) {
	return v.VectorizeContext(context.Background(), text, task, opts)
}

// VectorizeContext is Vectorize that stops, returning ctx.Err(), once ctx is done.
func (v *Vectorizer) VectorizeContext(ctx context.Context, text string, task Task, opts Options) ([]float32, error) {
	// The result is allocated before the text is read: on an Intel Xeon
	// (family 6 model 207) Vectorize costs about 100 cpu-ns less this way
	// than with the result appended once the vector is made
	// (docs/benchmarks.md), presumably because zeroing recycled memory early
	// brings its lines into the caches before the copy.
	vec := make([]float32, v.dim)
	w := v.pool.Get().(*work)
	defer v.pool.Put(w)
	if err := v.vectorizeWork(ctx, w, text, task, opts); err != nil {
		return nil, err
	}
	copy(vec, w.acc)
	return vec, nil
}

// VectorizeTo is VectorizeContext that writes the vector to dst (len Dim)
// instead of a new slice: for a caller that uses the vector before the next
// call (to encode it) and reuses dst. On error dst is unchanged.
func (v *Vectorizer) VectorizeTo(ctx context.Context, dst []float32, text string, task Task, opts Options) error {
	if len(dst) != v.dim {
		return fmt.Errorf("vectorize: destination of length %d, want the dimension %d", len(dst), v.dim)
	}
	w := v.pool.Get().(*work)
	defer v.pool.Put(w)
	if err := v.vectorizeWork(ctx, w, text, task, opts); err != nil {
		return err
	}
	copy(dst, w.acc)
	return nil
}

// vectorizeWork vectorizes text into w.acc: it prepares the text, teaches
// and counts a passage, and combines.
func (v *Vectorizer) vectorizeWork(ctx context.Context, w *work, text string, task Task, opts Options) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	rare := v.prepare(w, text, &opts)
	if err := checkAMWords(w, &opts); err != nil {
		return err
	}
	opts.memoryOnly = task == TaskQuery && opts.QueryMemoryOnly
	if err := ctx.Err(); err != nil {
		return err
	}
	if task == TaskPassage {
		// Contexts first: a passage whose contexts the memory refuses (a
		// full disk) is never counted.
		if rare {
			if _, err := v.teach(w); err != nil {
				return err
			}
		}
		if err := v.countPassageRead(w, &opts); err != nil {
			return err
		}
	}
	return v.combine(ctx, w, &opts, nil)
}

// VectorizeBatch vectorizes texts in parallel; errs[i] is nil or the error of
// texts[i]. For TaskPassage all texts teach the memory first, in order. The
// vectors of one call share one array (each slice's capacity is Dim): a
// caller that keeps a few vectors of a large batch long after the rest
// should copy them.
func (v *Vectorizer) VectorizeBatch(texts []string, task Task, opts Options) (vecs [][]float32, errs []error) {
	return v.VectorizeBatchContext(context.Background(), texts, task, opts)
}

// VectorizeBatchContext is VectorizeBatch that stops once ctx is done: the
// texts not finished by then get ctx.Err().
func (v *Vectorizer) VectorizeBatchContext(ctx context.Context, texts []string, task Task, opts Options) (vecs [][]float32, errs []error) {
	vecs = make([][]float32, len(texts))
	errs = make([]error, len(texts))
	if err := opts.Validate(); err != nil {
		for i := range errs {
			errs[i] = err
		}
		return vecs, errs
	}
	if task == TaskPassage {
		v.batchPassages(ctx, texts, opts, vecs, errs)
		return vecs, errs
	}
	var next atomic.Int64
	workers := min(runtime.GOMAXPROCS(0), len(texts))
	all := batchVectors(len(texts), v.dim)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(texts) {
					return
				}
				vec := all[i*v.dim : (i+1)*v.dim : (i+1)*v.dim]
				if errs[i] = v.VectorizeTo(ctx, vec, texts[i], TaskQuery, opts); errs[i] == nil {
					vecs[i] = vec
				}
			}
		})
	}
	wg.Wait()
	return vecs, errs
}

var errNoMemory = errors.New("the vectorizer has no writable context memory")

// Learn offers the sentences around the non-frequent words of text to the
// memory without vectorizing it (used by "memory warm"); it returns the number
// of observations offered. Under WeightSIFCollection it also counts text as
// a passage, as Observe does (in RAM without a memory; not at all with a
// read-only one).
func (v *Vectorizer) Learn(text string, opts Options) (int, error) {
	return v.learn(text, opts, false)
}

// LearnPassage is Learn for a passage about to be vectorized: a text over
// MaxAMWords is refused (ErrTooManyAMWords) and teaches nothing, as
// VectorizeBatch refuses it (Lesson teaches with it).
func (v *Vectorizer) LearnPassage(text string, opts Options) (int, error) {
	return v.learn(text, opts, true)
}

// learn is Learn; with bounded it first refuses a text over MaxAMWords (a
// passage of a batch is refused as a whole, as Vectorize refuses it).
func (v *Vectorizer) learn(text string, opts Options, bounded bool) (int, error) {
	if err := opts.Validate(); err != nil {
		return 0, err
	}
	w := v.pool.Get().(*work)
	defer v.pool.Put(w)
	rare := v.prepare(w, text, &opts)
	return v.learnPrepared(w, rare, &opts, bounded)
}

// learnPrepared is learn of the text prepared in w; rare is what prepare
// returned.
func (v *Vectorizer) learnPrepared(w *work, rare bool, o *Options, bounded bool) (int, error) {
	if bounded {
		if err := checkAMWords(w, o); err != nil {
			return 0, err
		}
	}
	n := 0
	if rare { // contexts first: a passage whose contexts are refused is never counted
		var err error
		if n, err = v.teach(w); err != nil {
			return 0, err
		}
	}
	if err := v.countPassage(w, o); err != nil {
		return 0, err
	}
	if v.store == nil || v.store.ReadOnly() {
		return 0, errNoMemory
	}
	return n, nil
}

// countPassage counts the prepared text as a passage when o weights by the
// collection (the counting costs a passage of frequent words about a third
// of its time, so other weightings skip it).
func (v *Vectorizer) countPassage(w *work, o *Options) error {
	if o.Weighting != WeightSIFCollection {
		return nil
	}
	return v.count(w.tokens, w.info)
}

// countPassageRead is countPassage that, when the counts are in RAM, also
// reads the text's document frequencies under the same lock for combine
// (w.dfDocs): one pass over the tokens instead of two. Only for a text
// combined right after it is counted (a batch counts all its texts first).
func (v *Vectorizer) countPassageRead(w *work, o *Options) error {
	if o.Weighting != WeightSIFCollection || v.ram == nil || len(w.tokens) == 0 {
		return v.countPassage(w, o)
	}
	w.dfs = slices.Grow(w.dfs[:0], len(w.tokens))[:len(w.tokens)]
	w.dfDocs = v.ram.countRead(w.dfs, w.tokens, w.info)
	return nil
}

// count counts one passage of tokens, in the store when it keeps the counts
// (a read-only store's counts are fixed: nothing is counted), else in RAM.
// A text without tokens is not counted. info is nil or the classification
// of tokens (their base rows).
func (v *Vectorizer) count(tokens []string, info []tokInfo) error {
	if len(tokens) == 0 || (v.dfInStore && v.store.ReadOnly()) {
		return nil // a text without words (a blank line of memory warm) is no passage
	}
	if v.ram != nil {
		v.ram.countIDs(tokens, info)
		return nil
	}
	var err error
	if v.dfRows != nil && info != nil {
		rows := appendRows(make([]int32, 0, len(info)), info)
		err = v.dfRows.mem.CountPassagesRows([][]string{tokens}, v.dfRows.table, [][]int32{rows})
	} else {
		err = v.df.CountPassage(tokens)
	}
	if err != nil {
		return fmt.Errorf("count passage: %w", err)
	}
	return nil
}

// Observe counts text as a passage of the collection (the document
// frequencies of WeightSIFCollection) without teaching the memory its
// contexts. The counts go where Learn's go.
func (v *Vectorizer) Observe(text string) error {
	w := v.pool.Get().(*work)
	defer v.pool.Put(w)
	w.tokens = w.tokens[:0]
	w.sentences = v.tok.AppendSentences(w.sentences[:0], text)
	for _, sent := range w.sentences {
		w.tokens = v.tok.AppendTokens(w.tokens, sent)
	}
	err := v.count(w.tokens, nil)
	clear(w.tokens) // do not pin the text
	clear(w.sentences)
	return err
}

// Passages returns the number of passages counted for WeightSIFCollection.
func (v *Vectorizer) Passages() int64 {
	return v.df.DocFreqs(nil, nil)
}

// DocFreqInStore reports whether the document frequencies of
// WeightSIFCollection are kept (and persisted) by the context store rather
// than in the vectorizer's RAM.
func (v *Vectorizer) DocFreqInStore() bool { return v.dfInStore }

// combine computes the normalized vector of the prepared text into w.acc;
// with ex != nil it records how every word was handled.
func (v *Vectorizer) combine(ctx context.Context, w *work, o *Options, ex *Explanation) error {
	clear(w.acc)
	clear(w.amDone)
	w.rowIDs, w.rowW = w.rowIDs[:0], w.rowW[:0]
	w.amVecs = w.amVecs[:0]
	docs := v.docFreqs(w, o)
	g := v.weigher(o, docs)
	var n sourceCounts
	var wsum float32 // the weights of the word vectors in acc
	for i, t := range w.tokens {
		info := w.info[i]
		var we *WordExplanation
		if ex != nil {
			we = ex.word(w, t, info)
		}
		var vec []float32 // an AM vector; a base row is summed after the loop
		if info.kind == kindAM {
			var err error
			if vec, err = v.amWordVector(ctx, w, t, o, ex, we); err != nil {
				return err
			}
		}
		if vec == nil && (info.kind == kindAM || v.rows[info.id].zero) {
			n.dropped++
			if we != nil {
				we.Source = SourceDropped
			}
			continue
		}
		n.add(info.kind)
		wt := g.weight(info, tokenDF(w, i, docs))
		if vec == nil || !v.charWord(t) {
			wsum += wt // a character vector holds no part of the mean word vector
		}
		if vec != nil {
			simd.Axpy(wt, vec, w.acc)
		} else {
			w.rowIDs, w.rowW = append(w.rowIDs, info.id), append(w.rowW, wt)
		}
		if ex != nil {
			ex.total += wt
		}
		if we != nil {
			we.Weight += wt
		}
	}
	// The base rows in one pass over acc, many rows' cache misses in flight.
	simd.GatherAxpy(w.acc, v.base.Vectors, w.rowIDs, w.rowW)
	v.addSourceCounts(n)
	if n.used() == 0 {
		return v.symbolVector(w)
	}
	return v.textVector(w.acc, w.keep, wsum, o)
}

// tokenDF is the document frequency of token i of the prepared text, given
// docFreqs' passage count (0: none read).
func tokenDF(w *work, i int, docs int64) int64 {
	if docs > 0 {
		return w.dfs[i]
	}
	return 0
}

// docFreqs writes the document frequency of every token of the prepared text
// to w.dfs and returns the passage count (0, and nothing written, unless o
// weights by the collection).
func (v *Vectorizer) docFreqs(w *work, o *Options) int64 {
	if o.Weighting != WeightSIFCollection {
		return 0
	}
	if w.dfDocs > 0 { // read while counting the text (countPassageRead)
		return w.dfDocs
	}
	w.dfs = slices.Grow(w.dfs[:0], len(w.tokens))[:len(w.tokens)]
	if v.ram != nil {
		return v.ram.docFreqIDs(w.dfs, w.tokens, w.info)
	}
	if v.dfRows != nil {
		w.dfRowIDs = appendRows(w.dfRowIDs[:0], w.info)
		return v.dfRows.mem.DocFreqsRows(w.dfs, w.tokens, v.dfRows.table, w.dfRowIDs)
	}
	return v.df.DocFreqs(w.dfs, w.tokens)
}

// amWordVector returns the AM vector of token t, nil when it yields none;
// AM runs once per distinct word of a text. (A base or AM+skip word's vector
// is its base row, summed by combine's GatherAxpy.)
func (v *Vectorizer) amWordVector(ctx context.Context, w *work, t string, o *Options, ex *Explanation, we *WordExplanation) ([]float32, error) {
	off, done := w.amDone[t]
	if !done {
		if err := ctx.Err(); err != nil {
			return nil, err // the caller is gone or out of time: stop inferring
		}
		off = v.amVector(w, t, o, ex, we)
		w.amDone[t] = off
	}
	if off < 0 {
		return nil, nil
	}
	return w.amVecs[off : off+v.dim], nil
}

// sourceCounts counts the words of one text by the source of their vector.
type sourceCounts struct{ base, amSkip, am, dropped int64 }

// add counts one word with a vector of kind k.
func (n *sourceCounts) add(k tokKind) {
	switch k {
	case kindBase:
		n.base++
	case kindAMSkip:
		n.amSkip++
	default:
		n.am++
	}
}

// used is the number of words that gave a vector.
func (n *sourceCounts) used() int64 { return n.base + n.amSkip + n.am }

// addSourceCounts adds the counts of one text to the vectorizer's Stats.
func (v *Vectorizer) addSourceCounts(n sourceCounts) {
	v.cnt.nBase.Add(n.base)
	v.cnt.nAMSkip.Add(n.amSkip)
	v.cnt.nAM.Add(n.am)
	v.cnt.nDropped.Add(n.dropped)
}

// normalizeSum scales acc to unit L2 norm; a zero sum (the word vectors
// cancelled out exactly) is ErrNoWords. A finite sum whose squared norm
// overflows float32 (a model of huge values) is scaled down by its largest
// value first.
func normalizeSum(acc []float32) error {
	norm := math.Sqrt(float64(simd.Dot(acc, acc)))
	if math.IsInf(norm, 0) {
		var most float32
		for _, x := range acc {
			most = max(most, float32(math.Abs(float64(x))))
		}
		if !math.IsInf(float64(most), 0) && !math.IsNaN(float64(most)) {
			simd.Scale(1/most, acc)
			norm = math.Sqrt(float64(simd.Dot(acc, acc)))
		}
	}
	if norm == 0 {
		return ErrNoWords
	}
	if math.IsNaN(norm) || math.IsInf(norm, 0) {
		return errors.New("vectorize: the combined vector is not finite (the model's values overflow float32 or hold NaN)")
	}
	simd.Scale(float32(1/norm), acc)
	return nil
}

// amVector infers the AM vector of word into w.amVecs and returns its offset,
// or -1 if the word yields nothing. With we != nil it records α and ρ.
func (v *Vectorizer) amVector(w *work, word string, o *Options, ex *Explanation, we *WordExplanation) int {
	if v.charWord(word) {
		return v.charVectorOf(w, word, we)
	}
	version, cacheable := v.gatherContexts(w, word, o)
	return v.inferGathered(w, word, o, version, cacheable && we == nil, ex, we)
}

// inferGathered is amVector once the contexts of word are in w.ctxTexts
// (gatherContexts), at the memory's version of them, cacheable when they
// are the remembered ones alone.
func (v *Vectorizer) inferGathered(w *work, word string, o *Options, version uint64, cacheable bool,
	ex *Explanation, we *WordExplanation) int {
	key := cacheKey{word: word, maxCtx: o.MaxContexts}
	off := len(w.amVecs)
	vec, hit, form := v.cache.get(key, version)
	if cacheable {
		if hit {
			v.cnt.hits.Add(1)
			clear(w.ctxTexts[:cap(w.ctxTexts)])
			if vec == nil {
				return -1
			}
			w.amVecs = append(w.amVecs, vec...)
			return off
		}
		v.cnt.misses.Add(1)
	}
	v.contextIDs(w, word)
	w.ws.ScaleGate(gateScale(w, o))
	var newForm wordForm // the form to cache with the vector
	if form.vec == nil {
		form = wordForm{vec: w.form, coverage: v.m.Form(w.ws, word, w.form)}
		if cacheable {
			form.vec = append([]float32(nil), w.form...) // its capacity as allocated, which the cache counts
			newForm = form
		}
	}
	exp := v.m.InferForm(w.ws, form.vec, form.coverage, w.ctxIDs, w.amVec)
	v.cnt.inferences.Add(1)
	ok := !isZero(w.amVec) && finite(w.amVec)
	if we != nil {
		explainContexts(w, ex, we, exp)
		c := v.m.Coverage(word)
		we.FormCoverage = &c
	}
	if !ok && v.chars {
		ok = charVector(word, v.charScale, w.amVec)
		if ok && we != nil {
			we.Source = SourceChars
		}
	}
	if cacheable {
		var stored []float32
		if ok {
			stored = append([]float32(nil), w.amVec...)
		}
		v.cache.put(key, version, stored, newForm)
	}
	clear(w.ctxTexts[:cap(w.ctxTexts)]) // do not pin remembered strings or the text
	if !ok {
		return -1
	}
	w.amVecs = append(w.amVecs, w.amVec...)
	return off
}

// gateScale returns the factor of AM's gate for the contexts AM uses
// (w.ctxUsed): 1 − o.TextContextDiscount times the share of them that are
// windows of this text (w.ctxTexts[w.ctxRem:]) rather than remembered.
func gateScale(w *work, o *Options) float32 {
	if o.TextContextDiscount == 0 || len(w.ctxUsed) == 0 {
		return 1
	}
	own := 0
	for _, c := range w.ctxUsed {
		if c >= w.ctxRem {
			own++
		}
	}
	return float32(1 - o.TextContextDiscount*float64(own)/float64(len(w.ctxUsed)))
}

// charVectorOf appends the character vector of word to w.amVecs and returns
// its offset (-1: none).
func (v *Vectorizer) charVectorOf(w *work, word string, we *WordExplanation) int {
	if !charVector(word, v.charScale, w.amVec) {
		return -1
	}
	if we != nil {
		we.Source = SourceChars
	}
	off := len(w.amVecs)
	w.amVecs = append(w.amVecs, w.amVec...)
	return off
}

// gatherContexts collects the contexts AM uses for word into w.ctxTexts: the
// remembered ones (w.ctxTexts[:w.ctxRem], at most o.MaxContexts) and the
// windows around the word in this text (their token spans in w.ctxWin) when
// the memory holds none for it, or with MixTextContexts after the remembered
// ones as room allows (neither in a query under QueryMemoryOnly). It returns
// the memory's version of the word's contexts and whether the result equals
// the memory-only one (and can be cached):
// when every in-text context is remembered already, does not fit or is not
// used.
func (v *Vectorizer) gatherContexts(w *work, word string, o *Options) (version uint64, cacheable bool) {
	w.ctxTexts, version = v.rememberedContexts(w.ctxTexts[:0], word, o)
	w.ctxRem = len(w.ctxTexts)
	cacheable = true
	w.occPos = w.occPos[:0]
	if head, ok := w.occHead[word]; ok && !o.memoryOnly && (w.ctxRem == 0 || o.MixTextContexts) {
		for n := head; n >= 0; n = w.occ[n].next {
			w.occPos = append(w.occPos, w.occ[n].pos)
		}
	}
	w.ctxWin = w.ctxWin[:0]
	for k := len(w.occPos) - 1; k >= 0 && len(w.ctxTexts) < o.MaxContexts; k-- { // text order
		a, b, s := w.window(int(w.occPos[k]))
		if containsString(w.ctxTexts[:w.ctxRem], s) {
			continue
		}
		if !v.hasContext(w.tokens[a:b], word) {
			continue // no known word besides the target: contributes nothing
		}
		w.ctxTexts = append(w.ctxTexts, s)
		w.ctxWin = append(w.ctxWin, int32(a), int32(b))
		cacheable = false
	}
	return version, cacheable
}

// rememberedContexts appends to dst the contexts the memory holds for word,
// at most o.MaxContexts, and returns it with the memory's version of them.
func (v *Vectorizer) rememberedContexts(dst []string, word string, o *Options) ([]string, uint64) {
	if v.store == nil || o.MaxContexts <= 0 {
		return dst, 0
	}
	start := len(dst)
	dst, version := v.store.Contexts(dst, word)
	if len(dst)-start > o.MaxContexts {
		dst = dst[:start+o.MaxContexts]
	}
	return dst, version
}

// contextIDs fills w.ctxIDs with the base ids of every gathered context that
// has any (w.ctxUsed says which), as model.ContextIDs gives them: the
// contexts of this text are tokenized already; the remembered ones are read
// from v.ctxCache (when there is one), which tokenizes only those it does
// not hold yet.
func (v *Vectorizer) contextIDs(w *work, word string) {
	w.idBuf, w.idEnd, w.ctxUsed = w.idBuf[:0], w.idEnd[:0], w.ctxUsed[:0]
	var r wordContexts
	cached := v.ctxCache != nil && w.ctxRem > 0
	if cached {
		r = v.rememberedIDs(w, word)
	}
	for c, text := range w.ctxTexts {
		before := len(w.idBuf)
		switch {
		case c >= w.ctxRem:
			k := 2 * (c - w.ctxRem)
			w.idBuf = v.m.ContextIDs(w.idBuf, w.tokens[w.ctxWin[k]:w.ctxWin[k+1]], word)
		case cached:
			w.idBuf = append(w.idBuf, r.contextIDs(c)...)
		default:
			w.idBuf = v.rememberedContextIDs(w, w.idBuf, text, word)
		}
		if len(w.idBuf) > before {
			w.idEnd = append(w.idEnd, len(w.idBuf))
			w.ctxUsed = append(w.ctxUsed, c)
		}
	}
	w.ctxIDs = w.ctxIDs[:0]
	start := 0
	for _, end := range w.idEnd {
		w.ctxIDs = append(w.ctxIDs, w.idBuf[start:end])
		start = end
	}
}

// rememberedIDs returns the reading of word's remembered contexts
// w.ctxTexts[:w.ctxRem] from the cache: the cached one when it holds these
// contexts, else a new one (then cached) that takes the ids of every context
// the cached one holds from it and tokenizes the others. The new reading's
// ids are sized exactly, in one allocation: the ids of the new contexts are
// made in w.newIDs first (a reading is made each time a word's contexts
// change, so growing its ids as they come would allocate several times and
// keep up to twice their room). The caller must not modify it.
func (v *Vectorizer) rememberedIDs(w *work, word string) wordContexts {
	texts := w.ctxTexts[:w.ctxRem]
	content := v.ctxScope == 0 // the same context may be another string
	key := readingKey{word: word, scope: v.ctxScope}
	old, found := v.ctxCache.get(key)
	if found && old.holds(texts, content) {
		return old
	}
	// The source of each context: k ≥ 0 its index in old, else the end of
	// its ids in w.newIDs, as -end-1.
	w.ctxFrom, w.newIDs = w.ctxFrom[:0], w.newIDs[:0]
	kept, j := 0, 0
	for _, text := range texts {
		k := -1
		if found {
			k = old.find(text, j, content)
		}
		if k >= 0 {
			kept += len(old.contextIDs(k))
			j = k + 1
		} else {
			w.newIDs = v.rememberedContextIDs(w, w.newIDs, text, word)
			k = -len(w.newIDs) - 1
		}
		w.ctxFrom = append(w.ctxFrom, int32(k))
	}
	r := newWordContexts(key, len(texts), kept+len(w.newIDs), old)
	start := 0 // the ids of the next new context in w.newIDs
	for i, text := range texts {
		if k := int(w.ctxFrom[i]); k >= 0 {
			r.ctx[i] = old.ctx[k]
			r.ids = append(r.ids, old.contextIDs(k)...)
		} else {
			r.ctx[i] = text
			if content {
				r.ctx[i] = strings.Clone(text) // never pin the caller's memory
			}
			end := -k - 1
			r.ids = append(r.ids, w.newIDs[start:end]...)
			start = end
		}
		r.ids[i] = int32(len(r.ids))
	}
	v.ctxCache.put(r)
	return r
}

// rememberedContextIDs appends to dst the base ids of the remembered context
// text of word, as model.ContextIDs gives them, tokenizing it in w.ctxTok;
// the tokens are cleared after, so that a work, which goes back to a pool,
// never pins the memory's strings.
func (v *Vectorizer) rememberedContextIDs(w *work, dst []int32, text, word string) []int32 {
	w.ctxTok = v.tok.AppendTokens(w.ctxTok[:0], text)
	dst = v.m.ContextIDs(dst, w.ctxTok, word)
	clear(w.ctxTok)
	return dst
}

// readingScope returns the address of store when it is a *memory.Memory,
// which copies every context it keeps and hands out its own strings, never
// a caller's memory; 0 for any other store.
func readingScope(store ContextStore) uintptr {
	if mem, ok := store.(*memory.Memory); ok {
		return uintptr(unsafe.Pointer(mem))
	}
	return 0
}

// explainContexts records α, whether AM used the form only, and every used
// context with its ρ in we.
func explainContexts(w *work, ex *Explanation, we *WordExplanation, exp model.Explanation) {
	we.Alpha = exp.Alpha
	we.FormOnly = exp.FormOnly
	we.FormShare, we.ContextShare = shares(exp)
	for k, c := range w.ctxUsed {
		cw := ContextWeight{Text: w.ctxTexts[c], Remembered: c < w.ctxRem}
		if k < len(exp.Rho) {
			cw.Rho = exp.Rho[k]
		}
		ex.addContext(we, cw)
	}
}

// shares returns the form and context shares of an AM vector: 1 − α and α,
// or 1 and 0 when AM used the form only.
func shares(exp model.Explanation) (form, context *float32) {
	c := exp.Alpha
	if exp.FormOnly {
		c = 0
	}
	f := 1 - c
	return &f, &c
}

// hasContext reports whether tokens hold a base word other than target.
func (v *Vectorizer) hasContext(tokens []string, target string) bool {
	for _, t := range tokens {
		if t != target {
			if _, ok := v.base.ID(t); ok {
				return true
			}
		}
	}
	return false
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// tokenSentence returns the sentence of token pos: the first sentence that
// ends after it (a search, so that prepare keeps no per-token sentence list
// for the few windows of non-frequent words).
func tokenSentence(w *work, pos int) int {
	s, _ := slices.BinarySearch(w.sentEnd, pos+1)
	return s
}

func sentStart(w *work, s int) int {
	if s == 0 {
		return 0
	}
	return w.sentEnd[s-1]
}

func finite(x []float32) bool {
	for _, f := range x {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return false
		}
	}
	return true
}

// Stats counts, since New, words by source, AM inferences and cache use.
type Stats struct {
	// WordsBySource counts word occurrences by the source of their vector.
	WordsBySource map[Source]int64
	// AMInferences counts AM forward passes.
	AMInferences int64
	// CacheHits and CacheMisses count lookups of AM vectors of remembered words.
	CacheHits, CacheMisses int64
	// CacheEntries is the current number of cached AM vectors.
	CacheEntries int
}

// Stats returns the counters.
func (v *Vectorizer) Stats() Stats {
	return Stats{
		WordsBySource: map[Source]int64{
			SourceBase:    v.cnt.nBase.Load(),
			SourceAMSkip:  v.cnt.nAMSkip.Load(),
			SourceAM:      v.cnt.nAM.Load(),
			SourceDropped: v.cnt.nDropped.Load(),
		},
		AMInferences: v.cnt.inferences.Load(),
		CacheHits:    v.cnt.hits.Load(),
		CacheMisses:  v.cnt.misses.Load(),
		CacheEntries: v.cache.len(),
	}
}

// cacheKey identifies a cached AM vector.
type cacheKey struct {
	word   string
	maxCtx int
}

// cacheEntry is what the cache holds of a word: its AM vector from the
// remembered contexts of the memory's version, and its form (v_form, which
// the word alone decides).
type cacheEntry struct {
	version uint64
	vec     []float32 // nil: the word yields nothing
	form    wordForm  // vec nil: not known
}

// wordForm is a word's form and its coverage, as model.Form gives them.
type wordForm struct {
	vec      []float32
	coverage float32
}

// amCache holds AM vectors computed from remembered contexts only, valid
// while the word's memory version is unchanged, each with the word's form
// (valid as long as the model), so that a word inferred again (its contexts
// changed, or a text gives it contexts of its own) skips its form.
type amCache struct {
	mu      sync.Mutex
	entries map[cacheKey]cacheEntry
	bytes   int64 // the entries' RAM (amEntryBytes)
	limit   int64 // the most bytes it holds (0: no bound but cacheEntries)
}

// cacheEntryBytes is the RAM of a cache entry besides its word and vectors:
// its slot in the map (at a map's least load) and the allocations' rounding.
const cacheEntryBytes = 160

// amEntryBytes estimates the RAM of the entry of word with e's vectors.
func amEntryBytes(word string, e cacheEntry) int64 {
	return cacheEntryBytes + int64(len(word)) + 4*int64(cap(e.vec)+cap(e.form.vec))
}

// get returns the cached vector of k at version (ok) and the word's cached
// form (its vec nil when it has none).
func (c *amCache) get(k cacheKey, version uint64) (vec []float32, ok bool, form wordForm) {
	c.mu.Lock()
	e, found := c.entries[k]
	c.mu.Unlock()
	if !found {
		return nil, false, wordForm{}
	}
	if e.version != version {
		return nil, false, e.form
	}
	return e.vec, true, e.form
}

// put caches the vector of k at version (vec nil: the word yields nothing)
// and its form, unless the entry holds one already or form.vec is nil. The
// cache keeps both slices: the caller must not modify them.
func (c *amCache) put(k cacheKey, version uint64, vec []float32, form wordForm) {
	k.word = cloneString(k.word) // do not pin the text the word came from
	c.mu.Lock()
	defer c.mu.Unlock()
	e, found := c.entries[k]
	if found {
		c.bytes -= amEntryBytes(k.word, e)
		delete(c.entries, k)
	}
	e.version, e.vec = version, vec
	if e.form.vec == nil {
		e.form = form
	}
	size := amEntryBytes(k.word, e)
	if c.limit > 0 && size > c.limit {
		return
	}
	for len(c.entries) >= cacheEntries || c.limit > 0 && c.bytes+size > c.limit {
		c.evictLocked()
	}
	c.entries[k] = e
	c.bytes += size
}

// evictLocked evicts an arbitrary eighth of the entries, at least one (map
// order is random).
func (c *amCache) evictLocked() {
	n := max(len(c.entries)/8, 1)
	for key, e := range c.entries {
		c.bytes -= amEntryBytes(key.word, e)
		delete(c.entries, key)
		if n--; n == 0 {
			break
		}
	}
}

func (c *amCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

func cloneString(s string) string { return string(append([]byte(nil), s...)) }
