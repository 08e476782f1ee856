package model

import "math"

// Cosine returns the cosine similarity of a and b, accumulated in float64:
// 0 when either is the zero vector, when they are empty or when their lengths
// differ (a missing vector is not similar to anything).
func Cosine[T float32 | float64](a, b []T) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
