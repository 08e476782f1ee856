package eval

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestVecMapNormalize(t *testing.T) {
	x := []float64{3, 4, 1, 0, 0, 2}
	VecMapNormalize(x, 2)
	var mean [2]float64
	for i := 0; i < 3; i++ {
		n := math.Hypot(x[2*i], x[2*i+1])
		if math.Abs(n-1) > 1e-12 {
			t.Fatalf("row %d has norm %v", i, n)
		}
		mean[0] += x[2*i]
		mean[1] += x[2*i+1]
	}
	// Rows are re-normalized after centering, so the mean is small but not zero;
	// centering must at least have moved it well below the unit-norm mean.
	if math.Hypot(mean[0], mean[1])/3 > 0.5 {
		t.Errorf("columns not centered: mean %v", mean)
	}
}

func TestProcrustesRecoversRotation(t *testing.T) {
	const n, d = 50, 6
	rng := rand.New(rand.NewPCG(1, 2))
	// A random orthogonal matrix: the Q of a QR factorization.
	g := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	x := make([]float64, n*d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	var z mat.Dense
	z.Mul(mat.NewDense(n, d, x), &q)
	w, err := Procrustes(x, z.RawMatrix().Data, n, d)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(w, &q, 1e-9) {
		t.Fatalf("Procrustes did not recover the rotation:\n%v\nwant\n%v", mat.Formatted(w), mat.Formatted(&q))
	}
	mapped := ApplyMap(x, d, w)
	for i, v := range z.RawMatrix().Data {
		if math.Abs(mapped[i]-v) > 1e-9 {
			t.Fatalf("ApplyMap[%d] = %v, want %v", i, mapped[i], v)
		}
	}
	if _, err := Procrustes(nil, nil, 0, d); err == nil {
		t.Error("empty dictionary: want an error")
	}
}
