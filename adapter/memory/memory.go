// Package memory is the persistent context memory of the text2vec-am server:
// for every rare or unseen word it keeps a bounded reservoir of the sentences
// the word was seen in, so that the word's Attentive Mimicking vector improves
// as more data is imported.
//
// # Durability
//
// State lives in RAM and in a directory (created 0700) holding an append-only
// log of checksummed records and periodic compacted snapshots (the format is
// documented in record.go). Every change is written to the log with one write
// per Remember call. The fsync policy is Options.Sync:
//
//   - SyncAlways: Remember returns after the log is fsynced (concurrent callers
//     share one fsync). A Remember that returned nil survives kill -9 and power loss.
//   - SyncInterval (default): the log is fsynced every SyncEvery (200 ms); a
//     Remember survives kill -9 of the process at once (the data is in the
//     kernel) and power loss once the next fsync ran.
//   - SyncNever: fsync only at snapshots and Close.
//
// Every SnapshotEvery records a new log generation is started and the full state
// is written to a snapshot file (temporary file, fsync, atomic rename, directory
// fsync); older files are deleted afterwards. Open loads the newest snapshot and
// replays the logs of its generation and later. A torn tail of a log (a crash
// in the middle of a write: bytes at the end with no intact record after them)
// is truncated with a slog warning. Records set absolute state, so replaying
// one twice is harmless.
//
// # Damage
//
// Open never refuses or discards what it can read. A file with a damaged
// header, a format version this build does not know, or bad bytes followed by
// intact records is salvaged: every record whose checksum holds is applied
// (the reader resynchronizes after the damage; a record whose content is
// refused is counted and skipped), the damage is logged as an error and
// listed in Stats.Damaged, and a writable memory writes a snapshot of the
// result and then renames the file to NAME.damaged (never rewritten in place,
// never deleted). A read-only Open (memory stats, memory check) salvages in
// RAM and changes nothing.
//
// # Write failures
//
// A failed log write or fsync (a full disk) stops writes; WriteErr reports it.
// At most once a second, the next write or WriteErr probes for 64 KiB of free
// space and, if there is, cuts the log back to its last complete record, so
// writing resumes by itself once space returns.
//
// # Document frequencies
//
// Besides the contexts, the memory keeps the collection statistics of the
// vectorizer's sif-collection weighting: the number of passages counted
// (CountPassage) and, for every word, the number of those passages that
// contain it. They are logged, snapshotted, recovered and cleared with the
// contexts; the log is written in the order the counts change in RAM (under
// one lock), so replaying its absolute records yields exactly the counts in
// RAM at the crash, never more than were logged (a large passage torn across
// its records by a crash keeps the words of its intact records). At most
// MaxDocFreqWords distinct words are counted; a word first seen after the
// table is full is not counted (Stats.DocFreqRejected) and weighs as a word
// no passage holds, which is what a word first seen that late almost always
// is. A memory written before document frequencies existed
// (format version 1) opens with zero counts and says so in the log.
//
// # Reservoirs
//
// Each word keeps at most MaxContexts distinct contexts, chosen by reservoir
// sampling (Algorithm R) whose random choice is a hash of (seed, word, offer
// number): the same stream of offers always yields the same reservoir. A
// context already in the reservoir is not offered again, so re-importing a
// document does not skew it.
package memory

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// Observation is one context sentence seen around one word.
type Observation struct {
	// Word is the token (as the model's tokenizer produced it).
	Word string
	// Context is the raw sentence the word occurred in.
	Context string
}

// SyncPolicy says when the log is fsynced (see the package documentation).
type SyncPolicy uint8

const (
	// SyncInterval fsyncs the log every Options.SyncEvery.
	SyncInterval SyncPolicy = iota
	// SyncAlways fsyncs the log before Remember returns.
	SyncAlways
	// SyncNever fsyncs only at snapshots and Close.
	SyncNever
)

// ParseSyncPolicy parses "always", "interval" or "never".
func ParseSyncPolicy(s string) (SyncPolicy, error) {
	switch s {
	case "interval":
		return SyncInterval, nil
	case "always":
		return SyncAlways, nil
	case "never":
		return SyncNever, nil
	}
	return 0, fmt.Errorf("sync policy %q: want always, interval or never", s)
}

// String returns the name ParseSyncPolicy accepts.
func (p SyncPolicy) String() string {
	switch p {
	case SyncInterval:
		return "interval"
	case SyncAlways:
		return "always"
	case SyncNever:
		return "never"
	}
	return fmt.Sprintf("SyncPolicy(%d)", uint8(p))
}

// Options configure a Memory. Start from DefaultOptions.
type Options struct {
	// MaxContexts is the reservoir size per word.
	MaxContexts int
	// MaxWords caps the distinct words; offers for new words beyond it are
	// counted in Stats.Rejected and ignored.
	MaxWords int
	// MaxBytes caps the total bytes of stored contexts; offers that would grow
	// the memory beyond it are counted in Stats.Rejected and ignored.
	MaxBytes int64
	// MaxContextBytes: a longer context is cut to a window of this size around the word.
	MaxContextBytes int
	// MaxWordBytes: longer words are not remembered.
	MaxWordBytes int
	// Sync is the fsync policy.
	Sync SyncPolicy
	// SyncEvery is the fsync period under SyncInterval.
	SyncEvery time.Duration
	// SnapshotEvery: a compacted snapshot is written after this many log records.
	SnapshotEvery int
	// MaxDocFreqWords caps the distinct words whose document frequency is
	// counted; new words beyond it are counted in Stats.DocFreqRejected and ignored.
	MaxDocFreqWords int
	// ReadOnly loads the memory and never writes it (Remember returns
	// ErrReadOnly); a missing directory is an empty memory.
	ReadOnly bool
	// Seed seeds the reservoir sampling.
	Seed uint64
	// Logger receives warnings (torn tails, failed snapshots); nil is slog.Default().
	Logger *slog.Logger
}

// DefaultOptions returns the defaults: 64 contexts per word, 1,000,000 words,
// 512 MiB of contexts, contexts cut to 1024 bytes, words up to 64 bytes, fsync
// every 200 ms, a snapshot every 100,000 records, document frequencies of up to
// 2,000,000 words (about 70 bytes of RAM and 10 of disk each).
func DefaultOptions() Options {
	return Options{
		MaxContexts:     64,
		MaxWords:        1_000_000,
		MaxDocFreqWords: 2_000_000,
		MaxBytes:        512 << 20,
		MaxContextBytes: 1024,
		MaxWordBytes:    64,
		Sync:            SyncInterval,
		SyncEvery:       200 * time.Millisecond,
		SnapshotEvery:   100_000,
	}
}

// Validate reports the first option out of range, naming it.
func (o Options) Validate() error {
	switch {
	case o.MaxContexts < 1 || o.MaxContexts > 4096:
		return fmt.Errorf("memory option MaxContexts = %d: want 1..4096", o.MaxContexts)
	case o.MaxWords < 1:
		return fmt.Errorf("memory option MaxWords = %d: want ≥ 1", o.MaxWords)
	case o.MaxBytes < 1:
		return fmt.Errorf("memory option MaxBytes = %d: want ≥ 1", o.MaxBytes)
	case o.MaxContextBytes < 16 || o.MaxContextBytes > 64<<10:
		return fmt.Errorf("memory option MaxContextBytes = %d: want 16..65536", o.MaxContextBytes)
	case o.MaxWordBytes < 1 || o.MaxWordBytes > 1024:
		return fmt.Errorf("memory option MaxWordBytes = %d: want 1..1024", o.MaxWordBytes)
	case o.Sync > SyncNever:
		return fmt.Errorf("memory option Sync = %d: unknown policy", o.Sync)
	case o.Sync == SyncInterval && o.SyncEvery <= 0:
		return fmt.Errorf("memory option SyncEvery = %v: want > 0 with the interval policy", o.SyncEvery)
	case o.SnapshotEvery < 1:
		return fmt.Errorf("memory option SnapshotEvery = %d: want ≥ 1", o.SnapshotEvery)
	case o.MaxDocFreqWords < 1:
		return fmt.Errorf("memory option MaxDocFreqWords = %d: want ≥ 1", o.MaxDocFreqWords)
	}
	return nil
}

var (
	// ErrReadOnly is returned by the writing methods of a read-only Memory.
	ErrReadOnly = errors.New("context memory is read-only")
	// ErrClosed is returned by the writing methods after Close.
	ErrClosed = errors.New("context memory is closed")
)

// entry is the reservoir of one word.
type entry struct {
	seen    uint64   // distinct contexts offered so far
	version uint64   // changes whenever ctx changes
	ctx     []string // at most MaxContexts
}

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
	bytes    int64
	nctx     int
	version  uint64
	offered  int64
	rejected int64
	records  int64 // records in the current log generation
	appended int64 // records appended since Open
	gen      uint64
	logFile  *os.File
	logSize  int64
	writeSeq uint64
	buf      []byte
	closed   bool

	df         map[string]*docCount // passages containing each word
	passages   int64                // passages counted
	dfRejected int64                // new words not counted: the table was full or the word invalid
	oldFormat  bool                 // a file of format version 1 was loaded
	failed     error                // a failed log write stops further writes until the log is repaired
	damage     []Damage             // damaged files found by Open
	lastRepair time.Time            // last attempt to make the log writable again

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
		m.words, m.bytes, m.nctx = make(map[string]*entry), 0, 0
		m.df, m.passages, m.oldFormat = make(map[string]*docCount), 0, false
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

// Remember offers each observation to its word's reservoir and appends the
// changes to the log. Observations with an empty, too long or invalid UTF-8
// word or context are skipped and counted as rejected. With SyncAlways it
// returns after the changes are on disk.
func (m *Memory) Remember(obs []Observation) error {
	if len(obs) == 0 && !m.opts.ReadOnly {
		return nil
	}
	return m.change(func(buf []byte, persist bool) ([]byte, int) {
		n := 0
		for _, o := range obs {
			word, slot, seen, ctx, ok := m.offerLocked(o)
			if !ok || !persist {
				continue
			}
			var start int
			buf, start = beginRecord(buf)
			buf = appendOffer(buf, word, seen, slot, ctx)
			endRecord(buf, start)
			n++
		}
		return buf, n
	})
}

// CountPassage counts one passage of the collection whose tokens are words
// (a word occurring several times counts once): the passage count and the
// document frequency of each word grow by one, durably as Remember's changes.
// Empty, too long or invalid UTF-8 words, and new words beyond
// MaxDocFreqWords, are not counted (Stats.DocFreqRejected).
func (m *Memory) CountPassage(words []string) error {
	return m.change(func(buf []byte, persist bool) ([]byte, int) {
		m.passages++
		dw := docFreqWriter{passages: uint64(m.passages), start: -1}
		rejected := 0
		for _, w := range words {
			c := m.df[w]
			if c == nil {
				if len(m.df) >= m.opts.MaxDocFreqWords || !m.countable(w) {
					rejected++
					continue
				}
				c = &docCount{}
				m.df[strings.Clone(w)] = c // never pin the caller's text
			}
			if c.last == m.passages {
				continue // already counted in this passage
			}
			c.n++
			c.last = m.passages
			if persist {
				buf = dw.add(buf, w, uint64(c.n))
			}
		}
		if rejected > 0 {
			m.dfRejected += int64(countDistinct(words, rejected, m.df))
		}
		if !persist {
			return buf, 0
		}
		if dw.records == 0 { // no countable word: the record of the passage count alone
			var start int
			buf, start = beginRecord(buf)
			buf = append(buf, recDocFreq)
			buf = binary.AppendUvarint(buf, uint64(m.passages))
			endRecord(buf, start)
			return buf, 1
		}
		return dw.end(buf), dw.records
	})
}

// docCount is the document frequency of one word.
type docCount struct {
	n    int64 // passages containing the word
	last int64 // the passage that counted it last (duplicates in one passage count once)
}

// countDistinct returns the number of distinct words of words that are not in
// df (the rejected ones; rejected is their number with repetitions, so the
// common case of one rejection needs no set).
func countDistinct(words []string, rejected int, df map[string]*docCount) int {
	if rejected == 1 {
		return 1
	}
	seen := make(map[string]struct{}, rejected)
	for _, w := range words {
		if df[w] == nil {
			seen[w] = struct{}{}
		}
	}
	return len(seen)
}

// countable reports whether CountPassage counts word (when there is room).
func (m *Memory) countable(word string) bool {
	return word != "" && len(word) <= m.opts.MaxWordBytes && utf8.ValidString(word)
}

// applyDocFreqLocked applies a recDocFreq record read from a file. Words that
// CountPassage would not count (MaxWordBytes or MaxDocFreqWords lowered since
// the record was written) are skipped, as CountPassage skips them. A passage
// count lower than the one already read is corruption: the files of one
// memory count passages up, and a smaller count under larger document
// frequencies would weigh words by df > N.
func (m *Memory) applyDocFreqLocked(r record) error {
	if int64(r.passages) < m.passages {
		return fmt.Errorf("%w: passage count %d after %d", errCorrupt, r.passages, m.passages)
	}
	m.passages = int64(r.passages)
	for _, x := range r.dfs {
		c := m.df[x.word]
		if c == nil {
			if len(m.df) >= m.opts.MaxDocFreqWords || !m.countable(x.word) {
				continue
			}
			c = &docCount{}
			m.df[x.word] = c
		}
		c.n = int64(x.df)
	}
	return nil
}

// DocFreqs writes to dst[i] the number of counted passages that contain
// words[i] (0 for a word never counted) and returns the number of passages.
// dst must be at least as long as words.
func (m *Memory) DocFreqs(dst []int64, words []string) (passages int64) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.passages == 0 {
		clear(dst[:len(words)])
		return 0
	}
	for i, w := range words {
		if c := m.df[w]; c != nil {
			dst[i] = c.n
		} else {
			dst[i] = 0
		}
	}
	return m.passages
}

// change applies a change to the state under the lock: fn appends the log
// records of the change to buf when persist is set and returns how many it
// appended. change writes them to the log in one write, schedules a snapshot
// when one is due, and with SyncAlways returns after the fsync.
func (m *Memory) change(fn func(buf []byte, persist bool) ([]byte, int)) error {
	if m.opts.ReadOnly {
		return ErrReadOnly
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	m.repairLocked()
	if m.failed != nil {
		err := m.failed
		m.mu.Unlock()
		return err
	}
	buf, n := fn(m.buf[:0], m.logFile != nil)
	m.buf = buf
	var seq uint64
	if n > 0 {
		if _, err := m.logFile.Write(buf); err != nil {
			m.failed = fmt.Errorf("append to context memory log %s: %w", m.logFile.Name(), err)
			m.mu.Unlock()
			return m.failed
		}
		m.logSize += int64(len(buf))
		m.records += int64(n)
		m.appended += int64(n)
		m.writeSeq++
		seq = m.writeSeq
	}
	if cap(m.buf) > 1<<20 {
		m.buf = nil // do not keep one huge batch's buffer forever
	}
	// Add to bg while holding mu and not closed: Close waits for bg only
	// after setting closed under mu, so this Add happens before that Wait.
	compact := m.records >= int64(m.opts.SnapshotEvery) && m.compacting.CompareAndSwap(false, true)
	if compact {
		m.bg.Add(1)
	}
	m.mu.Unlock()

	if seq > 0 && m.opts.Sync == SyncAlways {
		if err := m.syncTo(seq); err != nil {
			return err
		}
	}
	if compact {
		go func() {
			defer m.bg.Done()
			defer m.compacting.Store(false)
			m.compactMu.Lock()
			defer m.compactMu.Unlock()
			m.mu.RLock()
			closed := m.closed
			due := m.records >= int64(m.opts.SnapshotEvery)
			m.mu.RUnlock()
			if closed {
				return // Close writes the final snapshot
			}
			if !due {
				return // Snapshot or Clear compacted since this one was scheduled
			}
			if err := m.compactLocked(); err != nil {
				m.log.Error("context memory: snapshot failed; the log keeps growing until one succeeds", "dir", m.dir, "err", err)
			}
		}()
	}
	return nil
}

// offerLocked applies one observation to the reservoirs. ok is false when
// nothing changed (rejected or a duplicate context).
func (m *Memory) offerLocked(o Observation) (word string, slot int, seen uint64, ctx string, ok bool) {
	if o.Word == "" || len(o.Word) > m.opts.MaxWordBytes || !utf8.ValidString(o.Word) || !utf8.ValidString(o.Context) {
		m.rejected++
		return "", 0, 0, "", false
	}
	ctx = CutContext(o.Context, o.Word, m.opts.MaxContextBytes)
	if ctx == "" {
		m.rejected++
		return "", 0, 0, "", false
	}
	e := m.words[o.Word]
	if e == nil {
		if len(m.words) >= m.opts.MaxWords || m.bytes+int64(len(ctx)) > m.opts.MaxBytes {
			m.rejected++
			return "", 0, 0, "", false
		}
		e = &entry{}
		m.words[strings.Clone(o.Word)] = e
	}
	if slices.Contains(e.ctx, ctx) {
		return "", 0, 0, "", false
	}
	m.offered++
	seen = e.seen + 1
	slot = -1
	if len(e.ctx) < m.opts.MaxContexts {
		if m.bytes+int64(len(ctx)) > m.opts.MaxBytes {
			m.rejected++
			return "", 0, 0, "", false
		}
		slot = len(e.ctx)
	} else if j := pick(m.opts.Seed, o.Word, seen); j < uint64(m.opts.MaxContexts) {
		if grow := len(ctx) - len(e.ctx[j]); grow > 0 && m.bytes+int64(grow) > m.opts.MaxBytes {
			m.rejected++
			return "", 0, 0, "", false
		}
		slot = int(j)
	}
	ctx = strings.Clone(ctx) // never pin the caller's (request body's) memory
	m.setLocked(e, seen, slot, ctx)
	return o.Word, slot, seen, ctx, true
}

// setLocked records that e saw its seen-th context and stores ctx at slot (-1: not kept).
func (m *Memory) setLocked(e *entry, seen uint64, slot int, ctx string) {
	e.seen = seen
	if slot < 0 {
		return
	}
	switch {
	case slot < len(e.ctx):
		m.bytes += int64(len(ctx) - len(e.ctx[slot]))
		e.ctx[slot] = ctx
	case len(e.ctx) < m.opts.MaxContexts:
		// slot == len(e.ctx) when written by this code; a larger slot only
		// appears after MaxContexts was changed between runs.
		e.ctx = append(e.ctx, ctx)
		m.bytes += int64(len(ctx))
		m.nctx++
	default:
		return // MaxContexts was lowered since the record was written
	}
	m.version++
	e.version = m.version
}

// pick is the deterministic random choice of Algorithm R for the n-th offer of word.
func pick(seed uint64, word string, n uint64) uint64 {
	h := uint64(14695981039346656037) ^ seed
	for i := 0; i < len(word); i++ {
		h ^= uint64(word[i])
		h *= 1099511628211
	}
	h ^= n * 0x9E3779B97F4A7C15
	// splitmix64 finalizer
	h ^= h >> 30
	h *= 0xBF58476D1CE4E5B9
	h ^= h >> 27
	h *= 0x94D049BB133111EB
	h ^= h >> 31
	return h % n
}

// CutContext trims white space and cuts ctx to at most limit bytes around the
// first occurrence of word, at rune and (where possible) word boundaries.
func CutContext(ctx, word string, limit int) string {
	ctx = strings.TrimSpace(ctx)
	if len(ctx) <= limit {
		return ctx
	}
	at := strings.Index(ctx, word)
	if at < 0 {
		if lower := strings.ToLower(ctx); len(lower) == len(ctx) {
			at = strings.Index(lower, word)
		}
	}
	if at < 0 {
		at = 0
	}
	start := max(0, at+len(word)/2-limit/2)
	end := min(len(ctx), start+limit)
	start = max(0, end-limit)
	// Cut at spaces outside the word where there are any.
	if start > 0 && start < at {
		if i := strings.IndexByte(ctx[start:at], ' '); i >= 0 {
			start += i + 1
		}
	}
	if wend := at + len(word); end < len(ctx) && wend < end {
		if i := strings.LastIndexByte(ctx[wend:end], ' '); i >= 0 {
			end = wend + i
		}
	}
	for start < end && !utf8.RuneStart(ctx[start]) {
		start++
	}
	for end > start && end < len(ctx) && !utf8.RuneStart(ctx[end]) {
		end--
	}
	return strings.TrimSpace(ctx[start:end])
}

// Contexts appends the remembered contexts of word to dst. version changes
// whenever the contexts change; it is 0 for a word with no contexts.
func (m *Memory) Contexts(dst []string, word string) ([]string, uint64) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	e := m.words[word]
	if e == nil {
		return dst, 0
	}
	return append(dst, e.ctx...), e.version
}

// Stats is a summary of the memory.
type Stats struct {
	// Words and Contexts count the words with a reservoir and the stored contexts.
	Words    int `json:"words"`
	Contexts int `json:"contexts"`
	// Passages counts the passages counted for document frequencies (CountPassage);
	// DocFreqWords the distinct words counted; DocFreqRejected the words not
	// counted since Open (MaxDocFreqWords reached, or an invalid word).
	Passages        int64 `json:"passages"`
	DocFreqWords    int   `json:"df_words"`
	DocFreqRejected int64 `json:"df_rejected"`
	// ContextBytes is the total size of the stored contexts.
	ContextBytes int64 `json:"context_bytes"`
	// Offered counts distinct contexts offered since Open; Rejected counts
	// observations ignored because of a cap or an invalid word or context.
	Offered  int64 `json:"offered"`
	Rejected int64 `json:"rejected"`
	// Records counts log records appended since Open.
	Records int64 `json:"records"`
	// LogBytes and SnapshotBytes are the sizes of the current log and snapshot files.
	LogBytes      int64 `json:"log_bytes"`
	SnapshotBytes int64 `json:"snapshot_bytes"`
	// Generation is the current log generation.
	Generation uint64 `json:"generation"`
	// Dir is the directory ("" in RAM only); ReadOnly and Sync as opened.
	Dir      string `json:"dir"`
	ReadOnly bool   `json:"read_only"`
	Sync     string `json:"sync"`
	// Damaged lists the damaged files Open found and salvaged.
	Damaged []Damage `json:"damaged,omitempty"`
	// WriteError is why passages cannot be stored now ("" when they can).
	WriteError string `json:"write_error,omitempty"`
}

// Stats returns a summary of the memory.
func (m *Memory) Stats() Stats {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return Stats{
		Words:           len(m.words),
		Contexts:        m.nctx,
		Passages:        m.passages,
		DocFreqWords:    len(m.df),
		DocFreqRejected: m.dfRejected,
		ContextBytes:    m.bytes,
		Offered:         m.offered,
		Rejected:        m.rejected,
		Records:         m.appended,
		LogBytes:        m.logSize,
		SnapshotBytes:   m.snapshotBytes.Load(),
		Generation:      m.gen,
		Dir:             m.dir,
		ReadOnly:        m.opts.ReadOnly,
		Sync:            m.opts.Sync.String(),
		Damaged:         slices.Clone(m.damage),
		WriteError:      errString(m.failed),
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// ExportedWord is one line of Export.
type ExportedWord struct {
	Word string `json:"word"`
	// Seen counts the distinct contexts offered for the word; Contexts are the kept ones.
	Seen     uint64   `json:"seen"`
	Contexts []string `json:"contexts"`
	// DocFreq is the number of counted passages that contain the word.
	DocFreq int64 `json:"df"`
}

// Export writes the memory as JSON lines (one ExportedWord per line) sorted
// by word: every word with a reservoir or a document frequency. The passage
// count is in Stats.
func (m *Memory) Export(w io.Writer) error {
	m.mu.RLock()
	all := make([]ExportedWord, 0, max(len(m.words), len(m.df)))
	for word, e := range m.words {
		var df int64
		if c := m.df[word]; c != nil {
			df = c.n
		}
		all = append(all, ExportedWord{Word: word, Seen: e.seen, Contexts: slices.Clone(e.ctx), DocFreq: df})
	}
	for word, c := range m.df {
		if _, ok := m.words[word]; !ok {
			all = append(all, ExportedWord{Word: word, Contexts: []string{}, DocFreq: c.n})
		}
	}
	m.mu.RUnlock()
	slices.SortFunc(all, func(a, b ExportedWord) int { return cmp.Compare(a.Word, b.Word) })
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range all {
		if err := enc.Encode(&all[i]); err != nil {
			return fmt.Errorf("export context memory: %w", err)
		}
	}
	return nil
}

// Sync fsyncs the log now.
func (m *Memory) Sync() error {
	m.mu.RLock()
	seq, closed := m.writeSeq, m.closed
	m.mu.RUnlock()
	if closed {
		return ErrClosed
	}
	return m.syncTo(seq)
}

// syncTo returns once log writes up to seq are fsynced; concurrent callers share an fsync.
func (m *Memory) syncTo(seq uint64) error {
	m.syncMu.Lock()
	defer m.syncMu.Unlock()
	if m.syncedSeq.Load() >= seq {
		return nil
	}
	m.mu.RLock()
	f, target := m.logFile, m.writeSeq
	m.mu.RUnlock()
	if f == nil {
		return nil
	}
	if err := f.Sync(); err != nil {
		err = fmt.Errorf("fsync context memory log %s: %w", f.Name(), err)
		m.mu.Lock()
		m.failed = err
		m.mu.Unlock()
		return err
	}
	m.syncedSeq.Store(target)
	return nil
}

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
		if err := m.writeSnapshot(gen, nil, nil, 0, nil, 0); err != nil {
			return 0, fmt.Errorf("clear context memory: %w", err)
		}
		m.oldFormat = false
	}
	m.words = make(map[string]*entry)
	m.bytes, m.nctx = 0, 0
	m.df, m.passages = make(map[string]*docCount), 0
	m.version++
	return gen, nil
}

// Close fsyncs the log, writes a snapshot if anything changed since the last
// one, and releases the directory. It is idempotent.
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
		if (m.records > 0 || m.oldFormat) && failed == nil { // rewrite an older format's files too
			if err := m.compactLocked(); err != nil {
				errs = append(errs, err)
			}
		}
		m.compactMu.Unlock()
		if err := m.logFile.Sync(); err != nil {
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

// WriteErr reports why the memory cannot store anything now (nil: it can).
// After a failed write (a full disk) it first retries, at most once a
// second, to make the log writable again, so writing resumes by itself once
// space returns.
func (m *Memory) WriteErr() error {
	if m.opts.ReadOnly || m.dir == "" {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.repairLocked()
	return m.failed
}

// repairLocked (mu held) tries, at most once a second, to make the log
// writable after a failed write or fsync: once a probe of probeBytes can be
// written and synced in the directory, it cuts the log back to its last
// complete record (a failed write may have left part of one) and fsyncs it.
// The state in RAM keeps the changes whose records were not written; the next
// snapshot stores them.
func (m *Memory) repairLocked() {
	if m.failed == nil || m.logFile == nil || m.closed || time.Since(m.lastRepair) < time.Second {
		return
	}
	m.lastRepair = time.Now()
	if err := probeSpace(m.dir); err != nil {
		return
	}
	if err := m.logFile.Truncate(m.logSize); err != nil {
		return
	}
	if err := m.logFile.Sync(); err != nil {
		return
	}
	m.log.Info("context memory is writable again", "dir", m.dir, "after", m.failed)
	m.failed = nil
}

// probeBytes is the free space repairLocked wants to see before writing again.
const probeBytes = 64 << 10

// probeSpace writes, fsyncs and removes a probe file of probeBytes in dir (a
// .tmp name: Open removes a leftover).
func probeSpace(dir string) error {
	path := filepath.Join(dir, "space-probe.tmp")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(make([]byte, probeBytes))
	if err == nil {
		err = f.Sync()
	}
	f.Close()
	os.Remove(path)
	return err
}
