package stats

import (
	"math"
	"math/rand/v2"
	"testing"
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

func TestBootstrapSpearmanDiff(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 300
	gold, close, far := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		gold[i] = rng.NormFloat64()
		close[i] = gold[i] + 0.3*rng.NormFloat64()
		far[i] = gold[i] + 3*rng.NormFloat64()
	}
	d := BootstrapSpearmanDiff(close, far, gold, 1000, 1)
	if want := Spearman(close, gold) - Spearman(far, gold); d.Diff != want {
		t.Fatalf("Diff = %v, want ρ(close) − ρ(far) = %v", d.Diff, want)
	}
	if d.Rounds != 1000 || !(d.Lo > 0 && d.Lo < d.Diff && d.Diff < d.Hi) || d.P > 0.01 {
		t.Fatalf("close against far: %+v, want 1000 rounds, an interval above 0 around Diff, p < 0.01", d)
	}
	r := BootstrapSpearmanDiff(far, close, gold, 1000, 1)
	if r.Diff != -d.Diff || r.Lo != -d.Hi || r.Hi != -d.Lo || r.P != d.P {
		t.Fatalf("swapped: %+v, want the mirror of %+v", r, d)
	}
	// Two scorings as good as each other: no difference the bootstrap
	// can tell, and the interval holds 0 exactly when p is 0.05 or more.
	twin := make([]float64, n)
	for i := range n {
		twin[i] = gold[i] + 0.3*rng.NormFloat64()
	}
	if e := BootstrapSpearmanDiff(close, twin, gold, 2000, 1); e.P < 0.05 || e.Lo > 0 || e.Hi < 0 {
		t.Fatalf("equally close scorings: %+v, want p ≥ 0.05 and 0 inside the interval", e)
	}
	if again := BootstrapSpearmanDiff(close, far, gold, 1000, 1); again != d {
		t.Fatalf("same seed: %+v, then %+v", d, again)
	}
	if same := BootstrapSpearmanDiff(close, close, gold, 100, 1); same.Diff != 0 || same.Lo != 0 || same.Hi != 0 || same.P != 1 {
		t.Fatalf("a scoring against itself: %+v, want 0 [0, 0], p 1", same)
	}
	// Four items: many resamples hold one distinct value of a and are
	// skipped.
	few := BootstrapSpearmanDiff([]float64{0, 0, 0, 1}, []float64{1, 2, 3, 4}, []float64{1, 2, 3, 4}, 500, 1)
	if few.Rounds == 0 || few.Rounds >= 500 {
		t.Fatalf("four items, one of them apart: %d rounds of 500 defined, want some skipped", few.Rounds)
	}
	flat := make([]float64, n)
	if u := BootstrapSpearmanDiff(flat, far, gold, 100, 1); !math.IsNaN(u.Diff) || !math.IsNaN(u.P) || u.Rounds != 0 {
		t.Fatalf("a constant scoring: %+v, want NaN and no round", u)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("lengths that differ: no panic")
		}
	}()
	BootstrapSpearmanDiff(close, far[:n-1], gold, 10, 1)
}

func TestPercentileSummary(t *testing.T) {
	for _, c := range []struct {
		d         []float64
		lo, hi, p float64
	}{
		// 2·(1 below + ½ at 0)/4.
		{[]float64{-1, 0, 1, 2}, -1, 2, 0.75},
		{[]float64{1, 2, 3, 4}, 1, 4, 0},
		{[]float64{-4, -3, -2, 1}, -4, 1, 0.5},
		{[]float64{0, 0}, 0, 0, 1},
	} {
		lo, hi, p := percentileSummary(c.d)
		if lo != c.lo || hi != c.hi || p != c.p {
			t.Errorf("percentileSummary(%v) = %v, %v, %v; want %v, %v, %v", c.d, lo, hi, p, c.lo, c.hi, c.p)
		}
	}
	// 200 values 1..200: 5 left out below and 5 above.
	d := make([]float64, 200)
	for i := range d {
		d[i] = float64(i + 1)
	}
	if lo, hi, _ := percentileSummary(d); lo != 6 || hi != 195 {
		t.Errorf("1..200: interval [%v, %v], want [6, 195]", lo, hi)
	}
}
