package corpus

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
	"unsafe"

	"github.com/text2vec-am/text2vec-am/model"
)

// MaxUnitBytes bounds the text of one unit. A longer line (a corpus such as
// text8 is one line of 100 MB) is split into pieces of at most this many
// bytes, each cut after the last byte in it that separates words (an ASCII
// byte that is not a letter or digit), or, when it has none, at a rune
// boundary; each piece is a unit of its own with the line's number. fastText
// likewise cuts lines at 1,024 words. Memory stays bounded whatever the input.
const MaxUnitBytes = 1 << 20

// readBuffer is the size of the line buffer.
const readBuffer = MaxUnitBytes

// checkEvery is how many lines pass between checks of the context and calls of
// Options.Progress.
const checkEvery = 4096

// Options control how a corpus is split into units and tokens.
type Options struct {
	// Tokenizer splits text into words. The zero value does not lowercase; use
	// DefaultOptions for the project's tokenizer.
	Tokenizer model.Tokenizer
	// Sentences splits every line into sentences (model.Tokenizer.AppendSentences);
	// otherwise a unit is a line.
	Sentences bool
	// Progress, when set, is called now and then with the bytes read so far (as
	// stored on disk, so compressed for gzip files) and the total size of the files.
	Progress func(done, total int64)
}

// DefaultOptions returns the options used by default: model.DefaultTokenizer,
// one unit per line, no progress reporting.
func DefaultOptions() Options {
	return Options{Tokenizer: model.DefaultTokenizer()}
}

// Unit is one line (or sentence) of the corpus, as passed to ForEachUnit.
type Unit struct {
	// Tokens are the words of the unit, never empty. They may alias an internal
	// buffer and are valid only during the callback: copy (strings.Clone) what you keep.
	Tokens []string
	// File is the corpus file the unit comes from.
	File string
	// Line is the 1-based line number of the unit in File.
	Line int
}

// ForEachUnit calls fn with every unit of the corpus at paths that has at least
// one token, in order. An error returned by fn stops the scan and is returned
// unchanged. The context is checked every few thousand lines; on cancellation
// the scan stops with ctx.Err(). A path (file or directory) that yields no
// token at all is an error naming it.
func ForEachUnit(ctx context.Context, paths []string, opts Options, fn func(Unit) error) error {
	srcs, err := resolve(paths)
	if err != nil {
		return err
	}
	s := scanner{opts: opts, fn: fn}
	if opts.Progress != nil {
		for _, src := range srcs {
			s.total += totalSize(src.files)
		}
	}
	for _, src := range srcs {
		var tokens int64
		for _, f := range src.files {
			n, err := s.scanFile(ctx, f)
			if err != nil {
				return err
			}
			tokens += n
		}
		if tokens == 0 {
			if len(src.files) == 1 && src.files[0] == src.arg {
				return fmt.Errorf("corpus file %s: empty (no words)", src.arg)
			}
			return fmt.Errorf("corpus directory %s: empty (no words in its %d files)", src.arg, len(src.files))
		}
	}
	if opts.Progress != nil {
		opts.Progress(s.done, s.total)
	}
	return nil
}

// scanner holds the reusable buffers of one scan.
type scanner struct {
	opts        Options
	fn          func(Unit) error
	done, total int64 // bytes read from finished files; total bytes
	tokens      []string
	sentences   []string
	long        []byte
}

// scanFile passes the units of one file to s.fn and returns its token count.
func (s *scanner) scanFile(ctx context.Context, path string) (int64, error) {
	r, raw, gzipped, closeFn, err := openFile(path)
	if err != nil {
		return 0, err
	}
	defer closeFn()
	br := bufio.NewReaderSize(r, readBuffer)
	head, err := br.Peek(TextCheckBytes)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return 0, fmt.Errorf("read corpus file %s near line 1: %w", path, err)
	}
	if err := checkHead(path, gzipped, head); err != nil {
		return 0, err
	}
	var ntok, offset int64
	line := 0
	for {
		chunk, err := br.ReadSlice('\n')
		if i := bytes.IndexByte(chunk, 0); i >= 0 {
			return ntok, nulError(path, offset+int64(i), line+1)
		}
		offset += int64(len(chunk))
		full := errors.Is(err, bufio.ErrBufferFull) // the line goes on
		text := chunk
		if full || len(s.long) > 0 {
			s.long = append(s.long, chunk...)
			n, ferr := s.cutLong(path, line+1)
			ntok += n
			if ferr != nil {
				return ntok, ferr
			}
			if full {
				if err := ctx.Err(); err != nil {
					return ntok, err
				}
				continue
			}
			text = s.long
		}
		if len(text) > 0 {
			line++
			n, ferr := s.unit(unsafe.String(&text[0], len(text)), path, line)
			if ferr != nil {
				return ntok, ferr
			}
			ntok += n
		}
		s.long = s.long[:0]
		if err == io.EOF {
			break
		}
		if err != nil {
			return ntok, fmt.Errorf("read corpus file %s near line %d: %w", path, line+1, err)
		}
		if line%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return ntok, err
			}
			if s.opts.Progress != nil {
				s.opts.Progress(s.done+raw.n, s.total)
			}
		}
	}
	s.done += raw.n
	return ntok, ctx.Err()
}

// cutLong passes the leading pieces of the long line held in s.long to s.unit
// while it holds more than MaxUnitBytes, keeping the rest in s.long (less than
// twice MaxUnitBytes is ever held).
func (s *scanner) cutLong(path string, line int) (int64, error) {
	var ntok int64
	for len(s.long) > MaxUnitBytes {
		cut := cutPoint(s.long, MaxUnitBytes)
		n, err := s.unit(unsafe.String(&s.long[0], cut), path, line)
		ntok += n
		if err != nil {
			return ntok, err
		}
		s.long = s.long[:copy(s.long, s.long[cut:])]
	}
	return ntok, nil
}

// cutPoint returns where to end a piece of at most max bytes of the long text
// b, which holds more than max bytes: after the last rune of b[:max] that
// separates words for the tokenizer (not model.IsWordRune; an invalid byte
// too), so that no word is cut, else at the last rune boundary in (0, max],
// else at max. A rune cut by max is never taken for a separator.
func cutPoint(b []byte, max int) int {
	end := max
	for end > 0 && !utf8.RuneStart(b[end]) {
		end--
	}
	if end == 0 {
		return max
	}
	for i := end; i > 0; {
		r, size := utf8.DecodeLastRune(b[:i])
		if size == 1 && r == utf8.RuneError || !model.IsWordRune(r) {
			return i
		}
		i -= size
	}
	return end
}

// unit tokenizes one line (or its sentences) and calls s.fn for each non-empty unit.
func (s *scanner) unit(text, path string, line int) (int64, error) {
	tok := s.opts.Tokenizer
	if !s.opts.Sentences {
		s.tokens = tok.AppendTokens(s.tokens[:0], text)
		if len(s.tokens) == 0 {
			return 0, nil
		}
		return int64(len(s.tokens)), s.fn(Unit{Tokens: s.tokens, File: path, Line: line})
	}
	var n int64
	s.sentences = tok.AppendSentences(s.sentences[:0], text)
	for _, sent := range s.sentences {
		s.tokens = tok.AppendTokens(s.tokens[:0], sent)
		if len(s.tokens) == 0 {
			continue
		}
		n += int64(len(s.tokens))
		if err := s.fn(Unit{Tokens: s.tokens, File: path, Line: line}); err != nil {
			return n, err
		}
	}
	return n, nil
}
