package memory

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/text2vec-am/text2vec-am/model"
)

// errTooLarge reports a memory file with no valid header larger than any
// memory opened with these options or the defaults could ever write: it is
// set aside unread.
var errTooLarge = errors.New("larger than this memory can ever write")

// fileCap is the largest log or snapshot a memory can write, twice over: the
// contexts MaxBytes allows (with as much again for their framing), every word
// and document frequency the caps allow, each with a record's overhead, plus
// the log records between two snapshots (2.95 GB by default), each cap
// counted at least at its default. A larger file is read only if it starts
// with a valid header (a memory with higher caps wrote it; it is read through
// a bounded buffer and evicted down to the caps as it loads); anything else
// that large is set aside unread (checkSize).
func (o Options) fileCap() int64 {
	d := DefaultOptions()
	// float64: caps near the int64 range must not wrap to a small cap.
	maxBytes := float64(max(o.MaxBytes, d.MaxBytes))
	words := float64(max(o.MaxWords, d.MaxWords)) + float64(max(o.MaxDocFreqWords, d.MaxDocFreqWords))
	const overhead = 32 // record header, lengths, counts
	word := float64(max(o.MaxWordBytes, d.MaxWordBytes) + overhead)
	state := 2*maxBytes + words*word
	log := float64(max(o.SnapshotEvery, d.SnapshotEvery)) * (word + float64(max(o.MaxContextBytes, d.MaxContextBytes)))
	if c := 2*(state+log) + headerSize; c < math.MaxInt64/2 {
		return int64(c)
	}
	return math.MaxInt64 / 2
}

// fileScan is what scanFile read of a log or snapshot.
type fileScan struct {
	size int64 // the file's size when opened; nothing after it is read
	ver  byte  // the format version its records were read in
	herr error // what is wrong with its header, if anything
	sv   salvage
}

// scanFile reads one log or snapshot of the given kind: opened without
// blocking, refused unless it is a regular file (model.ErrNotRegular) or when
// it is larger than limit with no valid header (errTooLarge), then its header
// and, through a buffer of readBuffer bytes whatever the file's size, each
// intact record after it, applied with fn (salvageStream).
func scanFile(path string, kind byte, limit int64, fn func(record) error) (fileScan, error) {
	f, st, err := model.OpenRegular(path)
	if err != nil {
		return fileScan{}, err
	}
	defer f.Close()
	fs := fileScan{size: st.Size()}
	head := make([]byte, min(fs.size, headerSize))
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return fileScan{}, fmt.Errorf("%s: %w", path, err)
	}
	fs.ver, fs.herr = headerVersion(head[:n], kind)
	if fs.size > limit && fs.herr != nil {
		return fileScan{}, fmt.Errorf("%s: %w", path, tooLarge(fs.size, limit))
	}
	fs.sv, err = salvageStream(f, fs.size-int64(n), fs.ver, fn, readBuffer, recHeader+maxPayload)
	if err != nil {
		return fileScan{}, fmt.Errorf("%s: %w", path, err)
	}
	return fs, nil
}

// checkSize refuses (errTooLarge) a log or snapshot of the given kind larger
// than limit unless it starts with a valid header: a file a memory with higher
// caps wrote is read whatever its size, in bounded RAM, and a larger one
// holding anything else is not read at all.
func checkSize(path string, kind byte, size, limit int64) error {
	if size <= limit {
		return nil
	}
	f, _, err := model.OpenRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, headerSize)
	if _, err := io.ReadFull(f, head); err == nil {
		if _, err := checkHeader(head, kind); err == nil {
			return nil
		}
	}
	return tooLarge(size, limit)
}

// tooLarge is the errTooLarge of a file of size bytes over limit.
func tooLarge(size, limit int64) error {
	return fmt.Errorf("%d bytes with no valid header, %w (%d bytes)", size, errTooLarge, limit)
}

// unreadable reports the errors of scanFile that set a file aside
// (the memory starts without it) rather than stop Open.
func unreadable(err error) bool {
	return errors.Is(err, model.ErrNotRegular) || errors.Is(err, errTooLarge)
}
