package model

import (
	"errors"
	"fmt"
	"io"
)

// IsWeightsFile reports whether the file at path starts like a text2vec-am
// weights file or serving bundle (its magic bytes), so that a command taking
// "embeddings" can accept a bundle too without reading a large file twice.
func IsWeightsFile(path string) (bool, error) {
	f, _, err := OpenRegular(path)
	if err != nil {
		return false, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	buf := make([]byte, len(weightsMagic))
	if _, err := io.ReadFull(f, buf); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return false, nil
		}
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	return string(buf) == weightsMagic, nil
}
