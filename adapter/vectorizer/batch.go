package vectorizer

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
)

// parsed is what prepare makes of a text: its sentences and tokens, every
// token classified, and the occurrences of the non-frequent words linked.
type parsed struct {
	sentences []string
	sentEnd   []int     // tokens[sentEnd[i-1]:sentEnd[i]] are the tokens of sentence i
	tokens    []string  // all tokens, sentence after sentence
	tokOff    []int32   // byte offsets of token i in its sentence: tokOff[2i], tokOff[2i+1]
	info      []tokInfo // parallel to tokens
	tokSent   []int32   // sentence of each token
	occHead   map[string]int32
	occ       []occNode
	amWords   int // distinct words of source AM
}

// batchPassages is VectorizeBatchContext for TaskPassage. Every text is
// prepared (tokenized and classified) once: in order, each is prepared,
// counted and taught to the memory, and its parse kept; then the texts are
// combined in parallel from their parses, so that every vector sees the
// contexts of the whole batch.
func (v *Vectorizer) batchPassages(ctx context.Context, texts []string, opts Options, vecs [][]float32, errs []error) {
	parses := make([]parsed, len(texts))
	w := v.pool.Get().(*work)
	own := w.parsed
	for i, t := range texts {
		if errs[i] = ctx.Err(); errs[i] != nil {
			continue
		}
		w.parsed = parses[i] // empty: the parse gets buffers of its own
		rare := v.prepare(w, t, &opts)
		if _, err := v.learnPrepared(w, rare, &opts, true); err != nil && !errors.Is(err, errNoMemory) {
			errs[i] = err
		}
		if errs[i] == nil {
			parses[i] = w.parsed
		}
	}
	w.parsed = own
	v.pool.Put(w)
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
					vecs[i], errs[i] = v.vectorizePrepared(ctx, w, &opts)
				}
				parses[i] = parsed{} // do not pin the text longer than needed
			}
		})
	}
	wg.Wait()
}
