package eval

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestLogRegLearnsSeparableData(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var x [][]float32
	var y []float64
	for i := 0; i < 2000; i++ {
		v := []float32{float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())}
		label := 0.0
		if 2*v[0]-v[1] > 0.3 {
			label = 1
		}
		x = append(x, v)
		y = append(y, label)
	}
	m, err := TrainLogReg(x, y, DefaultLogRegConfig())
	if err != nil {
		t.Fatal(err)
	}
	correct := 0
	for i := range x {
		if (m.Prob(x[i]) > 0.5) == (y[i] == 1) {
			correct++
		}
	}
	if acc := float64(correct) / float64(len(x)); acc < 0.95 {
		t.Fatalf("training accuracy %.3f, want ≥ 0.95 (w = %v, b = %v)", acc, m.W, m.B)
	}
	if m.W[0] <= 0 || m.W[1] >= 0 || math.Abs(m.W[2]) > math.Abs(m.W[0])/3 {
		t.Fatalf("weights %v do not follow the true boundary 2x₀ − x₁", m.W)
	}
	if _, err := TrainLogReg(x[:2], []float64{0, 2}, DefaultLogRegConfig()); err == nil {
		t.Error("label 2: want an error")
	}
}
