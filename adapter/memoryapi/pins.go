package memoryapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/text2vec-am/text2vec-am/internal/atomicfile"
)

// ErrStoreLost reports a holder that counts fewer passages for a collection
// than it counted before: its store was lost or replaced (a new volume, a
// cleared memory), and the vectors stored in Weaviate no longer agree with
// what the nodes compute. Imports are refused until the store is restored,
// or the pin file is deleted and the collection refreshed.
var ErrStoreLost = errors.New("the memory holder lost passages it had counted")

// maxPinBytes bounds the pin file read at start.
const maxPinBytes = 16 << 20

// pinSaveEvery is how often a grown pin is written at most.
const pinSaveEvery = 5 * time.Second

// pins are the highest passage count the holder reported for each collection,
// kept in a file on the client's disk so that a holder that comes back
// without its store is noticed after any restart of either.
type pins struct {
	path string // "" = not kept

	mu     sync.Mutex
	counts map[string]int64
	dirty  bool
	saved  time.Time
}

// loadPins reads the pin file at path (none yet: no pins).
func loadPins(path string) (*pins, error) {
	p := &pins{path: path, counts: map[string]int64{}}
	if path == "" {
		return p, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return nil, fmt.Errorf("memory pin file %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxPinBytes {
		return nil, fmt.Errorf("memory pin file %s: want a regular file of at most %d bytes (%v)", path, maxPinBytes, err)
	}
	if err := json.NewDecoder(f).Decode(&p.counts); err != nil {
		return nil, fmt.Errorf("memory pin file %s: %w (delete it to pin the holder's counts anew)", path, err)
	}
	for c, n := range p.counts {
		if n < 0 {
			return nil, fmt.Errorf("memory pin file %s: collection %q has %d passages", path, c, n)
		}
	}
	return p, nil
}

// check compares the holder's count of collection's passages with the pin:
// fewer is ErrStoreLost; more raises the pin (written at most every
// pinSaveEvery).
func (p *pins) check(collection string, passages int64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	pinned := p.counts[collection]
	if passages < pinned {
		name := collection
		if name == "" {
			name = "(the shared counts)"
		}
		return fmt.Errorf("%w: collection %s: %d passages now, %d before (pinned in %s): restore the holder's volume, "+
			"or delete the pin file and run text2vec-am refresh on the collection", ErrStoreLost, name, passages, pinned, p.path)
	}
	if passages > pinned {
		p.counts[collection] = passages
		p.dirty = true
	}
	if p.dirty && time.Since(p.saved) >= pinSaveEvery {
		return p.saveLocked()
	}
	return nil
}

// save writes grown pins.
func (p *pins) save() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.saveLocked()
}

func (p *pins) saveLocked() error {
	if p.path == "" || !p.dirty {
		return nil
	}
	data, err := json.Marshal(p.counts)
	if err != nil {
		return fmt.Errorf("memory pin file %s: %w", p.path, err)
	}
	if err := atomicfile.WriteFile(p.path, data, 0o600); err != nil {
		return fmt.Errorf("memory pin file %s: %w", p.path, err)
	}
	p.dirty, p.saved = false, time.Now()
	return nil
}
