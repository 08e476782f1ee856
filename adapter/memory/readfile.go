package memory

import (
	"errors"
	"fmt"
	"io"

	"github.com/text2vec-am/text2vec-am/model"
)

// errTooLarge reports a memory file larger than the options could ever
// have written.
var errTooLarge = errors.New("larger than this memory can ever write")

// fileCap is the largest log or snapshot these options can write, twice over:
// the contexts MaxBytes allows (with as much again for their framing), every
// word and document frequency the caps allow, each with a record's overhead,
// plus the log records between two snapshots (2.8 GB by default).
func (o Options) fileCap() int64 {
	const overhead = 32 // record header, lengths, counts
	word := int64(o.MaxWordBytes + overhead)
	state := 2*o.MaxBytes + int64(o.MaxWords+o.MaxDocFreqWords)*word
	log := int64(o.SnapshotEvery) * (word + int64(o.MaxContextBytes))
	return 2*(state+log) + headerSize
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
