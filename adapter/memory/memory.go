package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

var (
	// ErrReadOnly is returned by the writing methods of a read-only Memory.
	ErrReadOnly = errors.New("context memory is read-only")
	// ErrClosed is returned by the writing methods after Close.
	ErrClosed = errors.New("context memory is closed")
)

// Memory is the context memory. It is safe for concurrent use.
type Memory struct {
	opts Options
	dir  string
	log  *slog.Logger

	// compactMu serializes snapshots, Clear and Close. Lock order: compactMu, syncMu, mu.
	compactMu sync.Mutex
	// syncMu serializes fsyncs of the log and log rotation.
	syncMu    sync.Mutex
	syncedSeq atomic.Uint64

	mu       sync.RWMutex
	words    map[string]*entry
	recent   recency // the words, least recently changed first
	changes  uint64  // changes to words (their order: entry.seq)
	bytes    int64   // bytes of the stored contexts
	used     int64   // bytes counted against MaxBytes (contexts, words, overheads)
	evicted  int64   // words evicted since Open
	evictCtx int64   // their contexts
	// evictedLoading: Open evicted words while it read the files (they held
	// more than loadSlack times the caps), not only once all were read.
	evictedLoading bool
	nctx           int
	version        uint64
	offered        int64
	rejected       int64
	records        int64 // records in the current log generation
	appended       int64 // records appended since Open
	gen            uint64
	logFile        *os.File
	logSize        int64
	writeSeq       uint64
	buf            []byte
	closed         bool

	df         map[string]*docCount // passages containing each word
	dfGen      uint64               // changes whenever a counter leaves df (RowTable)
	passages   int64                // passages counted
	dfRejected int64                // new words not counted: the table was full or the word invalid
	oldFormat  bool                 // a file of format version 1 was loaded
	converted  bool                 // a file of an older format version was loaded
	seen       passageSet           // content hashes of the passages counted
	failed     error                // a failed log write stops further writes until the log is repaired
	damage     []Damage             // damaged files found by Open
	lastRepair time.Time            // last attempt to make the log writable again
	model      ModelID              // the model that claimed the memory (ClaimModel)
	recorded   ModelID              // the model its directory records

	snapshotBytes atomic.Int64
	compacting    atomic.Bool // a background snapshot is pending
	bg            sync.WaitGroup
	stop          chan struct{}
	unlock        func() error
}

// Open loads the memory in dir, creating it (mode 0700) if missing; dir ""
// keeps the memory in RAM only. See the package documentation for recovery.
func Open(dir string, opts Options) (*Memory, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	m := &Memory{
		opts:  opts,
		dir:   dir,
		log:   opts.Logger,
		words: make(map[string]*entry),
		df:    make(map[string]*docCount),
		stop:  make(chan struct{}),
	}
	if m.log == nil {
		m.log = slog.Default()
	}
	if dir == "" {
		return m, nil
	}
	err := m.openDir()
	// A read-only reader races with the writer's snapshots, which delete the
	// files they replace: start over from a fresh directory listing.
	for try := 0; opts.ReadOnly && errors.Is(err, fs.ErrNotExist) && try < 5; try++ {
		m.words, m.recent, m.bytes, m.used, m.nctx = make(map[string]*entry), nil, 0, 0, 0
		m.seen = passageSet{}
		m.df, m.passages, m.oldFormat = make(map[string]*docCount), 0, false
		m.evicted, m.evictCtx, m.dfRejected = 0, 0, 0 // what the attempt evicted and did not count
		m.evictedLoading = false
		m.dfGen++
		err = m.openDir()
	}
	if err != nil {
		if m.logFile != nil {
			m.logFile.Close()
		}
		if m.unlock != nil {
			m.unlock()
		}
		return nil, err
	}
	m.openModel()
	if !opts.ReadOnly && opts.Sync == SyncInterval {
		m.bg.Add(1)
		go m.syncLoop()
	}
	return m, nil
}

func (m *Memory) syncLoop() {
	defer m.bg.Done()
	t := time.NewTicker(m.opts.SyncEvery)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			m.WriteErr() // retries a failed log once space is back
			if err := m.Sync(); err != nil && !errors.Is(err, ErrClosed) {
				m.log.Error("context memory: periodic fsync failed", "dir", m.dir, "err", err)
			}
		}
	}
}

// ReadOnly reports whether the memory never writes.
func (m *Memory) ReadOnly() bool { return m.opts.ReadOnly }

// Options returns the options the memory was opened with.
func (m *Memory) Options() Options { return m.opts }

// Close fsyncs the log, writes a snapshot if anything changed since the last
// one, and releases the directory. After a failed write it writes no snapshot
// and cuts the log back to its last complete record instead. It is idempotent.
func (m *Memory) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	failed := m.failed
	m.mu.Unlock()
	close(m.stop)
	m.bg.Wait()
	if m.dir == "" {
		return nil
	}
	var errs []error
	if m.logFile != nil {
		m.compactMu.Lock()
		if (m.records > 0 || m.oldFormat || m.converted) && failed == nil { // rewrite an older format's files too
			if err := m.compactLocked(); err != nil {
				errs = append(errs, err)
			}
		}
		m.compactMu.Unlock()
		if failed != nil {
			// Cut back what a failed write left (change tried already; this
			// covers a cut that failed then): Open must not replay it.
			if err := m.cutBackLocked(); err != nil {
				errs = append(errs, err)
			}
		} else if err := m.logFile.Sync(); err != nil {
			errs = append(errs, fmt.Errorf("fsync context memory log %s: %w", m.logFile.Name(), err))
		}
		if err := m.logFile.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close context memory log: %w", err))
		}
	}
	if m.unlock != nil {
		if err := m.unlock(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Dir returns the memory's directory ("" in RAM only).
func (m *Memory) Dir() string { return m.dir }

func (m *Memory) path(kind byte, gen uint64) string {
	name := "log"
	if kind == kindSnapshot {
		name = "snapshot"
	}
	return filepath.Join(m.dir, fmt.Sprintf("%s-%016x.amm", name, gen))
}
