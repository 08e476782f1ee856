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
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/defaultmodel"
	"github.com/text2vec-am/text2vec-am/model"
)

// Commands returns the subcommands this package provides to the text2vec-am binary.
func Commands() []cli.Command {
	return []cli.Command{cli.Group("eval",
		"evaluate embeddings and AM models: chimeras, nonce, vecmap, wordsim, rare-pairs, sentiment, retrieval",
		"task", "", []cli.Command{
			{Name: "chimeras", Summary: "CHIMERAS (paper §4.4): additive, FCM-ctx and AM-ctx nonce vectors", Run: runChimeras},
			{Name: "nonce", Summary: "definitional nonces (Herbelot & Baroni 2017): rank of the gold vector, MRR and median rank", Run: runNonce},
			{Name: "rare-dev", Summary: "build a rare-word development set (pairs + contexts) for rare-pairs from a corpus", Run: runRareDev},
			{Name: "rare-pairs", Summary: "rare-word pairs with contexts (the CRW protocol): ρ for k = 0, 1, 2, 4 … contexts", Run: runRarePairs},
			{Name: "retrieval", Summary: "MRR@10, R@1, R@10 of BM25, dense base-only, dense AM (the adapter's vectorizer) and hybrid", Run: runRetrieval},
			{Name: "sentiment", Summary: "sentiment dictionary (paper §4.2): logistic regression, Spearman on SemEval-2015 10E by frequency", Run: runSentiment},
			{Name: "vecmap", Summary: "the paper's Table 1: downsample, train all models, Procrustes onto gold, cosine by occurrences", Run: runVecMap},
			{Name: "wordsim", Summary: "Spearman of cosine vs gold on word-similarity files, with coverage", Run: runWordSim},
		})}
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
