package memory

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/text2vec-am/text2vec-am/model"
)

// maxGeneration is the largest generation of a log or snapshot. Open refuses
// a file of a larger one and the memory never advances past it, so the
// generation never wraps around to 0 (a name parseName rejects, which would
// leave the older files newest). No memory advances that far (one generation
// per snapshot), but a file can be renamed to one.
const maxGeneration = 1 << 62

// errGeneration reports a generation that cannot advance.
var errGeneration = errors.New("context memory generation too large")

// nextGeneration returns the generation after gen, or an error once gen is
// maxGeneration.
func nextGeneration(gen uint64) (uint64, error) {
	if gen >= maxGeneration {
		return 0, fmt.Errorf("%w: generation %#x cannot advance past %#x", errGeneration, gen, uint64(maxGeneration))
	}
	return gen + 1, nil
}

// parseName returns the kind and generation of a memory file name.
func parseName(name string) (kind byte, gen uint64, ok bool) {
	base, found := strings.CutSuffix(name, ".amm")
	if !found {
		return 0, 0, false
	}
	var num string
	switch {
	case strings.HasPrefix(base, "log-"):
		kind, num = kindLog, base[len("log-"):]
	case strings.HasPrefix(base, "snapshot-"):
		kind, num = kindSnapshot, base[len("snapshot-"):]
	default:
		return 0, 0, false
	}
	if len(num) != 16 {
		return 0, 0, false
	}
	gen, err := strconv.ParseUint(num, 16, 64)
	if err != nil || gen == 0 {
		return 0, 0, false
	}
	return kind, gen, true
}

// openDir loads the directory and, unless read-only, opens the log for appending.
func (m *Memory) openDir() error {
	ro := m.opts.ReadOnly
	if !ro {
		if err := m.prepareDir(); err != nil {
			return err
		}
	}
	ents, err := os.ReadDir(m.dir)
	if err != nil {
		if ro && errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("read context memory directory: %w", err)
	}
	snaps, logs, err := m.generations(ents)
	if err != nil {
		return err
	}
	base, active, activeOld, err := m.loadGenerations(snaps, logs)
	if err != nil {
		return err
	}
	if ro {
		return nil
	}
	if err := m.openLog(active, activeOld); err != nil {
		return err
	}
	m.removeOlder(base)
	if len(m.damage) > 0 {
		// A snapshot of everything salvaged, then the damaged files move aside.
		m.compactMu.Lock()
		err := m.compactLocked()
		m.compactMu.Unlock()
		if err != nil {
			m.log.Error("context memory: snapshot of the salvaged records failed; the damaged files stay in place", "dir", m.dir, "err", err)
		}
	}
	return nil
}

// prepareDir creates the directory (0700), warns when others can read it
// and takes its lock.
func (m *Memory) prepareDir() error {
	if err := os.MkdirAll(m.dir, 0o700); err != nil {
		return fmt.Errorf("create context memory directory: %w", err)
	}
	if st, err := os.Stat(m.dir); err == nil && st.Mode().Perm()&0o077 != 0 {
		m.log.Warn("context memory directory is readable by others; chmod 700 it", "dir", m.dir, "mode", st.Mode().Perm().String())
	}
	unlock, err := lockDir(m.dir)
	if err != nil {
		return err
	}
	m.unlock = unlock
	return nil
}

// generations returns the sorted generations of the snapshots and the logs
// among ents. Unless read-only it removes interrupted snapshots (*.tmp).
func (m *Memory) generations(ents []os.DirEntry) (snaps, logs []uint64, err error) {
	for _, e := range ents {
		name := e.Name()
		if strings.HasSuffix(name, ".tmp") && !m.opts.ReadOnly {
			// An interrupted snapshot: never renamed, so never relied upon.
			if err := os.Remove(filepath.Join(m.dir, name)); err != nil {
				return nil, nil, fmt.Errorf("remove interrupted snapshot: %w", err)
			}
			continue
		}
		kind, gen, ok := parseName(name)
		if ok {
			if err := m.regularFile(e, kind); err != nil {
				m.noteDamage(filepath.Join(m.dir, name), err, salvage{})
				continue
			}
			if gen > maxGeneration {
				return nil, nil, fmt.Errorf("%w: %s: generation %#x is beyond the largest, %#x, so the memory "+
					"could not advance from it; rename the directory's logs and snapshots to lower generations "+
					"(16 hex digits each), keeping their order", errGeneration, filepath.Join(m.dir, name), gen,
					uint64(maxGeneration))
			}
		}
		switch {
		case !ok:
		case kind == kindSnapshot:
			snaps = append(snaps, gen)
		default:
			logs = append(logs, gen)
		}
	}
	slices.Sort(snaps)
	slices.Sort(logs)
	return snaps, logs, nil
}

// regularFile checks a directory entry named like a log or snapshot (of the
// given kind) before it counts as one: a regular file (not a FIFO, device,
// directory or symbolic link) no larger than fileCap unless it starts with a
// valid header.
func (m *Memory) regularFile(e os.DirEntry, kind byte) error {
	if !e.Type().IsRegular() {
		return fmt.Errorf("%w (%s)", model.ErrNotRegular, e.Type())
	}
	info, err := e.Info()
	if err != nil {
		return err
	}
	return checkSize(filepath.Join(m.dir, e.Name()), kind, info.Size(), m.opts.fileCap())
}

// loadGenerations reads the newest snapshot (generation base, 0 for none) and replays
// the logs from base on. active is the last log replayed (0: none);
// activeOld means it has an older format or is unusable, so it is never
// appended to.
func (m *Memory) loadGenerations(snaps, logs []uint64) (base, active uint64, activeOld bool, err error) {
	if len(snaps) > 0 {
		base = snaps[len(snaps)-1]
		if err := m.loadSnapshot(m.path(kindSnapshot, base)); err != nil {
			return 0, 0, false, err
		}
	}
	for _, g := range logs {
		if g < base {
			continue
		}
		ver, usable, err := m.replayLog(m.path(kindLog, g))
		if err != nil {
			return 0, 0, false, err
		}
		active, activeOld = g, ver < fileVersion || !usable
	}
	m.gen = max(base, active, 1)
	m.shrinkLocked() // the budget may be lower than when the files were written
	m.warnLowerCaps()
	if m.converted {
		m.log.Info("context memory was written in an older format; it is converted (each word keeps the "+
			"k smallest-hash contexts of those stored) and rewritten at the next snapshot", "dir", m.dir)
	}
	if m.oldFormat {
		m.log.Info("context memory was written by an older version without document frequencies: "+
			"sif-collection weighting starts from zero counts (run `memory warm` over the collection's texts to count them)",
			"dir", m.dir, "passages", m.passages)
	}
	return base, active, activeOld, nil
}

// warnLowerCaps logs what Open evicted and did not count to fit caps lower
// than the files were written with, if anything.
func (m *Memory) warnLowerCaps() {
	if m.evicted == 0 && m.dfRejected == 0 {
		return
	}
	msg := "context memory holds more than its caps allow (a memory with higher caps wrote it): " +
		"the least recently changed words were evicted to fit and the words beyond the document " +
		"frequency table were not counted (df_rejected counts a word once per passage of a log and " +
		"once per snapshot it was not counted in)"
	if m.evictedLoading {
		msg += fmt.Sprintf("; the files held more than %d times the caps, so words were evicted as they "+
			"were read: a word a log changed after it was evicted keeps only the log's contexts, and "+
			"evicted_words may count a word more than once, or one a later log forgot", loadSlack)
	}
	m.log.Warn(msg, "dir", m.dir, "evicted_words", m.evicted, "evicted_contexts", m.evictCtx,
		"df_rejected", m.dfRejected, "max_bytes", m.opts.MaxBytes, "max_words", m.opts.MaxWords,
		"max_df_words", m.opts.MaxDocFreqWords)
}

// openLog opens the log to append to: the active one, or a new one when
// there is none or it must not be appended to (activeOld).
func (m *Memory) openLog(active uint64, activeOld bool) error {
	if active == 0 || activeOld {
		if activeOld {
			next, err := nextGeneration(active)
			if err != nil {
				return fmt.Errorf("%s: %w; rename the directory's logs and snapshots to lower generations "+
					"(16 hex digits each), keeping their order", m.path(kindLog, active), err)
			}
			m.gen = next
		}
		f, err := m.createFile(m.path(kindLog, m.gen), kindLog)
		if err != nil {
			return err
		}
		m.logFile, m.logSize = f, headerSize
		return nil
	}
	path := m.path(kindLog, active)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open context memory log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("stat context memory log: %w", err)
	}
	m.logFile, m.logSize = f, st.Size()
	return nil
}

// loadSnapshot reads a snapshot into the (empty) state, record by record,
// evicting down to loadSlack times the caps as it goes (a memory with much
// higher caps may have written it).
func (m *Memory) loadSnapshot(path string) error {
	var read snapshotRead
	fs, err := scanFile(path, kindSnapshot, m.opts.fileCap(), func(r record) error {
		read.newer = read.newer || r.v3
		return m.applySnapshotRecord(r, &read)
	})
	if unreadable(err) {
		m.noteDamage(path, err, salvage{})
		return nil
	}
	if err != nil {
		return fmt.Errorf("read context memory snapshot: %w", err)
	}
	m.snapshotBytes.Store(fs.size)
	m.oldFormat = m.oldFormat || fs.ver < 2
	m.converted = m.converted || fs.ver < fileVersion
	herr := cmp.Or(fs.herr, newerRecords(fs.ver, read.newer))
	switch sv := fs.sv; {
	case herr != nil:
		m.noteDamage(path, fmt.Errorf("header: %w", herr), sv)
	case sv.firstErr != nil:
		m.noteDamage(path, fmt.Errorf("at offset %d: %w", headerSize+sv.firstAt, sv.firstErr), sv)
	case !read.ended:
		m.noteDamage(path, errors.New("no end record"), sv)
	}
	return nil
}

// snapshotRead counts what a snapshot's records held, for its end record to
// check: what the snapshot holds, whatever the caps let the memory keep.
type snapshotRead struct {
	words, contexts, hashes, dfs uint64
	ended, newer                 bool
}

// applySnapshotRecord applies one record of a snapshot, counting it in read.
func (m *Memory) applySnapshotRecord(r record, read *snapshotRead) error {
	switch {
	case read.ended:
		return fmt.Errorf("%w: record after the end record", errCorrupt)
	case r.typ == recWord:
		if m.words[r.word] != nil { // of the words held: one evicted to fit the caps is gone
			return fmt.Errorf("%w: word %q twice in a snapshot", errCorrupt, r.word)
		}
		for _, c := range r.contexts {
			m.keepLocked(r.word, c, 0)
		}
		read.words++
		read.contexts += uint64(len(r.contexts))
		m.shrinkLoadingLocked()
	case r.typ == recSeen:
		m.markSeenLocked(r.hashes...)
		read.hashes += uint64(len(r.hashes))
	case r.typ == recDocFreq:
		if err := m.applyDocFreqLocked(r); err != nil {
			return err
		}
		read.dfs += uint64(len(r.dfs))
	case r.typ == recEnd:
		if r.words != read.words || r.nctx != read.contexts {
			return fmt.Errorf("%w: end record says %d words and %d contexts, read %d and %d",
				errCorrupt, r.words, r.nctx, read.words, read.contexts)
		}
		if len(r.hashes) > 0 && r.hashes[0] != read.hashes {
			return fmt.Errorf("%w: end record says %d passage hashes, read %d", errCorrupt, r.hashes[0], read.hashes)
		}
		if r.dfWords != read.dfs || int64(r.passages) < m.passages {
			return fmt.Errorf("%w: end record says %d document frequencies over %d passages, read %d over %d",
				errCorrupt, r.dfWords, r.passages, read.dfs, m.passages)
		}
		m.passages = int64(r.passages)
		read.ended = true
	default:
		return fmt.Errorf("%w: record type %d in a snapshot", errCorrupt, r.typ)
	}
	return nil
}

// replayLog applies the intact records of one log and returns its format
// version and whether appends may continue in it. A torn tail (bytes at the
// end that hold no intact record and are no longer than one record, as a
// crash mid-append leaves) is dropped with a warning and, unless read-only,
// truncated away. Any other damage (a bad header, an unknown version, bad
// bytes with intact records after them or longer than one record)
// is salvaged: every intact record is applied, the file is never appended to
// or rewritten, and Open moves it aside once a snapshot holds the records.
func (m *Memory) replayLog(path string) (ver byte, usable bool, err error) {
	newer := false
	fs, err := scanFile(path, kindLog, m.opts.fileCap(), func(r record) error {
		newer = newer || r.v3
		return m.applyLogRecord(r)
	})
	if unreadable(err) {
		m.noteDamage(path, err, salvage{})
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("read context memory log: %w", err)
	}
	ver, sv := fs.ver, fs.sv
	m.oldFormat = m.oldFormat || ver < 2
	m.converted = m.converted || ver < fileVersion
	herr := cmp.Or(fs.herr, newerRecords(ver, newer))
	switch {
	case herr != nil:
		m.noteDamage(path, fmt.Errorf("header: %w", herr), sv)
		return ver, false, nil
	case sv.firstErr == nil:
		return ver, true, nil
	case !sv.tornTail:
		m.noteDamage(path, fmt.Errorf("at offset %d: %w", headerSize+sv.firstAt, sv.firstErr), sv)
		return ver, false, nil
	}
	good := headerSize + sv.end
	m.log.Warn("context memory log has a torn or corrupt tail (no intact record after it); dropping it",
		"file", path, "offset", good, "dropped_bytes", fs.size-good, "err", sv.firstErr)
	if m.opts.ReadOnly {
		return ver, true, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0o600)
	if err != nil {
		return 0, false, fmt.Errorf("open context memory log to drop its torn tail: %w", err)
	}
	defer f.Close()
	if err := f.Truncate(good); err != nil {
		return 0, false, fmt.Errorf("truncate torn tail of context memory log %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return 0, false, fmt.Errorf("fsync context memory log %s: %w", path, err)
	}
	return ver, true, nil
}

// newerRecords returns an error when a file whose header says version ver
// held records of the current version (newer): its version byte is damaged.
func newerRecords(ver byte, newer bool) error {
	if newer && ver < fileVersion {
		return fmt.Errorf("%w: version %d header over version %d records", errCorrupt, ver, fileVersion)
	}
	return nil
}

// applyLogRecord applies one record of a log.
func (m *Memory) applyLogRecord(r record) error {
	switch r.typ {
	case recDocFreq:
		return m.applyDocFreqLocked(r)
	case recKeep, recOffer: // recOffer: an older format's, converted
		if len(r.contexts) > 0 {
			m.keepLocked(r.word, r.contexts[0], 0)
			m.shrinkLoadingLocked() // a memory with much higher caps may have written the log
		}
	case recForget:
		m.forgetLocked(r.word)
	default:
		return fmt.Errorf("%w: record type %d in a log", errCorrupt, r.typ)
	}
	return nil
}

// createFile creates path with a header, fsyncs it and its directory. On
// failure it removes the file again: a leftover would make every later
// attempt at that generation fail (O_EXCL).
func (m *Memory) createFile(path string, kind byte) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create context memory file: %w", err)
	}
	fail := func(err error) (*os.File, error) {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	if _, err := f.Write(fileHeader(kind)); err != nil {
		return fail(fmt.Errorf("write context memory file header %s: %w", path, err))
	}
	if err := f.Sync(); err != nil {
		return fail(fmt.Errorf("fsync context memory file %s: %w", path, err))
	}
	if err := syncDir(m.dir); err != nil {
		return fail(err)
	}
	return f, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open context memory directory to fsync it: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync context memory directory %s: %w", dir, err)
	}
	return nil
}
