package alacarte

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestFitRecoversLinearMap: pairs v = A·u + small noise give back A.
func TestFitRecoversLinearMap(t *testing.T) {
	const d, n = 6, 400
	rng := rand.New(rand.NewPCG(1, 2))
	a := make([][]float64, d)
	for i := range a {
		a[i] = make([]float64, d)
		for j := range a[i] {
			a[i][j] = rng.NormFloat64()
		}
	}
	targets, contexts := make([][]float32, n), make([][]float32, n)
	for k := range n {
		u, v := make([]float32, d), make([]float32, d)
		for j := range u {
			u[j] = float32(rng.NormFloat64())
		}
		for i := range v {
			s := 1e-4 * rng.NormFloat64()
			for j := range u {
				s += a[i][j] * float64(u[j])
			}
			v[i] = float32(s)
		}
		targets[k], contexts[k] = v, u
	}
	tr, err := Fit(targets, contexts, 1e-6)
	if err != nil {
		t.Fatal(err)
	}
	for i := range d {
		for j := range d {
			if diff := math.Abs(tr.At(i, j) - a[i][j]); diff > 1e-3 {
				t.Errorf("A[%d][%d] = %v, want %v", i, j, tr.At(i, j), a[i][j])
			}
		}
	}
	got, want := tr.Apply(contexts[0]), targets[0]
	for i := range got {
		if math.Abs(float64(got[i]-want[i])) > 1e-2 {
			t.Errorf("Apply(u0)[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}

// TestFitRidge: context vectors that span one dimension only need the ridge.
func TestFitRidge(t *testing.T) {
	contexts := [][]float32{{1, 0}, {2, 0}, {3, 0}}
	targets := [][]float32{{2, 1}, {4, 2}, {6, 3}}
	if _, err := Fit(targets, contexts, 0); err == nil {
		t.Error("rank-deficient system without a ridge: no error")
	}
	tr, err := Fit(targets, contexts, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	if v := tr.Apply([]float32{1, 0}); math.Abs(float64(v[0])-2) > 1e-3 || math.Abs(float64(v[1])-1) > 1e-3 {
		t.Errorf("Apply(1, 0) = %v, want about (2, 1)", v)
	}
}

func TestFitErrors(t *testing.T) {
	one := [][]float32{{1, 2}}
	for name, c := range map[string]struct {
		targets, contexts [][]float32
		ridge             float64
	}{
		"counts":    {one, [][]float32{{1, 2}, {3, 4}}, 0.1},
		"length":    {one, [][]float32{{1, 2, 3}}, 0.1},
		"nan":       {[][]float32{{float32(math.NaN()), 1}}, one, 0.1},
		"inf":       {one, [][]float32{{float32(math.Inf(1)), 1}}, 0.1},
		"ridge":     {one, one, -1},
		"ridge nan": {one, one, math.NaN()},
		"empty dim": {[][]float32{{}}, [][]float32{{}}, 0.1},
	} {
		if _, err := Fit(c.targets, c.contexts, c.ridge); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := Fit(nil, nil, 0.1); !errors.Is(err, ErrNoPairs) {
		t.Errorf("no pairs: %v, want ErrNoPairs", err)
	}
}

// At returns A[i][j].
func (t *Transform) At(i, j int) float64 { return t.a.At(i, j) }

// TestRowMajor: A·u computed from RowMajor's rows is Apply(u).
func TestRowMajor(t *testing.T) {
	targets := [][]float32{{1, 2}, {3, -1}, {0, 5}, {2, 2}}
	contexts := [][]float32{{1, 0}, {0, 1}, {1, 1}, {2, -1}}
	tr, err := Fit(targets, contexts, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	a := tr.RowMajor()
	for _, u := range [][]float32{{1, 0}, {0, 1}, {0.5, -2}} {
		want := tr.Apply(u)
		for i := range 2 {
			if got := a[2*i]*u[0] + a[2*i+1]*u[1]; math.Abs(float64(got-want[i])) > 1e-5 {
				t.Errorf("u %v: row %d gives %v, Apply %v", u, i, got, want[i])
			}
		}
	}
}
