package rebuild

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memory/weaviatemem"
	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
)

// weaviateSink teaches the memory kept in Weaviate through its store's own
// write path (weaviatemem.Store.Teach, what serve and the module write
// before they vectorize a passage), a batch of texts per call: serve's shared scope, or the
// module's scope of the collection or of each tenant, whose passages count
// in the shared scope too (Options.SharedCounts, as the module opens it).
type weaviateSink struct {
	store    *weaviatemem.Store
	v        *vectorizer.Vectorizer
	class    string        // the collection's scope name (module's scopes only)
	current  string        // the scope taught now
	scopes   []string      // every scope taught
	patience time.Duration // how long a failure of Weaviate is waited out
	batcher
}

func newWeaviateSink(o Options, class string) (*weaviateSink, error) {
	wo := *o.Weaviate
	wo.Memory = o.Memory
	wo.Memory.ReadOnly, wo.ReadOnly, wo.SharedCounts = false, false, o.ModuleScopes
	wo.AcceptDropped = true // a rebuild re-creates a deleted memory
	if wo.Logger == nil {
		wo.Logger = o.Memory.Logger
	}
	s := &weaviateSink{batcher: newBatcher(o.Flush), patience: 3 * wo.Timeout}
	if s.patience <= 0 {
		s.patience = 90 * time.Second
	}
	var err error
	if o.ModuleScopes {
		if s.class, err = memory.CollectionName(class); err != nil {
			return nil, fmt.Errorf("class %s: %w", class, err)
		}
	}
	if s.v, err = vectorizer.New(o.Model, nil, o.Vectorizer); err != nil {
		return nil, fmt.Errorf("vectorizer: %w", err)
	}
	if s.store, err = weaviatemem.Open(wo); err != nil {
		return nil, err // an *OptionError, which names the memory kept in Weaviate
	}
	return s, nil
}

// scope teaches the module's scope of tenant of the collection next, named
// as the module names it ("Class" or "Class/tenant"); serve's memory has
// one scope, "".
func (s *weaviateSink) scope(tenant string) error {
	s.current = ""
	if s.class != "" {
		s.current = s.class
		if tenant != "" {
			s.current += "/" + tenant
		}
	}
	s.scopes = append(s.scopes, s.current)
	return nil
}

func (s *weaviateSink) teach(ctx context.Context, p plan, text string, res *Result) error {
	return s.add(ctx, p, text, res, s.flush)
}

// flush teaches the batch once the copies it is written through are read.
func (s *weaviateSink) flush(ctx context.Context, res *Result) error {
	if len(s.batch) == 0 {
		return nil
	}
	for _, name := range []string{s.current, ""} {
		if err := s.load(ctx, name); err != nil {
			return err
		}
	}
	refused, err := s.store.Teach(ctx, s.v, s.current, s.batch, s.cur.opts)
	if err != nil {
		return fmt.Errorf("the memory in Weaviate: %w", err)
	}
	res.Refused += refused
	res.Taught += len(s.batch) - refused
	s.batch = s.batch[:0]
	return nil
}

// load waits until the store has read the copy of scope name, to be taught
// (its tenant created); an error at once when the store is refused (the
// memory's class unlike a memory, Weaviate's 4xx other than 404, 408 and
// 429: a retry cannot mend it), or when Weaviate fails for longer than the
// patience (unreachable, 5xx).
func (s *weaviateSink) load(ctx context.Context, name string) error {
	var failing time.Time
	for {
		err := s.store.Prepare(name)
		if err == nil {
			return nil
		}
		if errors.Is(err, memstore.ErrRefused) {
			return fmt.Errorf("the memory in Weaviate: %w", err)
		}
		r := s.store.Stats().Remote
		switch {
		case r.Error == "":
			failing = time.Time{}
		case failing.IsZero():
			failing = time.Now()
		case time.Since(failing) > s.patience:
			return fmt.Errorf("%w: the memory in Weaviate at %s: %s (for %v)", memstore.ErrUnavailable, r.URL, r.Error,
				s.patience)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("read the memory in Weaviate at %s: %w", r.URL, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// passages is 0: the copies in RAM read other writers' objects too.
func (s *weaviateSink) passages() int64 { return 0 }

// close records the objects written and the copies of the scopes taught,
// and stops the store (every write is done once Teach returns).
func (s *weaviateSink) close(res *Result) error {
	if res != nil {
		st := s.store.Stats().Remote
		res.Written = st.Written
		res.Scopes = map[string]memstore.ScopeStats{}
		for _, name := range s.scopes {
			res.Scopes[name] = st.Scopes[name]
		}
		if s.class != "" {
			res.Scopes[""] = st.Scopes[""]
		}
	}
	return s.store.Close()
}
