package eval

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

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
