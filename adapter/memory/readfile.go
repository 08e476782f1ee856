package memory

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/text2vec-am/text2vec-am/model"
)

// errTooLarge reports a memory file larger than any memory opened with
// these options or the defaults could ever have written.
var errTooLarge = errors.New("larger than this memory can ever write")

// fileCap is the largest log or snapshot a memory can write, twice over: the
// contexts MaxBytes allows (with as much again for their framing), every word
// and document frequency the caps allow, each with a record's overhead, plus
// the log records between two snapshots (2.95 GB by default). Each cap counts
// at least at its default: a memory written with the defaults and opened with
// lower caps is read in full, then evicted down to the lower budget; only a
// file larger than the defaults or the options allow is refused.
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

// readMemoryFile reads one log or snapshot: opened without blocking, refused
// unless it is a regular file (model.ErrNotRegular) or when it is larger than
// limit (errTooLarge), and read no further than the size it has when opened.
func readMemoryFile(path string, limit int64) ([]byte, error) {
	f, st, err := model.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, %w (%d bytes)", path, st.Size(), errTooLarge, limit)
	}
	b := make([]byte, st.Size())
	n, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	return b[:n], nil
}

// unreadable reports the errors of readMemoryFile that set a file aside
// (the memory starts without it) rather than stop Open.
func unreadable(err error) bool {
	return errors.Is(err, model.ErrNotRegular) || errors.Is(err, errTooLarge)
}
