package rebuild

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
)

// sink is the memory a rebuild teaches.
type sink interface {
	scope(tenant string) error // teach the tenant's objects next
	teach(ctx context.Context, p plan, text string, res *Result) error
	flush(ctx context.Context, res *Result) error
	close(res *Result) error
	passages() int64 // passages counted now (0 for the memory in Weaviate)
}

func openSink(ctx context.Context, o Options, class string) (sink, error) {
	switch {
	case o.Weaviate != nil:
		return newWeaviateSink(o, class)
	case o.ModuleDir != "":
		return newLocalSink(o, o.ModuleDir, class)
	}
	return newLocalSink(o, o.MemoryDir, "")
}

// localSink teaches a memory directory: serve's (the memory itself), or the
// module's (the memory of the collection or its tenant, whose passages
// count in the module's shared counts too, as an import counts them).
type localSink struct {
	mem   *memory.Memory      // the directory's memory (holds its lock)
	colls *memory.Collections // the module's collections (nil for serve's)
	class string              // the collection's name in colls
	base  *vectorizer.Vectorizer
	dst   *memory.Memory // the memory taught now
	v     *vectorizer.Vectorizer
	dsts  []*memory.Memory // every memory taught
}

func newLocalSink(o Options, dir, class string) (*localSink, error) {
	mopts := o.Memory
	mopts.ReadOnly = false
	mem, err := memory.Open(dir, mopts)
	if err != nil {
		return nil, err // Open names the directory
	}
	claimModel(mem, o)
	s := &localSink{mem: mem, dst: mem}
	if s.base, err = vectorizer.New(o.Model, mem, o.Vectorizer); err == nil && class != "" {
		if s.class, err = memory.CollectionName(class); err == nil {
			s.colls = memory.NewCollections(dir, mopts, memory.MaxCollections)
		}
	}
	if err != nil {
		s.close(nil)
		return nil, fmt.Errorf("memory in %s: %w", dir, err)
	}
	return s, nil
}

// claimModel records in mem's directory that o's model writes it, and
// warns (o.Memory.Logger) when another model wrote it.
func claimModel(mem *memory.Memory, o Options) {
	if o.Model == nil {
		return // vectorizer.New refuses it
	}
	log := cmp.Or(o.Memory.Logger, slog.Default())
	id := memory.ModelID{Name: o.ModelName, Fingerprint: o.Model.Base.VocabularyFingerprint()}
	rec, err := mem.ClaimModel(id)
	switch {
	case err != nil:
		log.Warn("the context memory's model is not known", "err", err)
	case rec.Fingerprint != id.Fingerprint:
		log.Warn("the context memory was written with another model: it holds contexts of the words "+
			"that model's vocabulary chose; clear it (memory clear) and rebuild it with this model",
			"memory_model", rec.String(), "model", id.String(), "dir", mem.Stats().Dir)
	}
}

// scope teaches the module's memory of tenant of the collection next
// (serve's memory has one scope).
func (s *localSink) scope(tenant string) error {
	if s.colls == nil {
		s.dst, s.v = s.mem, s.base
	} else {
		dst, err := s.colls.GetTenant(s.class, tenant)
		if err != nil {
			return fmt.Errorf("tenant %q: %w", tenant, err)
		}
		v, err := s.base.WithStores(dst, memory.CollectionCounts{Collection: dst, Shared: s.mem}, nil)
		if err != nil {
			return fmt.Errorf("tenant %q: %w", tenant, err)
		}
		s.dst, s.v = dst, v
	}
	if !slices.Contains(s.dsts, s.dst) {
		s.dsts = append(s.dsts, s.dst)
	}
	return nil
}

func (s *localSink) teach(_ context.Context, p plan, text string, res *Result) error {
	_, err := s.v.LearnPassage(text, p.opts)
	switch {
	case errors.Is(err, vectorizer.ErrTooManyAMWords):
		res.Refused++
		return nil
	case err != nil:
		return err
	}
	res.Taught++
	return nil
}

func (s *localSink) flush(context.Context, *Result) error { return nil }

func (s *localSink) passages() int64 { return s.dst.Stats().Passages }

// close closes the memories (fsync and snapshot) and records the summary
// of the one taught.
func (s *localSink) close(res *Result) error {
	var errs []error
	if s.colls != nil {
		errs = append(errs, s.colls.Close())
	}
	errs = append(errs, s.mem.Close())
	if res != nil {
		for _, m := range s.dsts {
			res.Memories = append(res.Memories, m.Stats())
		}
	}
	return errors.Join(errs...)
}

// batcher groups the texts a remote memory is taught in batches of one
// collection and options, at most flushAt texts each.
type batcher struct {
	flushAt int
	batch   []string
	cur     plan // the collection and options of batch
}

func newBatcher(flushAt int) batcher {
	if flushAt <= 0 {
		flushAt = 256
	}
	return batcher{flushAt: flushAt}
}

// add adds text of p to the batch: flush is called first when p has
// another collection or options, and after when the batch is full.
func (b *batcher) add(ctx context.Context, p plan, text string, res *Result, flush func(context.Context, *Result) error) error {
	if len(b.batch) > 0 && (p.collection != b.cur.collection || p.opts != b.cur.opts) {
		if err := flush(ctx, res); err != nil {
			return err
		}
	}
	b.cur = p
	b.batch = append(b.batch, text)
	if len(b.batch) >= b.flushAt {
		return flush(ctx, res)
	}
	return nil
}
