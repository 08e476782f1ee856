//go:build !amd64 || purego

package simd

// hostCPU returns no model: the kernel choice uses only the sets the build
// and CPU features allow.
func hostCPU() cpuModel { return cpuModel{} }
