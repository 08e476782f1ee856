package eval

import (
	"fmt"
	"io"
	"math"

	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
	"github.com/text2vec-am/text2vec-am/trainer/eval/report"
	"github.com/text2vec-am/text2vec-am/trainer/eval/stats"
)

// Settings of the paired comparison of eval wordsim: bootstrap rounds, the
// seed they are drawn from (fixed, so that a rerun prints the same),
// and the fewest pairs both spaces must cover to be compared (a percentile
// bootstrap over fewer says little).
const (
	wordSimBootstrapRounds = 2000
	wordSimBootstrapSeed   = 1
	wordSimMinSharedPairs  = 10
)

// scoredSpace is a space's name and its results on every pair set.
type scoredSpace struct {
	name    string
	results []WordSimResult
}

// writeWordSimDiffs writes, for every space after the first (the first row
// of the table of ρ), its ρ minus the first space's on each set over the
// pairs both cover (at least wordSimMinSharedPairs), with the paired
// bootstrap's 95 % interval and two-sided p (stats.BootstrapSpearmanDiff).
// setNames name the sets in the header; nothing is written for fewer than
// two spaces.
func writeWordSimDiffs(w io.Writer, spaces []scoredSpace, sets [][]dataset.WordPair, setNames []string) error {
	if len(spaces) < 2 {
		return nil
	}
	ref := spaces[0]
	fmt.Fprintf(w, "\nρ minus the first row's (%s) over the pairs both cover (at least %d), with the paired "+
		"bootstrap's 95 %% interval and two-sided p (%d rounds, pairs resampled):\n\n",
		ref.name, wordSimMinSharedPairs, wordSimBootstrapRounds)
	tab := report.Table{Header: []string{"embeddings"}}
	for _, n := range setNames {
		tab.Header = append(tab.Header, n+" Δρ [95 % interval] p")
	}
	for _, sp := range spaces[1:] {
		row := []string{sp.name}
		for i, pairs := range sets {
			row = append(row, wordSimDiffCell(sp.results[i].Cos, ref.results[i].Cos, pairs))
		}
		tab.AddRow(row...)
	}
	return tab.WriteMarkdown(w)
}

// wordSimDiffCell compares the cosines a and b of one set's pairs (NaN:
// not covered) on the pairs both cover.
func wordSimDiffCell(a, b []float64, pairs []dataset.WordPair) string {
	var ca, cb, gold []float64
	for i, p := range pairs {
		if math.IsNaN(a[i]) || math.IsNaN(b[i]) {
			continue
		}
		ca, cb, gold = append(ca, a[i]), append(cb, b[i]), append(gold, p.Score)
	}
	if len(gold) < wordSimMinSharedPairs {
		return fmt.Sprintf("– (%d pairs)", len(gold))
	}
	d := stats.BootstrapSpearmanDiff(ca, cb, gold, wordSimBootstrapRounds, wordSimBootstrapSeed)
	if math.IsNaN(d.Diff) {
		return fmt.Sprintf("– (%d pairs)", len(gold))
	}
	p := "p " + report.Num(d.P, 3)
	if res := 2 / float64(d.Rounds); d.P < res {
		p = fmt.Sprintf("p < %.2g", res) // the bootstrap's resolution
	}
	rounds := ""
	if d.Rounds < wordSimBootstrapRounds {
		rounds = fmt.Sprintf(", %d rounds", d.Rounds)
	}
	return fmt.Sprintf("%+.3f [%+.3f, %+.3f] %s (%d pairs%s)", d.Diff, d.Lo, d.Hi, p, len(gold), rounds)
}
