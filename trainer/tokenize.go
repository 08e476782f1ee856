package trainer

import (
	"context"
	"errors"
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
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: text2vec-am tokenize --corpus DIR --out FILE\n\n"+
			"Writes the corpus as train and the server read it: each line's words in lower case, split at\n"+
			"every rune that is not a letter or digit, joined by single spaces. fastText splits at spaces\n"+
			"only, so train it on this file (fasttext skipgram -input FILE ...) before import-fasttext:\n"+
			"its vectors are then those of the words the model will look up.")
		fs.PrintDefaults()
	}
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return cli.UsageError("unexpected arguments %q (give the corpus with --corpus)", fs.Args())
	case len(paths) == 0:
		return cli.UsageError("--corpus is required")
	case *out == "":
		return cli.UsageError("--out is required")
	}
	if _, err := corpus.Files(paths); err != nil {
		return fmt.Errorf("--corpus: %w", err)
	}
	st, err := corpus.WriteTokensFile(ctx, paths, nil, outpath.File{Flag: "--out", Path: *out})
	if errors.Is(err, corpus.ErrOutputInCorpus) {
		return cli.UsageError("%w", err)
	}
	if err != nil {
		return fmt.Errorf("--out %s: %w", *out, err)
	}
	fmt.Fprintf(env.Stderr, "wrote %d lines, %d tokens to %s\n", st.Lines, st.Tokens, *out)
	return nil
}
