package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Snapshot writes a compacted snapshot now and deletes the files it replaces.
func (m *Memory) Snapshot() error {
	if m.opts.ReadOnly {
		return ErrReadOnly
	}
	m.compactMu.Lock()
	defer m.compactMu.Unlock()
	return m.compactLocked()
}

// Clear forgets everything (contexts and document frequencies), durably: a
// new generation starts with an empty snapshot. The empty snapshot is on disk
// before anything is logged after the Clear; if it cannot be written, Clear
// returns the error and the memory is unchanged.
func (m *Memory) Clear() error {
	if m.opts.ReadOnly {
		return ErrReadOnly
	}
	m.compactMu.Lock()
	defer m.compactMu.Unlock()
	gen, err := m.clearLocked()
	if err == nil && gen > 0 {
		m.removeOlder(gen)
	}
	return err
}

// clearLocked (compactMu held) empties the memory and returns the generation
// of its empty snapshot (0 in RAM only).
func (m *Memory) clearLocked() (gen uint64, err error) {
	m.syncMu.Lock()
	defer m.syncMu.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return 0, ErrClosed
	}
	if m.dir != "" {
		// The records logged after the Clear go to the new log, which Open
		// replays on top of the newest snapshot: the empty one must be durable
		// first (with mu held, nothing is logged meanwhile). Should it fail,
		// the new log simply continues the old state.
		var old *os.File
		old, gen, err = m.rotateLocked()
		if err != nil {
			return 0, err
		}
		if err := old.Close(); err != nil {
			m.log.Warn("close old context memory log", "err", err)
		}
		if err := m.writeSnapshot(gen, nil, nil, 0, nil, 0, nil); err != nil {
			return 0, fmt.Errorf("clear context memory: %w", err)
		}
		m.oldFormat = false
		m.recorded = ModelID{}
		if err := recordClear(m.dir, m.model); err != nil {
			m.log.Warn("context memory cleared, its model record not rewritten", "err", err)
		} else if m.model.Fingerprint != "" {
			m.recorded = m.model
			m.modelReplaced(m.model)
		}
	}
	m.words, m.recent = make(map[string]*entry), nil
	m.bytes, m.used, m.nctx = 0, 0, 0
	m.df, m.passages, m.seen = make(map[string]*docCount), 0, passageSet{}
	m.dfGen++
	m.version++
	return gen, nil
}

// compactLocked (compactMu held) starts a new log generation and writes the
// state at the switch as its snapshot, then deletes the older files.
func (m *Memory) compactLocked() error {
	if m.dir == "" || m.opts.ReadOnly {
		return nil
	}
	m.syncMu.Lock()
	m.mu.Lock()
	old, gen, err := m.rotateLocked()
	if err != nil {
		m.mu.Unlock()
		m.syncMu.Unlock()
		return err
	}
	words := make([]string, 0, len(m.words))
	states := make([]entry, 0, len(m.words))
	for _, e := range m.byRecency() {
		words = append(words, e.word)
		states = append(states, entry{ctx: slices.Clone(e.ctx)})
	}
	hashes := m.seen.ordered()

	nctx := m.nctx
	df := make([]wordDF, 0, len(m.df))
	for w, c := range m.df {
		df = append(df, wordDF{w, uint64(c.n)})
	}
	passages := m.passages
	m.mu.Unlock()
	m.syncMu.Unlock()
	if err := old.Close(); err != nil {
		m.log.Warn("close old context memory log", "err", err)
	}
	if err := m.writeSnapshot(gen, words, states, nctx, df, passages, hashes); err != nil {
		return err
	}
	m.oldFormat = false // the snapshot holds everything in the current format
	m.moveAside()       // the snapshot holds what the damaged files held
	m.removeOlder(gen)
	return nil
}

// rotateLocked (compactMu, syncMu and mu held) fsyncs the log and switches to
// a new, empty log of the next generation. It returns the old log (to close)
// and the new generation, whose snapshot must hold the state at the switch.
// Until that snapshot exists, Open replays the old log and then the new one,
// so the new log's records must follow the old log's state.
func (m *Memory) rotateLocked() (old *os.File, gen uint64, err error) {
	if m.failed != nil {
		return nil, 0, m.failed
	}
	gen, err = nextGeneration(m.gen)
	if err != nil {
		return nil, 0, err
	}
	old = m.logFile
	if err := old.Sync(); err != nil {
		return nil, 0, fmt.Errorf("fsync context memory log %s: %w", old.Name(), err)
	}
	m.syncedSeq.Store(m.writeSeq)
	nf, err := m.createFile(m.path(kindLog, gen), kindLog)
	if err != nil {
		return nil, 0, err
	}
	m.logFile, m.logSize, m.gen, m.records = nf, headerSize, gen, 0
	return old, gen, nil
}

// writeSnapshot writes the snapshot of generation gen: temporary file, fsync,
// rename, directory fsync.
func (m *Memory) writeSnapshot(gen uint64, words []string, states []entry, nctx int, df []wordDF, passages int64,
	hashes []uint64) error {
	nhashes := len(hashes)
	final := m.path(kindSnapshot, gen)
	tmp := final + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("create context memory snapshot: %w", err)
	}
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write context memory snapshot %s: %w", tmp, err)
	}
	buf := fileHeader(kindSnapshot)
	size := int64(0)
	for i, w := range words {
		var start int
		buf, start = beginRecord(buf)
		buf = appendWordState(buf, w, states[i].ctx)
		endRecord(buf, start)
		if len(buf) >= 1<<20 {
			if _, err := f.Write(buf); err != nil {
				return fail(err)
			}
			size += int64(len(buf))
			buf = buf[:0]
		}
	}
	dw := docFreqWriter{passages: uint64(passages), start: -1}
	for _, x := range df {
		buf = dw.add(buf, x.word, x.df)
		if len(buf) >= 1<<20 {
			buf = dw.end(buf)
			if _, err := f.Write(buf); err != nil {
				return fail(err)
			}
			size += int64(len(buf))
			buf = buf[:0]
		}
	}
	buf = dw.end(buf)
	for len(hashes) > 0 {
		n := min(len(hashes), 1<<16)
		buf = appendSeen(buf, hashes[:n])
		hashes = hashes[n:]
		if len(buf) >= 1<<20 {
			if _, err := f.Write(buf); err != nil {
				return fail(err)
			}
			size += int64(len(buf))
			buf = buf[:0]
		}
	}
	var start int
	buf, start = beginRecord(buf)
	buf = appendEnd(buf, uint64(len(words)), uint64(nctx), uint64(passages), uint64(len(df)), uint64(nhashes))
	endRecord(buf, start)
	if _, err := f.Write(buf); err != nil {
		return fail(err)
	}
	size += int64(len(buf))
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("close context memory snapshot %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, final); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("rename context memory snapshot into place: %w", err)
	}
	if err := syncDir(m.dir); err != nil {
		return err
	}
	m.snapshotBytes.Store(size)
	return nil
}

// removeOlder deletes the snapshots and logs of generations before gen; a
// failure only costs disk space and is logged.
func (m *Memory) removeOlder(gen uint64) {
	ents, err := os.ReadDir(m.dir)
	if err != nil {
		m.log.Warn("list context memory directory", "err", err)
		return
	}
	for _, e := range ents {
		if _, g, ok := parseName(e.Name()); ok && g < gen {
			if err := os.Remove(filepath.Join(m.dir, e.Name())); err != nil {
				m.log.Warn("remove old context memory file", "file", e.Name(), "err", err)
			}
		}
	}
}
