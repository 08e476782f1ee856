package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// LogRegConfig configures logistic-regression training. The paper's appendix
// trains for 5 epochs with Adam at learning rate 0.01; the batch size is not
// given, 32 (Keras' default) is used.
type LogRegConfig struct {
	Epochs int
	Batch  int
	LR     float64
	Seed   uint64
}

// DefaultLogRegConfig returns the paper's setting: 5 epochs, Adam, lr 0.01, batches of 32.
func DefaultLogRegConfig() LogRegConfig {
	return LogRegConfig{Epochs: 5, Batch: 32, LR: 0.01, Seed: 1}
}

// LogReg is a binary logistic-regression classifier: P(y=1|x) = σ(w·x + b).
type LogReg struct {
	W []float64
	B float64
}

// TrainLogReg fits a logistic regression to rows x (all of one dimension)
// with labels y (each 0 or 1) by minibatch Adam on the mean cross-entropy.
func TrainLogReg(x [][]float32, y []float64, cfg LogRegConfig) (*LogReg, error) {
	if len(x) == 0 {
		return nil, fmt.Errorf("logistic regression: no training examples")
	}
	if len(x) != len(y) {
		return nil, fmt.Errorf("logistic regression: %d examples but %d labels", len(x), len(y))
	}
	if cfg.Epochs <= 0 || cfg.Batch <= 0 || !(cfg.LR > 0) {
		return nil, fmt.Errorf("logistic regression: epochs %d, batch %d and learning rate %g must be positive", cfg.Epochs, cfg.Batch, cfg.LR)
	}
	d := len(x[0])
	for i, row := range x {
		if len(row) != d {
			return nil, fmt.Errorf("logistic regression: example %d has dimension %d, example 0 has %d", i, len(row), d)
		}
		if y[i] != 0 && y[i] != 1 {
			return nil, fmt.Errorf("logistic regression: label %d is %g, want 0 or 1", i, y[i])
		}
	}
	const beta1, beta2, eps = 0.9, 0.999, 1e-7
	m := &LogReg{W: make([]float64, d)}
	// Adam moments; index d is the bias.
	g := make([]float64, d+1)
	m1 := make([]float64, d+1)
	m2 := make([]float64, d+1)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
	order := make([]int, len(x))
	for i := range order {
		order[i] = i
	}
	step := 0
	for epoch := 0; epoch < cfg.Epochs; epoch++ {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for start := 0; start < len(order); start += cfg.Batch {
			batch := order[start:min(start+cfg.Batch, len(order))]
			clear(g)
			for _, i := range batch {
				diff := m.Prob(x[i]) - y[i] // d(cross-entropy)/d(logit)
				for j, v := range x[i] {
					g[j] += diff * float64(v)
				}
				g[d] += diff
			}
			step++
			inv := 1 / float64(len(batch))
			c1 := 1 - math.Pow(beta1, float64(step))
			c2 := 1 - math.Pow(beta2, float64(step))
			for j := range g {
				gj := g[j] * inv
				m1[j] = beta1*m1[j] + (1-beta1)*gj
				m2[j] = beta2*m2[j] + (1-beta2)*gj*gj
				upd := cfg.LR * (m1[j] / c1) / (math.Sqrt(m2[j]/c2) + eps)
				if j < d {
					m.W[j] -= upd
				} else {
					m.B -= upd
				}
			}
		}
	}
	return m, nil
}

// Prob returns P(y=1|v) = σ(w·v + b).
func (m *LogReg) Prob(v []float32) float64 {
	z := m.B
	for j, x := range v {
		z += m.W[j] * float64(x)
	}
	return 1 / (1 + math.Exp(-z))
}
