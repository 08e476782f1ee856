// Package alacarte fits and applies the A La Carte transform (Khodak et al.
// 2018): a linear map A that takes the additive context vector u_w of a word
// (the mean of the vectors of the words around its occurrences) to its
// embedding v_w. A is learnt by least squares on frequent words, for which
// both are known, and then gives a rare word the vector A·u from its few
// contexts.
package alacarte

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ErrNoPairs is returned by Fit without any (target, context) pair.
var ErrNoPairs = errors.New("alacarte: no pairs to fit")

// Transform is a fitted d×d map A: Apply(u) = A·u.
type Transform struct {
	a *mat.Dense
}

// Dim is the dimension of the vectors A maps.
func (t *Transform) Dim() int {
	r, _ := t.a.Dims()
	return r
}

// Fit returns the A minimizing Σ‖A·contexts[i] − targets[i]‖² + ridge·‖A‖²_F
// (ridge ≥ 0; a small one keeps the system solvable when the context vectors
// do not span every dimension). targets and contexts are pairs of vectors of
// one length d. It fails without pairs (ErrNoPairs), on vectors of different
// lengths, on a value that is not finite, on a negative ridge and when the
// system is singular.
func Fit(targets, contexts [][]float32, ridge float64) (*Transform, error) {
	if len(targets) != len(contexts) {
		return nil, fmt.Errorf("alacarte: %d targets but %d context vectors", len(targets), len(contexts))
	}
	if len(targets) == 0 {
		return nil, ErrNoPairs
	}
	if !(ridge >= 0) || math.IsInf(ridge, 0) {
		return nil, fmt.Errorf("alacarte: ridge %v, want a finite value ≥ 0", ridge)
	}
	d := len(targets[0])
	if d == 0 {
		return nil, errors.New("alacarte: vectors of dimension 0")
	}
	u, err := matrixOf(contexts, d, "context vector")
	if err != nil {
		return nil, err
	}
	v, err := matrixOf(targets, d, "target")
	if err != nil {
		return nil, err
	}
	// Normal equations: (UᵀU + ridge·I)·Aᵀ = UᵀV.
	var g, rhs mat.Dense
	g.Mul(u.T(), u)
	for i := range d {
		g.Set(i, i, g.At(i, i)+ridge)
	}
	rhs.Mul(u.T(), v)
	var at mat.Dense
	if err := at.Solve(&g, &rhs); err != nil {
		return nil, fmt.Errorf("alacarte: solving for A over %d pairs (add a ridge?): %w", len(targets), err)
	}
	a := mat.DenseCopyOf(at.T())
	return &Transform{a: a}, nil
}

// matrixOf stacks rows (each of length d, all finite) into an n×d matrix;
// what names the rows in errors.
func matrixOf(rows [][]float32, d int, what string) (*mat.Dense, error) {
	m := mat.NewDense(len(rows), d, nil)
	for i, r := range rows {
		if len(r) != d {
			return nil, fmt.Errorf("alacarte: %s %d has length %d, want %d", what, i, len(r), d)
		}
		for j, x := range r {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("alacarte: %s %d holds %v at %d", what, i, x, j)
			}
			m.Set(i, j, float64(x))
		}
	}
	return m, nil
}

// RowMajor returns A as Dim × Dim float32 values, row by row (the layout
// of model.Params.A).
func (t *Transform) RowMajor() []float32 {
	d := t.Dim()
	out := make([]float32, d*d)
	for i := range d {
		for j := range d {
			out[i*d+j] = float32(t.a.At(i, j))
		}
	}
	return out
}

// Apply returns A·u, the A La Carte vector of a word whose additive context
// vector is u. It panics when u's length is not t.Dim().
func (t *Transform) Apply(u []float32) []float32 {
	d := t.Dim()
	if len(u) != d {
		panic(fmt.Sprintf("alacarte.Apply: vector of length %d, the transform maps length %d", len(u), d))
	}
	out := make([]float32, d)
	for i := range d {
		var s float64
		for j, x := range u {
			s += t.a.At(i, j) * float64(x)
		}
		out[i] = float32(s)
	}
	return out
}
