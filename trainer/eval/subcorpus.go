package eval

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/text2vec-am/text2vec-am/internal/atomicfile"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/corpus"
)

// SubcorpusStats counts what WriteSubcorpus kept and dropped.
type SubcorpusStats struct {
	Lines, Tokens    int64 // written
	DroppedSentences int64 // sentences that held a dropped word
	DroppedTokens    int64 // their tokens
	DroppedLines     int64 // lines left without a token
}

// WriteSubcorpus writes the corpus at paths to w without any sentence that
// holds a word of drop, as the CRW protocol trains its embeddings on a
// subcorpus without the rare words: the models then know a rare word only
// from the contexts the evaluation gives them. Each corpus line with a kept
// token becomes one line of its kept tokens, space-separated (tokenized as
// training tokenizes, so training on the output sees the same tokens;
// fastText reads it as is); a line left without tokens is skipped. The
// sentences on either side of a dropped one become neighbours in their line.
func WriteSubcorpus(ctx context.Context, paths []string, drop map[string]bool, w io.Writer) (SubcorpusStats, error) {
	var st SubcorpusStats
	bw := bufio.NewWriterSize(w, 1<<20)
	opts := corpus.Options{Tokenizer: model.DefaultTokenizer(), Sentences: true}
	file, line, kept := "", 0, 0 // the line being written and its tokens so far
	endLine := func() {
		if kept > 0 {
			bw.WriteByte('\n')
			st.Lines++
		} else if line > 0 {
			st.DroppedLines++
		}
		kept = 0
	}
	err := corpus.ForEachUnit(ctx, paths, opts, func(u corpus.Unit) error {
		if u.File != file || u.Line != line {
			endLine()
			file, line = u.File, u.Line
		}
		for _, t := range u.Tokens {
			if drop[t] {
				st.DroppedSentences++
				st.DroppedTokens += int64(len(u.Tokens))
				return nil
			}
		}
		for _, t := range u.Tokens {
			if kept > 0 {
				bw.WriteByte(' ')
			}
			bw.WriteString(t)
			kept++
		}
		st.Tokens += int64(len(u.Tokens))
		return nil
	})
	if err != nil {
		return st, err
	}
	endLine()
	if err := bw.Flush(); err != nil {
		return st, fmt.Errorf("write subcorpus: %w", err)
	}
	return st, nil
}

// ErrSubcorpusInCorpus reports a subcorpus file that is, or lies inside, one
// of the corpus paths it is made from (it would be read back, or replace a
// corpus file).
var ErrSubcorpusInCorpus = errors.New("the subcorpus file is inside the corpus")

// writeSubcorpusFile is WriteSubcorpus into the file at path, written to a
// temporary file beside it and renamed when complete (an interrupted run
// leaves no partial subcorpus). A path inside the corpus is refused.
func writeSubcorpusFile(ctx context.Context, paths []string, drop map[string]bool, path string) (SubcorpusStats, error) {
	out, err := filepath.Abs(path)
	if err != nil {
		return SubcorpusStats{}, err
	}
	for _, p := range paths {
		in, err := filepath.Abs(p)
		if err != nil {
			return SubcorpusStats{}, err
		}
		if rel, err := filepath.Rel(in, out); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return SubcorpusStats{}, fmt.Errorf("%w: %s is %s or inside it", ErrSubcorpusInCorpus, path, p)
		}
	}
	var st SubcorpusStats
	err = atomicfile.Write(out, atomicfile.Readable, func(w *bufio.Writer) error {
		var werr error
		st, werr = WriteSubcorpus(ctx, paths, drop, w)
		return werr
	})
	return st, err
}
