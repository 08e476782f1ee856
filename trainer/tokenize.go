package trainer

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/internal/outpath"
	"github.com/text2vec-am/text2vec-am/trainer/corpus"
)

func tokenizeCommand() cli.Command {
	return cli.Command{Name: "tokenize", Summary: "write a corpus as the tokenizer reads it (lower case, one line of " +
		"space-separated words per line), for fastText", Run: runTokenize}
}

func runTokenize(ctx context.Context, env cli.Env) error {
	fs := cli.NewFlagSet("tokenize", env)
	var paths cli.Paths
	fs.Var(&paths, "corpus", "corpus `FILE` or directory (repeatable; .gz ok; required)")
	out := fs.String("out", "", "output `FILE` (required; written whole or not at all)")
	shuffle := fs.Bool("shuffle", false, "write the lines in a random order drawn from --seed, like "+
		"train-embeddings --shuffle's (not the same order; 12 bytes a line in memory; the disk holds two copies "+
		"of the output for a while)")
	seed := fs.Uint64("seed", 1, "the seed of --shuffle's order (needs --shuffle)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: text2vec-am tokenize --corpus DIR --out FILE [--shuffle [--seed N]]\n\n"+
			"Writes the corpus as train and the server read it: each line's words in lower case, split at\n"+
			"every rune that is not a letter or digit, joined by single spaces. fastText splits at spaces\n"+
			"only, so train it on this file (fasttext skipgram -input FILE ...) before import-fasttext:\n"+
			"its vectors are then those of the words the model will look up. fastText reads its input\n"+
			"in file order; --shuffle gives it the lines in a random order instead.")
		fs.PrintDefaults()
	}
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return err
	}
	seedGiven := false
	fs.Visit(func(f *flag.Flag) { seedGiven = seedGiven || f.Name == "seed" })
	switch {
	case fs.NArg() > 0:
		return cli.UsageError("unexpected arguments %q (give the corpus with --corpus)", fs.Args())
	case len(paths) == 0:
		return cli.UsageError("--corpus is required")
	case *out == "":
		return cli.UsageError("--out is required")
	case seedGiven && !*shuffle:
		return cli.UsageError("--seed orders --shuffle's lines: add --shuffle, or drop --seed")
	}
	if _, err := corpus.Files(paths); err != nil {
		return fmt.Errorf("--corpus: %w", err)
	}
	if err := outpath.CheckWritable(*out); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	dst := outpath.File{Flag: "--out", Path: *out}
	var st corpus.TokenStats
	var err error
	if *shuffle {
		st, err = corpus.WriteShuffledTokensFile(ctx, paths, nil, dst, *seed)
	} else {
		st, err = corpus.WriteTokensFile(ctx, paths, nil, dst)
	}
	if errors.Is(err, corpus.ErrOutputInCorpus) {
		return cli.UsageError("%w", err)
	}
	if err != nil {
		return fmt.Errorf("--out %s: %w", *out, err)
	}
	fmt.Fprintf(env.Stderr, "wrote %d lines, %d tokens to %s\n", st.Lines, st.Tokens, *out)
	return nil
}
