package vectorizer

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// A parse kept by a batch must not inherit the document frequencies that a
// single passage read into the pooled work it is combined in.
func TestKeptParseIgnoresStaleDocFreqs(t *testing.T) {
	v := newVectorizer(t, nil)
	opts := DefaultOptions()
	require.Equal(t, WeightSIFCollection, opts.Weighting)

	w := v.newWork()
	v.prepare(w, "f1 f2 f3 f4 f5 f6 f7 f8", &opts)
	require.NoError(t, v.countPassageRead(w, &opts))
	require.Positive(t, w.dfDocs, "the single path reads its counts while counting")

	short := v.newWork()
	v.prepare(short, "f9 f10", &opts)
	var arena parseArena
	w.parsed = arena.keep(short) // what the batch's combining phase does

	docs := v.docFreqs(w, &opts)
	require.Len(t, w.dfs, len(w.tokens), "counts read for the kept text, not the earlier one")
	fresh := v.newWork()
	v.prepare(fresh, "f9 f10", &opts)
	require.Equal(t, v.docFreqs(fresh, &opts), docs)
	require.Equal(t, fresh.dfs, w.dfs)
}

// Single passages and batches on one vectorizer at once, as a server runs
// them: no batch may combine with another call's counts (this panicked with
// an index out of range when a pooled work carried a longer text's counts).
func TestConcurrentSingleAndBatchPassages(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	v := newVectorizer(t, nil)
	opts := DefaultOptions()
	var texts []string
	for i := range 16 {
		texts = append(texts, strings.Repeat(fmt.Sprintf("f6 f7 f8 f%d f10 f1 f2 ", i), 10))
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for k := 0; ; k++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := v.Vectorize(fmt.Sprintf("f%d f12", k%500), TaskPassage, opts); err != nil {
				t.Error(err)
				return
			}
		}
	})
	for range 300 {
		vecs, errs := v.VectorizeBatch(texts, TaskPassage, opts)
		for i := range texts {
			require.NoError(t, errs[i])
			require.Len(t, vecs[i], v.dim)
		}
	}
	close(stop)
	wg.Wait()
}
