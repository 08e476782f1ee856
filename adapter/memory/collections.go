package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// MaxCollections is the most collections whose passage counts a Collections
// may keep (the max of NewCollections is at most this).
const MaxCollections = 1024

// ErrTooManyCollections is returned by Collections.Get beyond its max.
var ErrTooManyCollections = errors.New("too many collections")

// ErrInvalidCollection is wrapped by the errors of ValidCollectionName and
// CollectionName: the name is not a Weaviate class name.
var ErrInvalidCollection = errors.New("not a Weaviate class name")

// collectionName is a name a collection's directory may have: a loose
// Weaviate class name (also those of older Weaviate versions).
var collectionName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,254}$`)

// ValidCollectionName checks that name may name a collection's directory
// (a loose Weaviate class name: [A-Za-z_][A-Za-z0-9_]*, at most 255 bytes);
// the error wraps ErrInvalidCollection. A name from a request goes through
// CollectionName first.
func ValidCollectionName(name string) error {
	if !collectionName.MatchString(name) {
		return fmt.Errorf("collection %q: %w ([A-Za-z_][A-Za-z0-9_]*, at most 255 bytes)", name, ErrInvalidCollection)
	}
	return nil
}

// weaviateClassName is Weaviate's class-name rule (entities/schema
// validation, v1.39), applied after its first letter is upper-cased.
var weaviateClassName = regexp.MustCompile(`^[A-Z][_0-9A-Za-z]{0,254}$`)

// CollectionName returns the name Weaviate gives the collection a request
// names: its first letter upper-cased as Weaviate's UppercaseClassName does
// ("books" is "Books"), then checked against Weaviate's class-name rule, an
// upper-case letter then letters, digits and '_', at most 255 bytes in all
// ("_Books" is refused); the error wraps ErrInvalidCollection. Weaviate
// always sends a class name in this form.
func CollectionName(name string) (string, error) {
	canon := name
	if name != "" && 'a' <= name[0] && name[0] <= 'z' {
		canon = string(name[0]-'a'+'A') + name[1:]
	}
	if !weaviateClassName.MatchString(canon) {
		return "", fmt.Errorf("collection %q: %w (an upper-case letter, then letters, digits and '_', at most 255 bytes; a first lower-case letter is upper-cased)", name, ErrInvalidCollection)
	}
	return canon, nil
}

// Collections keeps the memory (contexts and passage counts) of each
// collection, and of each tenant of a collection, in a Memory of its own,
// <dir>/collections/<name> and <dir>/collections/<name>/tenants/<tenant>
// (in RAM when dir is ""), opened on first use with opts: the in-process
// module's memories per collection and tenant (serve keeps one memory). It is
// safe for concurrent use.
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
	return c.get(name, "", true)
}

// Find returns the counts of collection name if any were ever kept (nil
// otherwise): a read never creates a collection's counts.
func (c *Collections) Find(name string) (*Memory, error) {
	return c.get(name, "", false)
}

// GetTenant returns the memory (contexts and counts) of tenant of
// collection name, opening it on first use; tenant "" is Get.
func (c *Collections) GetTenant(name, tenant string) (*Memory, error) {
	return c.get(name, tenant, true)
}

// FindTenant returns the memory of tenant of collection name if one was
// ever kept (nil otherwise); tenant "" is Find.
func (c *Collections) FindTenant(name, tenant string) (*Memory, error) {
	return c.get(name, tenant, false)
}

func (c *Collections) get(name, tenant string, create bool) (*Memory, error) {
	if err := validScope(name, tenant); err != nil {
		return nil, err
	}
	key, dir := scopeKey(name, tenant), scopeDir(c.dir, name, tenant)
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := c.m[key]; m != nil {
		return m, nil
	}
	if !create {
		if c.dir == "" {
			return nil, nil
		}
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
	}
	if len(c.m) >= c.max {
		return nil, fmt.Errorf("memory of collection %q: %w (%d kept)", key, ErrTooManyCollections, c.max)
	}
	m, err := Open(dir, c.opts)
	if err != nil {
		return nil, fmt.Errorf("memory of collection %q: %w", key, err)
	}
	c.m[key] = m
	return m, nil
}

// Delete closes and deletes the memory of tenant of collection name, or,
// for tenant "", of the collection and all its tenants: the contexts and
// counts are gone from RAM and disk. Deleting what was never kept is no error.
func (c *Collections) Delete(name, tenant string) error {
	if err := validScope(name, tenant); err != nil {
		return err
	}
	key := scopeKey(name, tenant)
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for k, m := range c.m {
		if k == key || (tenant == "" && strings.HasPrefix(k, name+"/")) {
			errs = append(errs, m.Close())
			delete(c.m, k)
		}
	}
	if c.dir != "" {
		if err := os.RemoveAll(scopeDir(c.dir, name, tenant)); err != nil {
			errs = append(errs, fmt.Errorf("delete memory of collection %q: %w", key, err))
		}
	}
	return errors.Join(errs...)
}

// Has reports whether the memory of tenant of collection name (tenant "":
// of the collection) is open or kept in the directory.
func (c *Collections) Has(name, tenant string) bool {
	if validScope(name, tenant) != nil {
		return false
	}
	c.mu.Lock()
	_, open := c.m[scopeKey(name, tenant)]
	c.mu.Unlock()
	if open || c.dir == "" {
		return open
	}
	_, err := os.Stat(scopeDir(c.dir, name, tenant))
	return err == nil
}

// ErrInvalidTenant is wrapped by the errors of a tenant name that is not Weaviate's.
var ErrInvalidTenant = errors.New("not a Weaviate tenant name")

// tenantName is Weaviate's tenant-name rule (v1.39).
var tenantName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ValidTenantName reports an error wrapping ErrInvalidTenant unless tenant
// is a Weaviate tenant name ([A-Za-z0-9_-], 1 to 64 bytes) of collection name.
func ValidTenantName(name, tenant string) error {
	if !tenantName.MatchString(tenant) {
		return fmt.Errorf("tenant %q of collection %q: %w ([A-Za-z0-9_-], 1 to 64 bytes)", tenant, name, ErrInvalidTenant)
	}
	return nil
}

// validScope checks a collection name and a tenant name ("" for none).
func validScope(name, tenant string) error {
	if err := ValidCollectionName(name); err != nil {
		return err
	}
	if tenant != "" {
		return ValidTenantName(name, tenant)
	}
	return nil
}

// scopeKey names the memory of tenant of collection name: "name" or "name/tenant".
func scopeKey(name, tenant string) string {
	if tenant == "" {
		return name
	}
	return name + "/" + tenant
}

// scopeDir is the directory of the memory of tenant of collection name
// beside the memory in dir: <dir>/collections/<name>[/tenants/<tenant>].
func scopeDir(dir, name, tenant string) string {
	d := collectionDir(dir, name)
	if d == "" || tenant == "" {
		return d
	}
	return filepath.Join(d, "tenants", tenant)
}

// Open returns the Stats of every memory open now, by scope ("name" or
// "name/tenant"): a memory kept on disk but not used since the start is not
// among them.
func (c *Collections) Open() map[string]Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]Stats, len(c.m))
	for key, m := range c.m {
		out[key] = m.Stats()
	}
	return out
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
	return c.CountPassages([][]string{words})
}

// CountPassages counts passages in the shared counts, then in the
// collection's, each in one log write (Memory.CountPassages: a failed write
// counts nothing; a failed fsync of SyncAlways keeps the counts). Both are first checked writable (WriteErr), so that a
// full disk refuses the passages before either counts them and a retry
// counts them once. What remains: should the collection's write fail after
// the shared one succeeded (the disk filling between the two), the shared
// counts keep the passages and a retry counts them there twice; the log
// cannot take a count back (a lower passage count reads as corruption).
// No passages count nothing and return nil, whatever state the logs are in.
func (c CollectionCounts) CountPassages(passages [][]string) error {
	if len(passages) == 0 {
		return nil // nothing to count: a broken log must not fail the learn
	}
	if c.Collection == nil {
		return ErrReadOnly
	}
	if err := errors.Join(c.Shared.WriteErr(), c.Collection.WriteErr()); err != nil {
		return err
	}
	if err := c.Shared.CountPassages(passages); err != nil {
		return err
	}
	return c.Collection.CountPassages(passages)
}

// DocFreqs reads the collection's counts.
func (c CollectionCounts) DocFreqs(dst []int64, words []string) int64 {
	if c.Collection == nil {
		clear(dst[:len(words)])
		return 0
	}
	return c.Collection.DocFreqs(dst, words)
}

// Clear empties the memories of every collection and tenant ever kept
// beside the memory (those on disk as well as those open), as Memory.Clear
// empties the memory; a name that is not a collection's or tenant's is left alone.
func (c *Collections) Clear() error {
	names, err := CollectionNames(c.dir)
	if err != nil {
		return err
	}
	for _, name := range names {
		if _, err := c.Get(name); err != nil {
			return err
		}
		ents, _ := os.ReadDir(filepath.Join(collectionDir(c.dir, name), "tenants"))
		for _, e := range ents {
			if e.IsDir() && tenantName.MatchString(e.Name()) {
				if _, err := c.GetTenant(name, e.Name()); err != nil {
					return err
				}
			}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for key, m := range c.m {
		if err := m.Clear(); err != nil {
			return fmt.Errorf("memory of collection %q: %w", key, err)
		}
	}
	return nil
}

// collectionDir is the directory of collection name's passage counts beside
// the memory in dir ("" in RAM only).
func collectionDir(dir, name string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "collections", name)
}

// CollectionNames returns the sorted names of the collections whose passage
// counts are kept on disk beside the memory in dir (none for dir ""); a
// directory whose name is not a collection's is left out.
func CollectionNames(dir string) ([]string, error) {
	if dir == "" {
		return nil, nil
	}
	ents, err := os.ReadDir(filepath.Join(dir, "collections"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("passage counts of the collections: %w", err)
	}
	var names []string
	for _, e := range ents { // os.ReadDir sorts by name
		if e.IsDir() && ValidCollectionName(e.Name()) == nil {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// CollectionStats opens read-only, one at a time, the passage counts of
// every collection kept beside the memory in dir (CollectionNames) and
// returns their Stats by name; each Stats.Dir is the collection's directory.
// Like a read-only Open it salvages damage in RAM and changes nothing. A
// collection that cannot be read is left out and named, with its directory,
// in the error, which joins one per such collection; the others are read.
func CollectionStats(dir string, opts Options) (map[string]Stats, error) {
	names, err := CollectionNames(dir)
	if err != nil {
		return nil, err
	}
	opts.ReadOnly = true
	out := make(map[string]Stats, len(names))
	var errs []error
	for _, name := range names {
		cdir := collectionDir(dir, name)
		m, err := Open(cdir, opts)
		if err != nil {
			errs = append(errs, fmt.Errorf("passage counts of collection %q (%s): %w", name, cdir, err))
			continue
		}
		out[name] = m.Stats()
		if err := m.Close(); err != nil {
			errs = append(errs, fmt.Errorf("passage counts of collection %q (%s): %w", name, cdir, err))
		}
	}
	return out, errors.Join(errs...)
}
