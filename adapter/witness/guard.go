package witness

import (
	"context"
	"errors"

	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
)

// Guard returns s guarded by w: vectorizing waits until w has read the
// witness and fails with w's error (a server answers 503) unless the memory
// was accepted; Reader (explanations) fails at once until then; Ready fails
// once the memory is refused (not while the witness is read, so that a
// Weaviate that waits for this server's readiness before it answers can
// start); Close closes w, logging a last count it could not record, then s.
func (w *Witness) Guard(s memstore.Store) memstore.Store { return &guarded{Store: s, w: w} }

type guarded struct {
	memstore.Store
	w *Witness
}

func (g *guarded) VectorizeBatch(ctx context.Context, v *vectorizer.Vectorizer, scope string, texts []string,
	task vectorizer.Task, opts vectorizer.Options) ([][]float32, []error, error) {
	if err := g.w.Wait(ctx); err != nil {
		return nil, nil, err
	}
	return g.Store.VectorizeBatch(ctx, v, scope, texts, task, opts)
}

func (g *guarded) Reader(v *vectorizer.Vectorizer, scope string) (*vectorizer.Vectorizer, error) {
	if err := g.w.Err(); err != nil {
		return nil, err
	}
	return g.Store.Reader(v, scope)
}

func (g *guarded) Ready() error {
	if err := g.w.Err(); errors.Is(err, ErrBehind) {
		return err
	}
	return g.Store.Ready()
}

func (g *guarded) Close() error {
	if err := g.w.Close(); err != nil {
		g.w.o.Logger.Warn("context memory: its last count is not recorded in its witness in Weaviate", "err", err)
	}
	return g.Store.Close()
}
