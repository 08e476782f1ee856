package model

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
)

// ErrInvalidGzip reports a stream that starts with the gzip magic bytes but
// is not a valid gzip stream: a bad header, corrupt or truncated compressed
// data, or a checksum mismatch.
var ErrInvalidGzip = errors.New("invalid gzip")

// MaybeGunzip returns a reader of r's content that decompresses it when it
// starts with the gzip magic bytes (1f 8b), whatever the file is called: the
// one rule every reader of corpora, embeddings and text files follows. The
// result is buffered with size bytes. A read error of the decompressed
// stream that comes from the data, not from r, wraps ErrInvalidGzip. closeFn
// releases the decompressor (it does not close r).
func MaybeGunzip(r io.Reader, size int) (rd io.Reader, closeFn func() error, err error) {
	src := &sourceReader{r: r}
	br := bufio.NewReaderSize(src, size)
	magic, err := br.Peek(2)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, err
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, gzipError(src, err)
		}
		return &gunzipReader{zr: zr, src: src}, zr.Close, nil
	}
	return br, func() error { return nil }, nil
}

// sourceReader remembers the last error of the reader under a decompressor,
// so that its errors are told apart from those of the compressed data.
type sourceReader struct {
	r   io.Reader
	err error
}

func (s *sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		s.err = err
	}
	return n, err
}

// gunzipReader reads a gzip stream, its errors wrapped by gzipError.
type gunzipReader struct {
	zr  *gzip.Reader
	src *sourceReader
}

func (g *gunzipReader) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	if err != nil && err != io.EOF {
		err = gzipError(g.src, err)
	}
	return n, err
}

// gzipError returns err, from a gzip reader over src, unchanged when it is
// src's own error and wrapping ErrInvalidGzip otherwise.
func gzipError(src *sourceReader, err error) error {
	if src.err != nil && errors.Is(err, src.err) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrInvalidGzip, err)
}
