package model

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
)

// MaybeGunzip returns a reader of r's content that decompresses it when it
// starts with the gzip magic bytes (1f 8b), whatever the file is called: the
// one rule every reader of corpora, embeddings and text files follows. The
// result is buffered with size bytes. closeFn releases the decompressor (it
// does not close r).
func MaybeGunzip(r io.Reader, size int) (rd io.Reader, closeFn func() error, err error) {
	br := bufio.NewReaderSize(r, size)
	magic, err := br.Peek(2)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, err
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, fmt.Errorf("invalid gzip: %w", err)
		}
		return zr, zr.Close, nil
	}
	return br, func() error { return nil }, nil
}
