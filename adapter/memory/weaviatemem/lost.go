package weaviatemem

import (
	"context"
	"errors"
	"fmt"
)

// ErrLost is the error of a scope whose memory is lost: it has no object in
// Weaviate although Options.Witness counted objects that taught it.
var ErrLost = errors.New("the context memory is lost")

// witness asks Options.Witness how many objects taught sc's memory (0
// without a witness, or when it fails).
func (s *Store) witness(ctx context.Context, sc *scope) int {
	if s.o.Witness == nil {
		return 0
	}
	n, err := s.o.Witness(ctx, s.call, sc.name)
	if err != nil {
		s.o.Logger.Warn("context memory: could not count the objects that taught a memory; it is not checked",
			"class", s.o.Class, "tenant", sc.tenant, "scope", sc.name, "err", err)
		return 0
	}
	return n
}

// lostErr returns the error of sc when its memory is lost, else nil.
func (s *Store) lostErr(sc *scope) error {
	sc.mu.RLock()
	defer sc.mu.RUnlock()
	if sc.lost == 0 {
		return nil
	}
	return fmt.Errorf("%w: tenant %s of %s at %s holds no object, but %d objects of %s were imported "+
		"teaching it (it was deleted or its data lost): rebuild it from them with `text2vec-am memory rebuild "+
		"--memory-weaviate URL --module-scopes` (docs/operations.md), or delete the collection",
		ErrLost, sc.tenant, s.o.Class, s.base, sc.lost, scopeTitle(sc.name))
}

// scopeTitle names a scope in messages.
func scopeTitle(name string) string {
	if name == "" {
		return "the shared memory"
	}
	return "collection " + name
}
