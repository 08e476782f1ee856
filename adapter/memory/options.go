package memory

import (
	"fmt"
	"log/slog"
	"time"
)

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
	// MaxContexts is the number of contexts kept per word (the k of bottom-k).
	MaxContexts int
	// MaxWords caps the distinct words with contexts; a new word beyond it
	// evicts the least recently changed word (Stats.Evicted).
	MaxWords int
	// MaxBytes is the memory's byte budget (Stats.BudgetBytes): the contexts
	// and words plus a fixed overhead per context and per word. An offer
	// that would exceed it evicts the least recently changed words; one
	// that does not fit alone is counted in Stats.Rejected and ignored.
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
	// MaxPassageHashes caps the content hashes of counted passages kept to
	// count a resent passage once (33–48 bytes of RAM and 9 of disk each);
	// the oldest is forgotten first.
	MaxPassageHashes int
	// ReadOnly loads the memory and never writes it (Remember returns
	// ErrReadOnly); a missing directory is an empty memory.
	ReadOnly bool
	// Seed is mixed into the hash that chooses each word's contexts.
	Seed uint64
	// Logger receives warnings (torn tails, failed snapshots); nil is slog.Default().
	Logger *slog.Logger
}

// DefaultOptions returns the defaults: 64 contexts per word, 1,000,000 words,
// a 512 MiB budget, contexts cut to 1024 bytes, words up to 64 bytes, fsync
// every 200 ms, a snapshot every 100,000 records, document frequencies of up to
// 2,000,000 words (80–138 bytes of RAM, by the word's length, and 10 of disk each), and the hashes of the
// 2,000,000 most recent passages.
func DefaultOptions() Options {
	return Options{
		MaxContexts:      64,
		MaxWords:         1_000_000,
		MaxDocFreqWords:  2_000_000,
		MaxPassageHashes: 2_000_000,
		MaxBytes:         512 << 20,
		MaxContextBytes:  1024,
		MaxWordBytes:     64,
		Sync:             SyncInterval,
		SyncEvery:        200 * time.Millisecond,
		SnapshotEvery:    100_000,
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
	case o.MaxPassageHashes < 1:
		return fmt.Errorf("memory option MaxPassageHashes = %d: want ≥ 1", o.MaxPassageHashes)
	}
	return nil
}
