package command

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"strings"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/model"
)

func warm(ctx context.Context, env cli.Env, files []string, mf *memoryFlags, vf *vectorizerFlags, log *slog.Logger) error {
	if len(files) == 0 {
		return cli.UsageError("no text file given: name at least one, plain or gzip")
	}
	vopts, err := vf.options()
	if err != nil {
		return err
	}
	o, err := mf.options(log, false)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := checkWarmFile(f); err != nil {
			return err
		}
	}
	m, name, err := vf.loadModel()
	if err != nil {
		return err
	}
	mem, err := memory.Open(mf.dir, o)
	if err != nil {
		return err
	}
	claimMemory(mem, m, name, log)
	v, err := vectorizer.New(m, mem, vopts)
	if err != nil {
		mem.Close()
		return err
	}
	var offered, lines int64
	for _, f := range files {
		n, l, err := warmFile(ctx, v, vopts, f)
		offered += n
		lines += l
		if err != nil {
			if cerr := mem.Close(); cerr != nil {
				return errors.Join(err, cerr)
			}
			return fmt.Errorf("%w (the %d lines read before it, %d of this file, are taught and kept; "+
				"a passage taught again counts once)", err, lines, l)
		}
	}
	if err := mem.Close(); err != nil {
		return err
	}
	st := mem.Stats()
	fmt.Fprintf(env.Stdout, "read %d lines, offered %d contexts; the memory holds %d words, %d contexts, document frequencies of %d words over %d passages\n",
		lines, offered, st.Words, st.Contexts, st.DocFreqWords, st.Passages)
	if st.Evicted > 0 {
		fmt.Fprintf(env.Stdout, "%d words were evicted, their %d contexts forgotten, to keep within --memory-max-words %d "+
			"and --memory-max-bytes %d (the least recently changed first)\n", st.Evicted, st.EvictedContexts, o.MaxWords, o.MaxBytes)
	}
	if vopts.Weighting != vectorizer.WeightSIFCollection {
		fmt.Fprintf(env.Stdout, "(--weighting %s: passages were not counted for sif-collection)\n", vopts.Weighting)
	}
	if st.DocFreqRejected > 0 {
		fmt.Fprintf(env.Stdout, "%d new words were not counted (--memory-max-df-words %d reached, or too long or invalid)\n",
			st.DocFreqRejected, o.MaxDocFreqWords)
	}
	return nil
}

// warmFile teaches the memory every line of one file; each line is one passage.
// checkWarmFile refuses, before any work, a text file to warm from that is
// missing, a directory or a device (/dev/zero would be read for ever): a
// regular file, or a named pipe that streams text in, is read.
func checkWarmFile(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	switch m := info.Mode(); {
	case m.IsRegular() || m&fs.ModeNamedPipe != 0:
		return nil
	case m.IsDir():
		return cli.UsageError("corpus %s is a directory: name its text files", path)
	default:
		return cli.UsageError("corpus %s is not a text file (%s): give a regular file or a pipe", path, m.Type())
	}
}

func warmFile(ctx context.Context, v *vectorizer.Vectorizer, o vectorizer.Options, path string) (offered, lines int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, fmt.Errorf("corpus: %w", err)
	}
	defer f.Close()
	r, closeZ, err := model.MaybeGunzip(f, 1<<20)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", path, err)
	}
	defer closeZ()
	// Lines longer than the buffer are taught in 1 MiB pieces, which are not
	// passages of their own: the line is counted once, with the distinct
	// words of all its pieces.
	br := bufio.NewReaderSize(r, 1<<20)
	var long *longLine
	for {
		if lines%1024 == 0 && ctx.Err() != nil {
			return offered, lines, ctx.Err()
		}
		line, rerr := br.ReadSlice('\n')
		full := !errors.Is(rerr, bufio.ErrBufferFull) // the line ends in this piece
		if !full && long == nil {
			long = newLongLine(o)
		}
		if len(line) > 0 {
			text := strings.ToValidUTF8(string(line), "\uFFFD")
			lo := o
			if long != nil {
				lo = long.opts
				long.add(v, text)
			}
			n, err := v.Learn(text, lo)
			if err != nil {
				return offered, lines, fmt.Errorf("%s:%d: %w", path, lines+1, err)
			}
			offered += int64(n)
		}
		if full && (len(line) > 0 || long != nil) {
			lines++
		}
		if full && long != nil {
			if err := long.count(v, o); err != nil {
				return offered, lines, fmt.Errorf("%s:%d: %w", path, lines, err)
			}
			long = nil
		}
		switch {
		case rerr == nil, errors.Is(rerr, bufio.ErrBufferFull):
		case errors.Is(rerr, io.EOF):
			return offered, lines, nil
		default:
			return offered, lines, fmt.Errorf("%s:%d: %w", path, lines+1, rerr)
		}
	}
}

// longLine gathers the words of a line that memory warm reads in pieces.
type longLine struct {
	opts  vectorizer.Options // teach the pieces without counting them
	words map[string]struct{}
	toks  []string
}

func newLongLine(o vectorizer.Options) *longLine {
	l := &longLine{opts: o, words: make(map[string]struct{})}
	if o.Weighting == vectorizer.WeightSIFCollection {
		l.opts.Weighting = vectorizer.WeightSIF // counts only under sif-collection
	}
	return l
}

func (l *longLine) add(v *vectorizer.Vectorizer, text string) {
	l.toks = v.Model().Tokenizer.AppendTokens(l.toks[:0], text)
	for _, t := range l.toks {
		l.words[t] = struct{}{}
	}
}

// count counts the whole line as one passage when o counts passages: its
// distinct words, which the tokenizer splits back into themselves.
func (l *longLine) count(v *vectorizer.Vectorizer, o vectorizer.Options) error {
	if o.Weighting != vectorizer.WeightSIFCollection || len(l.words) == 0 {
		return nil
	}
	words := make([]string, 0, len(l.words))
	for w := range l.words {
		words = append(words, w)
	}
	return v.Observe(strings.Join(words, " "))
}
