// Package eval reproduces the evaluations of the Attentive Mimicking paper
// (Schick & Schütze, NAACL 2019) with this project's code: CHIMERAS, the
// VecMap protocol, the sentiment dictionary, word similarity and rare-word
// pairs, and retrieval over a document collection. Every task takes its data
// files as arguments, prints a Markdown table shaped like the paper's and, where
// a curve says more, writes a PNG plot.
//
// The reusable pieces (data loaders, Spearman, BM25, retrieval metrics,
// orthogonal Procrustes, logistic regression, the binomial test) are exported
// so that tests and other packages can use them.
package eval

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/defaultmodel"
	"github.com/text2vec-am/text2vec-am/model"
)

// Commands returns the subcommands this package provides to the text2vec-am binary.
func Commands() []cli.Command {
	return []cli.Command{{
		Name:    "eval",
		Summary: "evaluate embeddings and AM models: chimeras, nonce, vecmap, wordsim, rare-pairs, sentiment, retrieval",
		Run:     runEval,
	}}
}

type task struct {
	name, summary string
	run           func(ctx context.Context, env cli.Env) error
}

func tasks() []task {
	return []task{
		{"chimeras", "CHIMERAS (paper §4.4): additive, FCM-ctx and AM-ctx nonce vectors", runChimeras},
		{"nonce", "definitional nonces (Herbelot & Baroni 2017): rank of the gold vector, MRR and median rank", runNonce},
		{"rare-dev", "build a rare-word development set (pairs + contexts) for rare-pairs from a corpus", runRareDev},
		{"rare-pairs", "rare-word pairs with contexts (the CRW protocol): ρ for k = 0, 1, 2, 4 … contexts", runRarePairs},
		{"retrieval", "MRR@10, R@1, R@10 of BM25, dense base-only, dense AM (the adapter's vectorizer) and hybrid", runRetrieval},
		{"sentiment", "sentiment dictionary (paper §4.2): logistic regression, Spearman on SemEval-2015 10E by frequency", runSentiment},
		{"vecmap", "the paper's Table 1: downsample, train all models, Procrustes onto gold, cosine by occurrences", runVecMap},
		{"wordsim", "Spearman of cosine vs gold on word-similarity files, with coverage", runWordSim},
	}
}

func runEval(ctx context.Context, env cli.Env) error {
	if len(env.Args) == 0 || env.Args[0] == "-h" || env.Args[0] == "--help" || env.Args[0] == "help" {
		printTasks(env.Stderr)
		if len(env.Args) == 0 {
			return cli.UsageError("missing task")
		}
		return flag.ErrHelp
	}
	for _, t := range tasks() {
		if t.name == env.Args[0] {
			return t.run(ctx, cli.Env{Args: env.Args[1:], Stdout: env.Stdout, Stderr: env.Stderr})
		}
	}
	printTasks(env.Stderr)
	return cli.UsageError("unknown task %q", env.Args[0])
}

func printTasks(w io.Writer) {
	fmt.Fprintln(w, "Usage: text2vec-am eval <task> [flags] FILE…\n\nTasks:")
	for _, t := range tasks() {
		fmt.Fprintf(w, "  %-11s %s\n", t.name, t.summary)
	}
	fmt.Fprintln(w, "\nRun 'text2vec-am eval <task> -h' for a task's flags.")
}

// datasetName is the file name of path without directory and extensions.
func datasetName(path string) string {
	base := filepath.Base(path)
	base = strings.TrimSuffix(base, ".gz")
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// loadEmbeddings loads base embeddings from an embeddings file (word2vec
// text or binary, .gz ok) or from a serving bundle: "default" (the embedded
// model) or a .am bundle, whose base vectors and counts are used.
func loadEmbeddings(path string) (*model.Embeddings, error) {
	e, _, err := loadBaseOrBundle(path)
	return e, err
}

// loadBaseOrBundle is loadEmbeddings that also returns the bundle's model
// (nil for an embeddings file).
func loadBaseOrBundle(path string) (*model.Embeddings, *model.Model, error) {
	if path == "" {
		return nil, nil, cli.UsageError("empty embeddings path")
	}
	slog.Info("loading embeddings", "path", path)
	if m, ok, err := defaultmodel.OpenBundle(path); ok || err != nil {
		if err != nil {
			return nil, nil, fmt.Errorf("load embeddings %s: %w", path, err)
		}
		return m.Base, m, nil
	}
	e, err := model.LoadEmbeddings(path)
	if err != nil {
		return nil, nil, fmt.Errorf("load embeddings %s: %w", path, err)
	}
	return e, nil, nil
}
