package corpus

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/text2vec-am/text2vec-am/internal/atomicfile"
	"github.com/text2vec-am/text2vec-am/internal/outpath"
	"github.com/text2vec-am/text2vec-am/model"
)

// TokenStats counts what WriteTokens kept and dropped.
type TokenStats struct {
	Lines, Tokens    int64 // written
	DroppedSentences int64 // sentences that held a dropped word
	DroppedTokens    int64 // their tokens
	DroppedLines     int64 // lines left without a token
}

// WriteTokens writes the corpus at paths to w as the default tokenizer reads
// it: each corpus line with a kept token becomes one line of its tokens,
// lower case and space-separated, so that a tool which splits at spaces
// (fastText) sees the words training sees. A line without tokens is skipped.
//
// A sentence that holds a word of drop (nil: none) is left out, as the CRW
// protocol trains its embeddings on a subcorpus without the rare words: the
// models then know a rare word only from the contexts the evaluation gives
// them. The sentences on either side of a dropped one become neighbours in
// their line.
func WriteTokens(ctx context.Context, paths []string, drop map[string]bool, w io.Writer) (TokenStats, error) {
	var st TokenStats
	bw := bufio.NewWriterSize(w, 1<<20)
	opts := Options{Tokenizer: model.DefaultTokenizer(), Sentences: true}
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
	err := ForEachUnit(ctx, paths, opts, func(u Unit) error {
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
		return st, fmt.Errorf("write tokens: %w", err)
	}
	return st, nil
}

// WriteTokensFile is WriteTokens into the file out, written to a temporary
// file beside it and renamed when complete (an interrupted run leaves no
// partial file). An output that is a file of the corpus (CheckOutputs) is
// refused with ErrOutputInCorpus before anything is read.
func WriteTokensFile(ctx context.Context, paths []string, drop map[string]bool, out outpath.File) (TokenStats, error) {
	if err := CheckOutputs(paths, []outpath.File{out}); err != nil {
		return TokenStats{}, err
	}
	var st TokenStats
	err := atomicfile.Write(out.Path, atomicfile.Readable, func(w *bufio.Writer) error {
		var werr error
		st, werr = WriteTokens(ctx, paths, drop, w)
		return werr
	})
	return st, err
}
