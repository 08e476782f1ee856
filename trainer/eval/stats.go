package eval

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
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
	rx, ry := Ranks(x), Ranks(y)
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

// NormalizeRows scales each row of the rows×d matrix x (row-major) to unit
// length; zero rows stay zero.
func NormalizeRows(x []float64, d int) {
	for i := 0; i+d <= len(x); i += d {
		row := x[i : i+d]
		var n float64
		for _, v := range row {
			n += v * v
		}
		if n == 0 {
			continue
		}
		inv := 1 / math.Sqrt(n)
		for j := range row {
			row[j] *= inv
		}
	}
}

// CenterColumns subtracts the column means from the rows×d matrix x (row-major).
func CenterColumns(x []float64, d int) {
	rows := len(x) / d
	if rows == 0 {
		return
	}
	mean := make([]float64, d)
	for i := 0; i < rows; i++ {
		for j, v := range x[i*d : (i+1)*d] {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(rows)
	}
	for i := 0; i < rows; i++ {
		row := x[i*d : (i+1)*d]
		for j := range row {
			row[j] -= mean[j]
		}
	}
}

// VecMapNormalize applies VecMap's "unit center unit" normalization in place
// to the rows×d matrix x: unit length, mean centering, unit length again.
func VecMapNormalize(x []float64, d int) {
	NormalizeRows(x, d)
	CenterColumns(x, d)
	NormalizeRows(x, d)
}

// Procrustes returns the d×d orthogonal matrix W minimizing ‖X·W − Z‖ (the
// orthogonal Procrustes problem; VecMap's supervised mode adds whitening,
// re-weighting and de-whitening around it, see VecMapSupervised):
// W = U·Vᵀ where U·Σ·Vᵀ is the SVD of Xᵀ·Z. x and z are n×d row-major
// matrices whose row i is the same dictionary entry in both spaces.
func Procrustes(x, z []float64, n, d int) (*mat.Dense, error) {
	if n == 0 || d == 0 {
		return nil, fmt.Errorf("procrustes: empty dictionary (%d rows, dimension %d)", n, d)
	}
	if len(x) != n*d || len(z) != n*d {
		return nil, fmt.Errorf("procrustes: matrices have %d and %d values, want %d×%d", len(x), len(z), n, d)
	}
	X := mat.NewDense(n, d, x)
	Z := mat.NewDense(n, d, z)
	var m mat.Dense
	m.Mul(X.T(), Z)
	var svd mat.SVD
	if !svd.Factorize(&m, mat.SVDFull) {
		return nil, fmt.Errorf("procrustes: SVD of the %d×%d cross-covariance did not converge", d, d)
	}
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	w := mat.NewDense(d, d, nil)
	w.Mul(&u, v.T())
	return w, nil
}

// ApplyMap returns the rows×d matrix x (row-major) multiplied by the d×d matrix w.
func ApplyMap(x []float64, d int, w *mat.Dense) []float64 {
	rows := len(x) / d
	out := make([]float64, rows*d)
	if rows == 0 {
		return out
	}
	dst := mat.NewDense(rows, d, out)
	dst.Mul(mat.NewDense(rows, d, x), w)
	return out
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
