// Package memory is the persistent context memory of the text2vec-am server:
// for every rare or unseen word it keeps a bounded set of the sentences the
// word was seen in, so that the word's Attentive Mimicking vector improves
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
// in the middle of a write: bytes at the end with no intact record after them,
// no longer than one record can be) is truncated with a slog warning. Records set absolute state, so replaying
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
// A write that fails partway may have put some complete records in the log:
// the log is cut back to its last complete record at once (shrinking a file
// needs no free space), and again by Close if that cut failed, so a stop and
// a restart never replay part of a failed write. At most once a second, the
// next write or WriteErr probes for 64 KiB of free space and, if there is,
// cuts the log back (if not done yet) and fsyncs it, so writing resumes by
// itself once space returns. Passage counts whose write failed are taken
// back from RAM (CountPassage, CountPassages): an error means nothing was
// counted, and a retry counts the passages once. Two windows remain. A crash
// (not a clean stop) after a failed write and before its cut reaches the disk
// keeps the complete records of that write, which Open replays. With
// SyncAlways, a write that succeeded but whose fsync failed returns the
// fsync's error with its passages counted: the fsync runs after the write
// lock is released (concurrent writers share it), other writers may have
// appended behind the batch by then, so neither the log nor the counts in RAM
// can take it back; a retry counts those passages twice. Contexts need no
// take-back: a kept context is never offered again.
//
// # Document frequencies
//
// Besides the contexts, the memory keeps the collection statistics of the
// vectorizer's sif-collection weighting: the number of passages counted
// (CountPassage) and, for every word, the number of those passages that
// contain it. They are logged, snapshotted, recovered and cleared with the
// contexts; the log is written in the order the counts change in RAM (under
// one lock), so replaying its absolute records yields the counts in RAM at
// the crash (more only after the crash window of a failed write, above), never
// more than were logged (a large passage torn across its records by a crash
// keeps the words of its intact records). At most
// MaxDocFreqWords distinct words are counted; a word first seen after the
// table is full is not counted (Stats.DocFreqRejected) and weighs as a word
// no passage holds, which is what a word first seen that late almost always
// is. A memory written before document frequencies existed
// (format version 1) opens with zero counts and says so in the log.
//
// # Model
//
// Which words a memory keeps contexts for depends on the model's vocabulary.
// A memory's directory records the model that writes it (model.json beside
// the log and snapshots, whose format it leaves alone): ClaimModel records
// the caller's model when none is recorded and returns the recorded one,
// Stats.ModelWarning says when they differ, and Clear records the claiming
// model (or none). A directory without the file opens without a warning; a
// file that holds no record is reported in Stats.Damaged and replaced by the
// next writer's claim.
//
// # Order independence
//
// Each word keeps the MaxContexts contexts with the smallest 64-bit hash
// (bottom-k; contextHash: FNV-1a of the context's bytes, xor Options.Seed,
// through the splitmix64 finalizer; ties by content), in ascending order of
// the hash. A passage is counted once: CountPassages remembers its content
// hash (PassageHash of its tokens) and a passage whose hash it remembers
// counts nothing. Both are set operations, idempotent and commutative, so
// two memories that saw the same observations and passages, in any order and
// with any of them resent, hold the same memory byte for byte (Export) as long
// as no budget was reached: no word evicted (MaxBytes, MaxWords), no counted
// word refused (MaxDocFreqWords), and no passage hash forgotten
// (MaxPassageHashes: the most recent distinct passages are remembered, the
// oldest forgotten first; a passage resent after that many others counts
// again). Two distinct passages with the same tokens are one passage; two with
// different tokens and the same 64-bit hash (odds about n/2^64 for n
// remembered) are one too.
//
// # Copies
//
// A memory in RAM may be a copy of a memory kept elsewhere (in Weaviate,
// read by several servers): Admitted tells which observations can change
// it, and so the only ones worth storing there; CountHashed counts passages
// stored as their content hash and distinct words exactly as their tokens
// would be counted. Since every change is a set operation, a copy that
// read the same observations and passages, in any order, holds the same
// memory (a passage read again after MaxPassageHashes others counts again:
// a copy that may read one passage twice hands CountHashed each passage
// once).
//
// # Budget
//
// MaxBytes bounds the bytes the memory accounts (Stats.BudgetBytes): the
// contexts and words plus a fixed estimate of the per-word and per-context
// overhead of the tables. When an offer would exceed it, or a new word
// would exceed MaxWords, the least recently changed words are evicted (logged
// as recForget, so a replay evicts the same words), so a word first seen
// late always gets its contexts. An Open with lower caps than the files were
// written with reads them through a bounded buffer (readBuffer) and then
// evicts down to the caps; while it loads, the memory holds at most loadSlack
// times its caps (past that it evicts as it reads, which leaves a word evicted
// from the snapshot and changed by a later log with the log's contexts only).
// It counts (Stats.Evicted, Stats.DocFreqRejected) and logs what it
// evicted and did not count. RememberAt orders the words
// by a time the caller gives (a copy of a memory kept elsewhere gives the
// time each lesson was stored): whatever order observations arrive in, the
// words changed least recently by that time are evicted first, and an
// observation for which no room can be made of words changed no later is
// refused (the words it evicted are logged as evicted all the same).
package memory
