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
	if path == "" {
		return nil, cli.UsageError("empty embeddings path")
	}
	slog.Info("loading embeddings", "path", path)
	if e, ok, err := defaultmodel.OpenBase(path); ok || err != nil {
		if err != nil {
			return nil, fmt.Errorf("load embeddings %s: %w", path, err)
		}
		return e, nil
	}
	e, err := model.LoadEmbeddings(path)
	if err != nil {
		return nil, fmt.Errorf("load embeddings %s: %w", path, err)
	}
	return e, nil
}

func runWordSim(ctx context.Context, env cli.Env) error {
	fs := cli.NewFlagSet("eval wordsim", env)
	var embs cli.Paths
	fs.Var(&embs, "embeddings", "base embeddings: a `FILE` (word2vec text or binary, .gz ok), a serving bundle (.am) or \"default\" (the embedded model); repeat to compare several")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: text2vec-am eval wordsim --embeddings FILE [--embeddings FILE…] PAIRS…\n\n"+
			"PAIRS files hold \"word1 word2 score\" lines (tabs or spaces). Prints Spearman's ρ of cosine\n"+
			"similarity vs gold, over the pairs where both words have a vector, and the coverage.")
		fs.PrintDefaults()
	}
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return err
	}
	if len(embs) == 0 {
		return cli.UsageError("--embeddings is required")
	}
	if fs.NArg() == 0 {
		return cli.UsageError("no word-pair files given")
	}
	sets := make([][]WordPair, fs.NArg())
	tab := Table{Header: []string{"embeddings"}}
	for i, path := range fs.Args() {
		p, err := LoadWordPairs(path)
		if err != nil {
			return err
		}
		sets[i] = p
		tab.Header = append(tab.Header, datasetName(path)+" ρ (covered)")
	}
	for _, path := range embs {
		if err := ctx.Err(); err != nil {
			return err
		}
		e, err := loadEmbeddings(path)
		if err != nil {
			return err
		}
		row := []string{filepath.Base(path)}
		for _, pairs := range sets {
			r := WordSim(EmbeddingLookup(e), pairs)
			row = append(row, fmt.Sprintf("%s (%d/%d)", fmtNum(r.Spearman, 3), r.Covered, r.Pairs))
		}
		tab.AddRow(row...)
	}
	return tab.WriteMarkdown(env.Stdout)
}
