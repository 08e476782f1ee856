package amtrain

import (
	"context"
	"fmt"

	"github.com/text2vec-am/text2vec-am/model"
)

// AMSkipMaxCount is the paper's AM+skip cut (§4.3): words with 1 ≤ f < 32
// mix the AM vector with their skipgram vector by β(f) = 1 − f/32.
const AMSkipMaxCount = 32

// BundleOptions configures BuildBundle.
type BundleOptions struct {
	// MaxContexts is the number of corpus contexts (at most) each vector is inferred from.
	MaxContexts int
	// Window is the number of tokens kept on either side of the word (25).
	Window int
	// OOVMaxCount: corpus words WITHOUT a base vector and with 1 ≤ f < OOVMaxCount
	// get a row holding their pure AM vector (there is no skipgram vector to mix).
	// 0 adds none. The default, 5, matches the usual skipgram min-count.
	OOVMaxCount int64
	Seed        int64
}

// BundleStats says what BuildBundle added.
type BundleStats struct {
	// AMSkip is the number of base rows replaced by β·v_AM + (1−β)·v_skip.
	AMSkip int
	// OOV is the number of rows added for corpus words without a base vector.
	OOV int
}

// BuildBundle returns the serving vocabulary: the base words, where every word
// with 1 ≤ f < 32 holds β(f)·v_AM + (1−β(f))·v_skip (model.AMSkipBeta), then,
// when OOVMaxCount > 0, the corpus words without a base vector, at most
// model.MaxWordBytes long and with 1 ≤ f < OOVMaxCount holding their AM
// vector; all with their counts. AM vectors
// are inferred from up to MaxContexts of the word's corpus contexts, drawn with
// a generator fixed by (Seed, word), in parallel (model.InferBatch).
// Contexts are looked up in d.Base, which is not modified.
//
// It stops with ctx's error when ctx is cancelled.
//
// f is d.Counts for base words; for other corpus words it is extra[word]
// when present (a counts file), else the corpus count.
func BuildBundle(ctx context.Context, m *model.Model, d *Data, extra map[string]int64, o BundleOptions) (*model.Embeddings, BundleStats, error) {
	var st BundleStats
	if o.MaxContexts < 1 {
		return nil, st, fmt.Errorf("bundle: max contexts must be ≥ 1, got %d", o.MaxContexts)
	}
	if o.Window < 1 {
		return nil, st, fmt.Errorf("bundle: window must be ≥ 1, got %d", o.Window)
	}
	jobs, words, counts, st := planBundle(d, extra, o.OOVMaxCount)
	dim := d.Base.Dim
	vectors := make([]float32, len(words)*dim)
	copy(vectors, d.Base.Vectors)
	if err := inferBundle(ctx, m, NewSampler(d.Index, d.Base, o.Window), jobs, o, vectors, dim); err != nil {
		return nil, st, err
	}
	e, err := model.NewEmbeddings(dim, words, vectors, counts)
	if err != nil {
		return nil, st, fmt.Errorf("bundle: %w", err)
	}
	return e, st, nil
}

// bundleJob is one row of the bundle to infer.
type bundleJob struct {
	word string
	xid  int32 // −1 when not in the corpus
	row  int   // row in the output
	beta float32
}

// planBundle lists the rows to infer: the base words with 1 ≤ f <
// AMSkipMaxCount (AM+skip rows, in place), then, when oovMaxCount > 0, the
// corpus words without a base vector and 1 ≤ f < oovMaxCount (new rows).
// It returns the output's words and counts, the base ones first.
func planBundle(d *Data, extra map[string]int64, oovMaxCount int64) (jobs []bundleJob, words []string, counts []int64, st BundleStats) {
	base, x := d.Base, d.Index
	for id := int32(0); int(id) < base.Len(); id++ {
		f := d.Counts[id]
		if f < 1 || f >= AMSkipMaxCount {
			continue
		}
		w := base.Words[id]
		xid, ok := x.ID(w)
		if !ok {
			xid = -1
		}
		jobs = append(jobs, bundleJob{word: w, xid: xid, row: int(id), beta: model.AMSkipBeta(f)})
	}
	st.AMSkip = len(jobs)
	words = append([]string(nil), base.Words...)
	counts = make([]int64, base.Len(), base.Len()+1024)
	copy(counts, d.Counts)
	if oovMaxCount <= 0 {
		return jobs, words, counts, st
	}
	for xid, w := range x.Words {
		if _, ok := base.ID(w); ok || len(w) > model.MaxWordBytes { // too long for a vocabulary
			continue
		}
		f, ok := extra[w]
		if !ok {
			f = x.Count(int32(xid))
		}
		if f < 1 || f >= oovMaxCount {
			continue
		}
		jobs = append(jobs, bundleJob{word: w, xid: int32(xid), row: len(words), beta: 1})
		words = append(words, w)
		counts = append(counts, f)
		st.OOV++
	}
	return jobs, words, counts, st
}

// inferBundle infers the AM vector of every job in chunks and mixes it into
// its row of vectors (rows of dim): beta·AM + (1−beta)·row.
func inferBundle(ctx context.Context, m *model.Model, s *Sampler, jobs []bundleJob, o BundleOptions, vectors []float32, dim int) error {
	const chunk = 4096
	var cs contextSet
	queries := make([]model.Query, 0, chunk)
	outs := make([][]float32, 0, chunk)
	am := make([]float32, chunk*dim)
	for lo := 0; lo < len(jobs); lo += chunk {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("bundle: %w", err)
		}
		hi := min(lo+chunk, len(jobs))
		queries, outs = queries[:0], outs[:0]
		for i, j := range jobs[lo:hi] {
			var ctxs [][]int32
			if j.xid >= 0 {
				ctxs = sampleCopy(&cs, s, j.xid, o)
			}
			queries = append(queries, model.Query{Word: j.word, Contexts: ctxs})
			outs = append(outs, am[i*dim:(i+1)*dim])
		}
		m.InferBatch(queries, outs)
		for i, j := range jobs[lo:hi] {
			dst := vectors[j.row*dim : (j.row+1)*dim]
			v := outs[i]
			b := j.beta
			for k := range dst {
				dst[k] = b*v[k] + (1-b)*dst[k]
			}
		}
	}
	return nil
}

// sampleCopy samples up to o.MaxContexts contexts of corpus word xid, with a
// generator fixed by (o.Seed, xid), and copies them out of cs's reused
// buffers (the batch is inferred later).
func sampleCopy(cs *contextSet, s *Sampler, xid int32, o BundleOptions) [][]int32 {
	r := newRNG(uint64(o.Seed), tagBundle, uint64(xid))
	got := cs.sample(s, &r, xid, o.MaxContexts)
	flat := make([]int32, 0, len(cs.flat))
	ctxs := make([][]int32, len(got))
	for k, c := range got {
		a := len(flat)
		flat = append(flat, c...)
		ctxs[k] = flat[a:len(flat):len(flat)]
	}
	return ctxs
}
