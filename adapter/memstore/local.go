package memstore

import (
	"context"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
)

// Local is a memory of this process (package memory): the vectorizers
// given to it must be made over it (vectorizer.New with it as the store),
// and it has one scope, the memory itself.
type Local struct{ mem *memory.Memory }

// NewLocal returns the store of mem.
func NewLocal(mem *memory.Memory) *Local { return &Local{mem: mem} }

// Memory returns the memory.
func (l *Local) Memory() *memory.Memory { return l.mem }

// VectorizeBatch vectorizes texts with v, which teaches and reads the
// memory as it vectorizes (scope is not used).
func (l *Local) VectorizeBatch(ctx context.Context, v *vectorizer.Vectorizer, _ string, texts []string,
	task vectorizer.Task, opts vectorizer.Options) ([][]float32, []error, error) {
	if len(texts) == 1 { // one text: no batch to learn first
		vec, err := v.VectorizeContext(ctx, texts[0], task, opts)
		return [][]float32{vec}, []error{err}, nil
	}
	vecs, errs := v.VectorizeBatchContext(ctx, texts, task, opts)
	return vecs, errs, nil
}

// Reader returns v.
func (l *Local) Reader(v *vectorizer.Vectorizer, _ string) (*vectorizer.Vectorizer, error) {
	return v, nil
}

// Stats returns the memory's.
func (l *Local) Stats() Stats { return Stats{Backend: BackendLocal, Memory: l.mem.Stats()} }

// Ready returns the memory's WriteErr.
func (l *Local) Ready() error { return l.mem.WriteErr() }

// Close closes the memory.
func (l *Local) Close() error { return l.mem.Close() }
