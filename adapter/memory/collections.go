package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"
)

// MaxCollections is the most collections whose passage counts a Collections
// may keep (the max of NewCollections is at most this).
const MaxCollections = 1024

// ErrTooManyCollections is returned by Collections.Get beyond its max.
var ErrTooManyCollections = errors.New("too many collections")

// collectionName is a Weaviate class name.
var collectionName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,254}$`)

// ValidCollectionName checks that name is a Weaviate class name (it becomes
// a directory name).
func ValidCollectionName(name string) error {
	if !collectionName.MatchString(name) {
		return fmt.Errorf("collection %q: want a Weaviate class name ([A-Za-z_][A-Za-z0-9_]*, at most 255 bytes)", name)
	}
	return nil
}

// Collections keeps the passage counts (CountPassage, DocFreqs) of each
// collection in a Memory of its own, <dir>/collections/<name> (in RAM when
// dir is ""), opened on first use with opts. It is safe for concurrent use.
type Collections struct {
	dir  string
	opts Options
	max  int
	mu   sync.Mutex
	m    map[string]*Memory
}

// NewCollections returns the collections' counts beside the memory in dir,
// keeping at most limit collections open (clamped to 1 … MaxCollections):
// the memory they hold is bounded by limit times what opts allows one memory.
func NewCollections(dir string, opts Options, limit int) *Collections {
	limit = min(MaxCollections, max(1, limit))
	return &Collections{dir: dir, opts: opts, max: limit, m: map[string]*Memory{}}
}

// Get returns the counts of collection name, opening them on first use.
func (c *Collections) Get(name string) (*Memory, error) {
	return c.get(name, true)
}

// Find returns the counts of collection name if any were ever kept (nil
// otherwise): a read never creates a collection's counts.
func (c *Collections) Find(name string) (*Memory, error) {
	return c.get(name, false)
}

func (c *Collections) get(name string, create bool) (*Memory, error) {
	if err := ValidCollectionName(name); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := c.m[name]; m != nil {
		return m, nil
	}
	if !create {
		if c.dir == "" {
			return nil, nil
		}
		if _, err := os.Stat(filepath.Join(c.dir, "collections", name)); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
	}
	if len(c.m) >= c.max {
		return nil, fmt.Errorf("passage counts of collection %q: %w (%d kept)", name, ErrTooManyCollections, c.max)
	}
	dir := ""
	if c.dir != "" {
		dir = filepath.Join(c.dir, "collections", name)
	}
	m, err := Open(dir, c.opts)
	if err != nil {
		return nil, fmt.Errorf("passage counts of collection %q: %w", name, err)
	}
	c.m[name] = m
	return m, nil
}

// Close closes every collection's counts (fsync and snapshot).
func (c *Collections) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for name, m := range c.m {
		if err := m.Close(); err != nil {
			errs = append(errs, fmt.Errorf("passage counts of collection %q: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// CollectionCounts are the passage counts of one collection that also count
// every passage in the shared counts (read by those that cannot name the
// collection): CountPassage counts in both, DocFreqs reads the collection's.
// A nil Collection (one that never counted a passage, read without
// creating it) reads as empty and counts nothing.
type CollectionCounts struct {
	Collection, Shared *Memory
}

// CountPassage counts words as a passage of the collection and of the shared counts.
func (c CollectionCounts) CountPassage(words []string) error {
	if c.Collection == nil {
		return ErrReadOnly
	}
	if err := c.Shared.CountPassage(words); err != nil {
		return err
	}
	return c.Collection.CountPassage(words)
}

// DocFreqs reads the collection's counts.
func (c CollectionCounts) DocFreqs(dst []int64, words []string) int64 {
	if c.Collection == nil {
		clear(dst[:len(words)])
		return 0
	}
	return c.Collection.DocFreqs(dst, words)
}

// Clear empties the passage counts of every collection ever kept beside the
// memory (those on disk as well as those open), as Memory.Clear empties the
// memory; a name that is not a collection's is left alone.
func (c *Collections) Clear() error {
	var names []string
	if c.dir != "" {
		ents, err := os.ReadDir(filepath.Join(c.dir, "collections"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("passage counts of the collections: %w", err)
		}
		for _, e := range ents {
			if e.IsDir() && ValidCollectionName(e.Name()) == nil {
				names = append(names, e.Name())
			}
		}
	}
	c.mu.Lock()
	for name := range c.m {
		names = append(names, name)
	}
	c.mu.Unlock()
	for _, name := range names {
		m, err := c.Get(name)
		if err != nil {
			return err
		}
		if err := m.Clear(); err != nil {
			return fmt.Errorf("passage counts of collection %q: %w", name, err)
		}
	}
	return nil
}
