package eval

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestRanksTies(t *testing.T) {
	got := Ranks([]float64{10, 20, 20, 5, 20})
	want := []float64{2, 4, 4, 1, 4}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Ranks = %v, want %v", got, want)
		}
	}
}

func TestSpearmanHandComputed(t *testing.T) {
	// ranks x = 1, 2.5, 2.5, 4; ranks y = 1, 3, 2, 4:
	// ρ = 4.5 / sqrt(4.5·5) = 0.9486832980505138 (scipy.stats.spearmanr agrees).
	got := Spearman([]float64{1, 2, 2, 3}, []float64{1, 3, 2, 4})
	if math.Abs(got-0.9486832980505138) > 1e-12 {
		t.Fatalf("Spearman = %v, want 0.948683298", got)
	}
	if got := Spearman([]float64{1, 2, 3}, []float64{30, 20, 10}); math.Abs(got+1) > 1e-12 {
		t.Fatalf("reversed Spearman = %v, want -1", got)
	}
	// Monotone transforms do not change it.
	if got := Spearman([]float64{1, 2, 3, 4}, []float64{1, 8, 27, 64}); math.Abs(got-1) > 1e-12 {
		t.Fatalf("monotone Spearman = %v, want 1", got)
	}
}

func TestSpearmanUndefined(t *testing.T) {
	if v := Spearman([]float64{1, 1, 1}, []float64{1, 2, 3}); !math.IsNaN(v) {
		t.Errorf("constant side: got %v, want NaN", v)
	}
	if v := Spearman([]float64{1}, []float64{1}); !math.IsNaN(v) {
		t.Errorf("one value: got %v, want NaN", v)
	}
}

func TestBinomialTest(t *testing.T) {
	// Values from scipy.stats.binomtest(k, n).pvalue.
	for _, c := range []struct {
		k, n int
		want float64
	}{
		{3, 10, 0.34375},
		{9, 10, 0.021484375},
		{0, 5, 0.0625},
		{5, 10, 1},
		{60, 100, 0.056887933640980805},
	} {
		if got := BinomialTest(c.k, c.n, 0.5); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("BinomialTest(%d, %d) = %v, want %v", c.k, c.n, got, c.want)
		}
	}
}

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

func TestMeanNaNZero(t *testing.T) {
	m, nan := MeanNaNZero([]float64{1, math.NaN(), 2})
	if m != 1 || nan != 1 {
		t.Fatalf("MeanNaNZero = %v, %d; want 1, 1", m, nan)
	}
}

func TestPairedWins(t *testing.T) {
	w, l := PairedWins([]float64{1, 2, math.NaN(), 0.5}, []float64{0, 3, 0, 0.5})
	if w != 1 || l != 1 {
		t.Fatalf("PairedWins = %d, %d; want 1, 1 (NaN as 0 ties with 0)", w, l)
	}
}
