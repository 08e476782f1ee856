package amtrain

import (
	"fmt"
	"math"
)

// ContextDraw is how many contexts a training instance samples.
type ContextDraw uint8

const (
	// DrawUniform draws k uniformly from 1…MaxContexts (the paper).
	DrawUniform ContextDraw = iota
	// DrawLogUniform draws k = ⌊e^u⌋ with u uniform in [0, ln(MaxContexts+1)):
	// every doubling of k is about equally likely, so 1–3 contexts, the
	// rare-word case, get as many instances as 16–63 (P(k = 1) = ln 2 / ln 65
	// ≈ 0.17 with 64 contexts, against 1/64 uniformly).
	DrawLogUniform
)

var contextDrawNames = [...]string{"uniform", "log-uniform"}

// String returns the name ParseContextDraw accepts.
func (c ContextDraw) String() string {
	if int(c) < len(contextDrawNames) {
		return contextDrawNames[c]
	}
	return fmt.Sprintf("ContextDraw(%d)", uint8(c))
}

// ParseContextDraw parses "uniform" or "log-uniform".
func ParseContextDraw(s string) (ContextDraw, error) {
	for i, n := range contextDrawNames {
		if s == n {
			return ContextDraw(i), nil
		}
	}
	return 0, fmt.Errorf("unknown context draw %q (want uniform or log-uniform)", s)
}

// draw returns the number of contexts of one instance, 1…maxContexts.
func (c ContextDraw) draw(r *rng, maxContexts int) int {
	if c != DrawLogUniform {
		return 1 + r.intn(maxContexts)
	}
	u := float64(r.next()>>11) / (1 << 53)
	k := int(math.Exp(u * math.Log(float64(maxContexts)+1)))
	return max(1, min(k, maxContexts))
}
