package corpus

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"

	"github.com/text2vec-am/text2vec-am/internal/atomicfile"
	"github.com/text2vec-am/text2vec-am/internal/outpath"
)

// shuffleStream is the stream of the line permutation of ShuffleLines (its
// generator is PCG(seed, shuffleStream)); shufflePiece is the most of a
// line it holds in memory at once.
const (
	shuffleStream = 0x5eed5eed
	shufflePiece  = 64 << 10
)

// ShuffleLines writes the lines of src (size bytes, each line ended by '\n';
// a last line without one gets it) to w in an order drawn from seed: a
// Fisher–Yates permutation, the same for the same seed and line count. It
// reads src twice, once for where its lines start and once by line in the
// new order, in pieces of at most 64 KiB; it keeps 12 bytes a line in
// memory, and returns how many lines it wrote. It checks ctx as it goes.
func ShuffleLines(ctx context.Context, src io.ReaderAt, size int64, w io.Writer, seed uint64) (int64, error) {
	starts, err := lineStarts(ctx, io.NewSectionReader(src, 0, size))
	if err != nil {
		return 0, err
	}
	starts = append(starts, size) // line i is [starts[i], starts[i+1])
	n := len(starts) - 1
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	rand.New(rand.NewPCG(seed, shuffleStream)).Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	buf := make([]byte, shufflePiece)
	for k, i := range order {
		if k%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return int64(k), err
			}
		}
		if err := copyLine(w, src, starts[i], starts[i+1], buf); err != nil {
			return int64(k), fmt.Errorf("line %d: %w", i+1, err)
		}
	}
	return int64(n), nil
}

// copyLine copies src's bytes [lo, hi) to w through buf, adding '\n' when
// they do not end with one.
func copyLine(w io.Writer, src io.ReaderAt, lo, hi int64, buf []byte) error {
	last := byte(0)
	for lo < hi {
		piece := buf[:min(int64(len(buf)), hi-lo)]
		if m, err := src.ReadAt(piece, lo); m < len(piece) {
			return fmt.Errorf("read: %w", cmp.Or(err, io.ErrUnexpectedEOF))
		}
		if _, err := w.Write(piece); err != nil {
			return err
		}
		lo += int64(len(piece))
		last = piece[len(piece)-1]
	}
	if last != '\n' {
		_, err := w.Write([]byte{'\n'})
		return err
	}
	return nil
}

// lineStarts returns the offsets at which the lines of r start (none for an
// empty r). Lines may be of any length; there may be at most 2^31 − 1 of
// them. It checks ctx as it goes.
func lineStarts(ctx context.Context, r io.Reader) ([]int64, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var starts []int64
	var off int64
	atStart := true
	for chunks := 0; ; chunks++ {
		if chunks%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			if atStart {
				if len(starts) == 1<<31-1 {
					return nil, fmt.Errorf("more than %d lines: too many to shuffle", 1<<31-1)
				}
				starts = append(starts, off)
			}
			off += int64(len(chunk))
			atStart = chunk[len(chunk)-1] == '\n'
		}
		switch err {
		case nil, bufio.ErrBufferFull:
		case io.EOF:
			return starts, nil
		default:
			return nil, err
		}
	}
}

// WriteShuffledTokensFile is WriteTokensFile with the lines in an order drawn
// from seed (ShuffleLines). The corpus files are listed first; the tokens go
// to a hidden temporary file beside out (".NAME.unshuffled" and a random
// suffix, which a corpus walk skips), removed at once where an open file can
// be (not on Windows) and otherwise when done, then in the new order to out,
// written whole or not at all. It needs room for two copies of the tokens.
func WriteShuffledTokensFile(ctx context.Context, paths []string, drop map[string]bool, out outpath.File,
	seed uint64) (TokenStats, error) {
	if err := CheckOutputs(paths, []outpath.File{out}); err != nil {
		return TokenStats{}, err
	}
	files, err := Files(paths)
	if err != nil {
		return TokenStats{}, err
	}
	dir := filepath.Dir(out.Path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(out.Path)+".unshuffled*")
	if err != nil {
		return TokenStats{}, fmt.Errorf("create a temporary file in the directory %s of %s: %w", dir, out.Path, err)
	}
	if runtime.GOOS == "windows" {
		defer os.Remove(tmp.Name())
	} else {
		os.Remove(tmp.Name()) // the open file stays readable and goes with the process
	}
	defer tmp.Close()
	bw := bufio.NewWriterSize(tmp, 1<<20)
	st, err := WriteTokens(ctx, files, drop, bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return st, fmt.Errorf("write the tokens to a temporary file beside %s: %w", out.Path, err)
	}
	size, err := tmp.Seek(0, io.SeekCurrent)
	if err != nil {
		return st, fmt.Errorf("the temporary file beside %s: %w", out.Path, err)
	}
	err = atomicfile.Write(out.Path, atomicfile.Readable, func(w *bufio.Writer) error {
		_, err := ShuffleLines(ctx, tmp, size, w, seed)
		return err
	})
	return st, err
}
