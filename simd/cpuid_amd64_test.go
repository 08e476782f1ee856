//go:build amd64 && !purego

package simd

import "testing"

func TestDisplayFamilyModel(t *testing.T) {
	for _, c := range []struct {
		eax           uint32
		family, model uint32
	}{
		{0x00a10f11, 25, 0x11}, // AMD EPYC 9004 (Zen 4)
		{0x00b00f21, 26, 0x02}, // AMD EPYC 9005 (Zen 5)
		{0x000806f8, 6, 0x8f},  // Intel Sapphire Rapids
		{0x00000f41, 15, 0x04}, // a family-15 part without extensions
	} {
		if f, m := displayFamily(c.eax), displayModel(c.eax); f != c.family || m != c.model {
			t.Errorf("eax %#x: family %d model %#x, want %d %#x", c.eax, f, m, c.family, c.model)
		}
	}
	c := hostCPU()
	if len(c.vendor) != 12 || c.family == 0 {
		t.Errorf("hostCPU() = %+v: want a 12-byte vendor and a family", c)
	}
}
