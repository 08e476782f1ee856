package weaviatemem

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memstore"
)

const (
	// maxAbsent bounds the scopes remembered without a tenant; past it
	// those remembered longer than Options.Refresh, or else all, are
	// forgotten (and asked about again when next queried).
	maxAbsent = 1024
	// emptyCacheBytes bounds the AM vectors cached over the empty memory
	// that the queries of scopes without a tenant read.
	emptyCacheBytes = 1 << 20
)

// queryScope returns the copy of name that a query reads, or nil when
// Weaviate holds no tenant of it: the query then reads an empty memory, and
// neither a tenant nor a copy is made for it (only teaching creates them).
// A scope found without a tenant is not asked about again for o.Refresh
// (at most maxAbsent of them are remembered). With wait, it waits (up to
// ctx's end) for the class to be checked and for the copy's first read;
// without, it fails at once when either is not done. ctx bounds the
// question to Weaviate.
func (s *Store) queryScope(ctx context.Context, name string, wait bool) (*scope, error) {
	if sc := s.knownScope(name); sc != nil {
		return s.waitLoaded(ctx, sc, wait)
	}
	if err := s.refusal(); err != nil {
		return nil, err
	}
	if s.isAbsent(name) {
		return nil, nil
	}
	if err := s.waitEstablished(ctx, wait); err != nil {
		return nil, err
	}
	tenant := tenantName(name)
	exists, err := s.tenantExists(ctx, tenant)
	if err != nil {
		return nil, fmt.Errorf("%w: the memory in Weaviate at %s: scope %q: %w", memstore.ErrUnavailable, s.base, name,
			err)
	}
	if !exists {
		if sc := s.markAbsent(name); sc != nil { // taught meanwhile
			return s.waitLoaded(ctx, sc, wait)
		}
		return nil, nil
	}
	sc, err := s.openScope(name, false)
	if err != nil {
		return nil, err
	}
	return s.waitLoaded(ctx, sc, wait)
}

// knownScope returns the copy of name, nil if there is none.
func (s *Store) knownScope(name string) *scope {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scopes[name]
}

// waitLoaded returns sc once its first read is done (with wait, up to ctx's end).
func (s *Store) waitLoaded(ctx context.Context, sc *scope, wait bool) (*scope, error) {
	if err := s.refusal(); err != nil {
		return nil, err // no wait: an operator must act
	}
	if !wait {
		if sc.isLoaded() {
			return sc, nil
		}
		return nil, fmt.Errorf("%w: the copy of the memory in Weaviate at %s is not read yet (%s)",
			memstore.ErrUnavailable, s.base, s.lastErr())
	}
	select {
	case <-sc.loaded:
		return sc, nil
	default:
	}
	select {
	case <-sc.loaded:
		return sc, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: the copy of the memory in Weaviate at %s is not read yet (%s): %v",
			memstore.ErrUnavailable, s.base, s.lastErr(), ctx.Err())
	case <-s.stop:
		return nil, fmt.Errorf("%w: the store is closed", memstore.ErrUnavailable)
	}
}

// waitEstablished returns once the class was first found or created (with
// wait, up to ctx's end).
func (s *Store) waitEstablished(ctx context.Context, wait bool) error {
	select {
	case <-s.established:
		return nil
	default:
	}
	if !wait {
		return fmt.Errorf("%w: the memory's class in Weaviate at %s is not checked yet (%s)", memstore.ErrUnavailable,
			s.base, s.lastErr())
	}
	select {
	case <-s.established:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%w: the memory's class in Weaviate at %s is not checked yet (%s): %v",
			memstore.ErrUnavailable, s.base, s.lastErr(), ctx.Err())
	case <-s.stop:
		return fmt.Errorf("%w: the store is closed", memstore.ErrUnavailable)
	}
}

// tenantExists reports whether the memory's class has tenant (Weaviate's
// 404: it has not).
func (s *Store) tenantExists(ctx context.Context, tenant string) (bool, error) {
	err := s.call(ctx, http.MethodGet, "/v1/schema/"+url.PathEscape(s.o.Class)+"/tenants/"+url.PathEscape(tenant), nil,
		nil)
	if notFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read tenant %s of class %s: %w", tenant, s.o.Class, err)
	}
	return true, nil
}

// isAbsent reports whether name was found without a tenant less than
// o.Refresh ago.
func (s *Store) isAbsent(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok := s.absent[name]
	return ok && time.Since(at) < s.o.Refresh
}

// markAbsent remembers that name has no tenant, unless a copy of it was
// made meanwhile (a passage taught it), which it returns.
func (s *Store) markAbsent(name string) *scope {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sc := s.scopes[name]; sc != nil {
		return sc
	}
	s.addAbsent(name)
	return nil
}

// addAbsent remembers that name has no tenant; past maxAbsent names it
// first forgets those found longer than o.Refresh ago or, if that frees
// nothing, all. s.mu must be held.
func (s *Store) addAbsent(name string) {
	if len(s.absent) >= maxAbsent {
		for old, at := range s.absent {
			if time.Since(at) >= s.o.Refresh {
				delete(s.absent, old)
			}
		}
		if len(s.absent) >= maxAbsent {
			clear(s.absent)
		}
	}
	s.absent[name] = time.Now()
}

// errTenantGone is a refresh that found the scope's tenant gone.
var errTenantGone = errors.New("its tenant is gone from Weaviate: the copy is dropped")

// dropIfGone drops the copy sc when Weaviate no longer holds its tenant
// (deleted: text2vec-am memory delete, or another server's Store.Delete),
// which a failed refresh of it may mean; it reports whether it did. The
// tenant is not created again: its queries read an empty memory until a
// passage teaches the scope. sc.reading must be held.
func (s *Store) dropIfGone(ctx context.Context, sc *scope) bool {
	if exists, err := s.tenantExists(ctx, sc.tenant); err != nil || exists {
		return false
	}
	s.mu.Lock()
	if !sc.isLoaded() && sc.teach.Load() {
		s.mu.Unlock()
		return false // a passage came for it meanwhile: its tenant is created at the next refresh
	}
	if s.scopes[sc.name] == sc {
		s.forget(sc)
		s.addAbsent(sc.name)
	}
	s.mu.Unlock()
	sc.deleted = true
	sc.markLoaded() // a request waiting for its first read reads it empty
	s.o.Logger.Info("context memory: a scope's tenant is gone from Weaviate; its copy is dropped", "class", s.o.Class,
		"tenant", sc.tenant)
	return true
}
