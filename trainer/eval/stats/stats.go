// Package stats holds the statistics of the evaluations: ranks with ties,
// Spearman's ρ, the exact two-sided binomial (sign) test, means that skip
// NaN, paired win counts and the paired bootstrap of a difference of two
// ρ. It imports nothing of this project.
package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Ranks returns the ranks (1-based) of x, ties getting the average of the ranks
// they span, as Spearman's rank correlation requires. NaN values are not allowed.
func Ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && x[idx[j]] == x[idx[i]] {
			j++
		}
		// positions i..j-1 hold equal values: ranks i+1..j, average (i+1+j)/2.
		avg := float64(i+1+j) / 2
		for k := i; k < j; k++ {
			r[idx[k]] = avg
		}
		i = j
	}
	return r
}

// Spearman returns Spearman's rank correlation of x and y (the Pearson
// correlation of their average ranks). It returns NaN when fewer than two
// values are given or when either side is constant: the correlation is then
// undefined. It panics if the lengths differ, as gonum's stat functions do.
func Spearman(x, y []float64) float64 {
	if len(x) != len(y) {
		panic(fmt.Sprintf("eval: Spearman length mismatch %d != %d", len(x), len(y)))
	}
	if len(x) < 2 {
		return math.NaN()
	}
	return correlationOfRanks(Ranks(x), Ranks(y))
}

// correlationOfRanks is the Pearson correlation of the ranks rx and ry, NaN
// when either is constant.
func correlationOfRanks(rx, ry []float64) float64 {
	if constant(rx) || constant(ry) {
		return math.NaN()
	}
	return stat.Correlation(rx, ry, nil)
}

func constant(x []float64) bool {
	for _, v := range x[1:] {
		if v != x[0] {
			return false
		}
	}
	return true
}

// BinomialTest returns the exact two-sided p-value of observing k successes
// in n trials under success probability p: the total probability of all
// outcomes no more likely than k (the method of scipy.stats.binomtest).
func BinomialTest(k, n int, p float64) float64 {
	if n <= 0 {
		return 1
	}
	b := distuv.Binomial{N: float64(n), P: p}
	pk := b.Prob(float64(k))
	const relErr = 1 + 1e-7
	var sum float64
	for i := 0; i <= n; i++ {
		if pi := b.Prob(float64(i)); pi <= pk*relErr {
			sum += pi
		}
	}
	return math.Min(1, sum)
}

// MeanNaNZero returns the mean of x counting NaN values as 0, and how many were NaN.
func MeanNaNZero(x []float64) (mean float64, nan int) {
	if len(x) == 0 {
		return math.NaN(), 0
	}
	var s float64
	for _, v := range x {
		if math.IsNaN(v) {
			nan++
			continue
		}
		s += v
	}
	return s / float64(len(x)), nan
}

// PairedWins counts the items where a is higher than b and where it is
// lower; NaN counts as 0, ties count in neither.
func PairedWins(a, b []float64) (wins, losses int) {
	if len(a) != len(b) {
		panic(fmt.Sprintf("eval: PairedWins length mismatch %d != %d", len(a), len(b)))
	}
	for i := range a {
		x, y := a[i], b[i]
		if math.IsNaN(x) {
			x = 0
		}
		if math.IsNaN(y) {
			y = 0
		}
		switch {
		case x > y:
			wins++
		case x < y:
			losses++
		}
	}
	return wins, losses
}

// SpearmanDiff is the difference ρ(a, gold) − ρ(b, gold) of two scorings of
// the same items, with a paired bootstrap interval around it.
type SpearmanDiff struct {
	// Diff is the difference on the items as given.
	Diff float64
	// Lo and Hi bound the central 95 % of the bootstrap differences.
	Lo, Hi float64
	// P is the two-sided bootstrap p-value of no difference: twice the
	// share of rounds on the smaller side of 0, rounds at 0 counting half
	// on each side (at most 1). Its resolution is 2/Rounds: P = 0 means
	// P < 2/Rounds.
	P float64
	// Rounds counts the bootstrap rounds whose difference was defined.
	Rounds int
}

// BootstrapSpearmanDiff compares two scorings a and b of the same items
// against gold: Spearman's ρ of each, their difference, and its paired
// bootstrap (Efron's percentile interval): rounds (≥ 0) resamples of the
// items with replacement, drawn from seed, each scoring both on the same
// items. A round in which either ρ is undefined is skipped; with none
// defined, or when the difference itself is undefined, every field but
// Rounds is NaN. It panics if the lengths differ.
func BootstrapSpearmanDiff(a, b, gold []float64, rounds int, seed uint64) SpearmanDiff {
	if len(a) != len(b) || len(a) != len(gold) {
		panic(fmt.Sprintf("eval: BootstrapSpearmanDiff lengths %d, %d, %d", len(a), len(b), len(gold)))
	}
	nan := math.NaN()
	res := SpearmanDiff{Diff: Spearman(a, gold) - Spearman(b, gold), Lo: nan, Hi: nan, P: nan}
	if math.IsNaN(res.Diff) {
		return res
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	n := len(a)
	ra, rb, rg := make([]float64, n), make([]float64, n), make([]float64, n)
	diffs := make([]float64, 0, rounds)
	for range rounds {
		for i := range n {
			j := rng.IntN(n)
			ra[i], rb[i], rg[i] = a[j], b[j], gold[j]
		}
		ranks := Ranks(rg) // the gold's ranks, once for both
		if d := correlationOfRanks(Ranks(ra), ranks) - correlationOfRanks(Ranks(rb), ranks); !math.IsNaN(d) {
			diffs = append(diffs, d)
		}
	}
	res.Rounds = len(diffs)
	if len(diffs) == 0 {
		res.Diff = nan
		return res
	}
	sort.Float64s(diffs)
	res.Lo, res.Hi, res.P = percentileSummary(diffs)
	return res
}

// percentileSummary returns the bounds of the central 95 % of the sorted
// values d (the same number of values left out below lo as above hi) and
// the two-sided share of them on the smaller side of 0, values at 0
// counting half on each side.
func percentileSummary(d []float64) (lo, hi, p float64) {
	k := int(0.025 * float64(len(d)))
	below := sort.SearchFloat64s(d, 0)                                          // values < 0
	above := len(d) - sort.Search(len(d), func(i int) bool { return d[i] > 0 }) // values > 0
	side := float64(min(below, above)) + float64(len(d)-below-above)/2
	return d[k], d[len(d)-1-k], math.Min(1, 2*side/float64(len(d)))
}
