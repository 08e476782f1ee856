//go:build amd64 && !purego

package simd

import "golang.org/x/sys/cpu"

// cpuid executes CPUID with the leaf in EAX and the subleaf in ECX
// (cpuid_amd64.s).
//
//go:noescape
func cpuid(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)

// hostCPU returns the vendor, display family and display model of this CPU,
// and whether it reports AMX tiles.
func hostCPU() cpuModel {
	_, b, c, d := cpuid(0, 0)
	vendor := string([]byte{
		byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24),
		byte(d), byte(d >> 8), byte(d >> 16), byte(d >> 24),
		byte(c), byte(c >> 8), byte(c >> 16), byte(c >> 24),
	})
	a, _, _, _ := cpuid(1, 0)
	return cpuModel{vendor: vendor, family: displayFamily(a), model: displayModel(a), amx: cpu.X86.HasAMXTile}
}

// displayFamily returns the family that CPUID leaf 1's EAX encodes: the
// base family, plus the extended family when the base is 15.
func displayFamily(eax uint32) uint32 {
	f := eax >> 8 & 0xf
	if f == 0xf {
		f += eax >> 20 & 0xff
	}
	return f
}

// displayModel returns the model that CPUID leaf 1's EAX encodes: the base
// model, with the extended model as its high nibble for families 6 and 15.
func displayModel(eax uint32) uint32 {
	m := eax >> 4 & 0xf
	if f := eax >> 8 & 0xf; f == 6 || f == 0xf {
		m |= (eax >> 16 & 0xf) << 4
	}
	return m
}
