package trainer

import (
	"bufio"
	"context"
	"fmt"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/internal/atomicfile"
	"github.com/text2vec-am/text2vec-am/internal/outpath"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/fasttext"
)

func importFastTextCommand() cli.Command {
	return cli.Command{Name: "import-fasttext", Summary: "write a fastText model's word vectors, n-gram vectors and " +
		"counts as train takes them (AM on fastText's vectors)", Run: runImportFastText}
}

// importFlags are the flags of import-fasttext.
type importFlags struct {
	model, out, ngramsOut, countsOut, format string
	maxWords, ngramsMax                      int
}

func runImportFastText(_ context.Context, env cli.Env) error {
	fs := cli.NewFlagSet("import-fasttext", env)
	var f importFlags
	fs.StringVar(&f.model, "fasttext", "", "the fastText model `FILE` (.bin of fastText 0.9, not quantized; "+
		"required)")
	fs.StringVar(&f.out, "out", "", "word vectors `FILE` (train --embeddings; required)")
	fs.StringVar(&f.ngramsOut, "ngrams-out", "", "n-gram vectors `FILE` (train --ngrams; required for a model "+
		"with n-grams)")
	fs.StringVar(&f.countsOut, "counts-out", "", "the words' counts in fastText's corpus (\"word count\" lines) "+
		"to `FILE` (train --counts)")
	fs.StringVar(&f.format, "format", "binary", "output format: binary (word2vec binary) or text (word2vec text)")
	fs.IntVar(&f.maxWords, "max-words", 0, "keep the `N` most frequent words of the model's dictionary, and the n-grams "+
		"of those (0: all)")
	fs.IntVar(&f.ngramsMax, "ngrams-max", 0, "--ngrams-out keeps only the `N` n-grams found in the most words kept, "+
		"as train --ngram-max N would (0: all)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: text2vec-am import-fasttext --fasttext FILE.bin --out FILE --ngrams-out FILE "+
			"[--counts-out FILE] [--max-words N] [--ngrams-max N] [--format binary|text]\n\n"+
			"Writes a fastText model's vectors in the form train-embeddings --maxn writes its own, so that\n"+
			"train builds AM on them: each word's vector as fastText gives it (its row and its n-grams'),\n"+
			"one row per character n-gram of the words kept (its hash bucket's row), and the words' counts.\n"+
			"A word the model never saw then gets fastText's vector as its form, and its contexts on top.")
		fs.PrintDefaults()
	}
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return err
	}
	if err := f.check(fs.NArg()); err != nil {
		return err
	}
	m, err := fasttext.Open(f.model)
	if err != nil {
		return err
	}
	defer m.Close()
	if m.MaxN > 0 && m.Bucket > 0 && f.ngramsOut == "" {
		return cli.UsageError("%s has character n-grams (%d…%d): --ngrams-out is required", f.model, m.MinN, m.MaxN)
	}
	words, ngrams, err := m.Subwords(f.maxWords, f.ngramsMax)
	if err != nil {
		return fmt.Errorf("%s: %w", f.model, err)
	}
	if ngrams == nil && f.ngramsOut != "" {
		return fmt.Errorf("%s has no character n-grams (trained with -maxn 0 or -minn above -maxn): "+
			"--ngrams-out has nothing to write", f.model)
	}
	return f.write(env, words, ngrams)
}

// check refuses before any work arguments, a missing required flag, an
// unknown format, a negative --max-words, and outputs that are the same file
// or the model (outpath.Check).
func (f *importFlags) check(nargs int) error {
	switch {
	case nargs > 0:
		return cli.UsageError("unexpected arguments (all inputs are flags)")
	case f.model == "":
		return cli.UsageError("--fasttext is required")
	case f.out == "":
		return cli.UsageError("--out is required")
	case f.format != "binary" && f.format != "text":
		return cli.UsageError("--format %q: want binary or text", f.format)
	case f.maxWords < 0:
		return cli.UsageError("--max-words %d: want 0 (all) or more", f.maxWords)
	case f.ngramsMax < 0:
		return cli.UsageError("--ngrams-max %d: want 0 (all) or more", f.ngramsMax)
	}
	outs := []outpath.File{{Flag: "--out", Path: f.out}, {Flag: "--ngrams-out", Path: f.ngramsOut},
		{Flag: "--counts-out", Path: f.countsOut}}
	if err := outpath.Check(outs, []outpath.File{{Flag: "--fasttext", Path: f.model}}); err != nil {
		return cli.UsageError("%w", err)
	}
	return nil
}

// write writes the word vectors, the n-gram table (nil: none) and the counts.
func (f *importFlags) write(env cli.Env, words, ngrams *model.Embeddings) error {
	binary := f.format == "binary"
	if err := model.SaveEmbeddings(f.out, words, binary); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	fmt.Fprintf(env.Stderr, "wrote %d word vectors of dimension %d to %s\n", words.Len(), words.Dim, f.out)
	if ngrams != nil {
		if err := model.SaveEmbeddings(f.ngramsOut, ngrams, binary); err != nil {
			return fmt.Errorf("--ngrams-out: %w", err)
		}
		fmt.Fprintf(env.Stderr, "wrote %d n-gram vectors to %s\n", ngrams.Len(), f.ngramsOut)
	}
	if f.countsOut != "" {
		err := atomicfile.Write(f.countsOut, atomicfile.Readable, func(w *bufio.Writer) error {
			return model.WriteCounts(w, words.Words, words.Counts)
		})
		if err != nil {
			return fmt.Errorf("--counts-out: %w", err)
		}
		fmt.Fprintf(env.Stderr, "wrote %d counts to %s\n", words.Len(), f.countsOut)
	}
	return nil
}
