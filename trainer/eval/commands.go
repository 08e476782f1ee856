// Package eval reproduces the evaluations of the Attentive Mimicking paper
// (Schick & Schütze, NAACL 2019) with this project's code: CHIMERAS, the
// VecMap protocol, the sentiment dictionary, word similarity and rare-word
// pairs, and retrieval over a document collection. Every task takes its data
// files as arguments, prints a Markdown table shaped like the paper's and, where
// a curve says more, writes a PNG plot.
//
// Layout: each task is a file of its method (chimeras.go, nonce.go, vecmap.go,
// wordsim.go, rarepairs.go, raredev.go, sentiment.go) and a file of its
// command (TASK_cmd.go: flags into an options struct, then a plain function);
// commands.go registers them under `eval`. Shared by the tasks: contexts.go
// (corpus contexts, AM inference), fasttext.go (the fastText anchor),
// modelload.go (embeddings and models), logreg.go, vecmap_linalg.go
// (normalization, Procrustes). The pieces without task knowledge are
// subpackages, imported one way (eval → them; retrieval → dataset, stats):
// dataset (loaders), stats (Spearman, binomial test), retrieval (BM25, dense
// retrieval, fusion, metrics) and report (tables, plots).
package eval

import (
	"path/filepath"
	"strings"

	"github.com/text2vec-am/text2vec-am/cli"
)

// Commands returns the subcommands this package provides to the text2vec-am binary.
func Commands() []cli.Command {
	tasks := []cli.Command{
		{Name: "chimeras", Summary: "CHIMERAS (paper §4.4): additive, FCM-ctx and AM-ctx nonce vectors", Run: runChimeras},
		{Name: "nonce", Summary: "definitional nonces (Herbelot & Baroni 2017): rank of the gold vector, MRR and median rank", Run: runNonce},
		{Name: "rare-dev", Summary: "build a rare-word development set (pairs + contexts) for rare-pairs from a corpus", Run: runRareDev},
		{Name: "rare-pairs", Summary: "rare-word pairs with contexts (the CRW protocol): ρ for k = 0, 1, 2, 4 … contexts", Run: runRarePairs},
		{Name: "retrieval", Summary: "MRR@10, R@1, R@10 of BM25, dense base-only, dense AM (the adapter's vectorizer) and hybrid", Run: runRetrieval},
		{Name: "sentiment", Summary: "sentiment dictionary (paper §4.2): logistic regression, Spearman on SemEval-2015 10E by frequency", Run: runSentiment},
		{Name: "vecmap", Summary: "the paper's Table 1: downsample, train all models, Procrustes onto gold, cosine by occurrences", Run: runVecMap},
		{Name: "wordsim", Summary: "Spearman of cosine vs gold on word-similarity files, with coverage", Run: runWordSim},
	}
	names := make([]string, len(tasks))
	for i, c := range tasks {
		names[i] = c.Name
	}
	return []cli.Command{cli.Group("eval", "evaluate embeddings and AM models: "+strings.Join(names, ", "), "task", "", tasks)}
}

// datasetName is the file name of path without directory and extensions.
func datasetName(path string) string {
	base := filepath.Base(path)
	base = strings.TrimSuffix(base, ".gz")
	return strings.TrimSuffix(base, filepath.Ext(base))
}
