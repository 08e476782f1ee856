//go:build !(amd64 || arm64) || purego

package simd

// directDot returns no variants: this build has no assembly.
func directDot(x, y []float32) []variant { return nil }
