package vectorizer

import (
	"errors"
	"fmt"
	"sync"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
)

// Lesson is what teaching texts as passages writes to a memory: the
// observations offered (ContextStore.Remember) and the passages counted
// (DocFreqStore.CountPassage: each passage's tokens), in the order teaching
// writes them.
type Lesson struct {
	Observations []memory.Observation
	Passages     [][]string
}

// Lesson returns what teaching texts as passages (LearnPassage) writes to a
// memory, and writes nothing: for a memory kept elsewhere, which stores the
// lesson first and is read afterwards (a memory kept in Weaviate). A text
// refused for its AM words (ErrTooManyAMWords) teaches nothing and counts in
// refused; any other error stops it.
func (v *Vectorizer) Lesson(texts []string, opts Options) (l Lesson, refused int, err error) {
	if err := opts.Validate(); err != nil {
		return Lesson{}, 0, err
	}
	rec := &recorder{}
	rv, err := v.WithStores(rec, rec, nil)
	if err != nil {
		return Lesson{}, 0, err
	}
	for _, t := range texts {
		if _, err := rv.LearnPassage(t, opts); errors.Is(err, ErrTooManyAMWords) {
			refused++
		} else if err != nil {
			return Lesson{}, refused, fmt.Errorf("teach: %w", err)
		}
	}
	return rec.l, refused, nil
}

// recorder is the memory Lesson teaches: it records what is written to it
// and reads as empty.
type recorder struct {
	mu sync.Mutex
	l  Lesson
}

func (r *recorder) Remember(obs []memory.Observation) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.l.Observations = append(r.l.Observations, obs...)
	return nil
}

func (r *recorder) CountPassage(words []string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.l.Passages = append(r.l.Passages, append([]string(nil), words...)) // the caller reuses words
	return nil
}

func (r *recorder) ReadOnly() bool                                     { return false }
func (r *recorder) Contexts(dst []string, _ string) ([]string, uint64) { return dst, 0 }
func (r *recorder) DocFreqs(dst []int64, words []string) int64 {
	clear(dst[:len(words)])
	return 0
}
