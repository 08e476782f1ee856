package simd

import (
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestSelectByEnv runs this test binary again with T2V_SIMD naming each
// kernel set available here, and checks that the set is the one in use and
// that Dot and Axpy call its kernels (TestDotDispatch, TestAxpyDispatch in
// the child).
func TestSelectByEnv(t *testing.T) {
	if want := os.Getenv("T2V_SIMD_EXPECT"); want != "" {
		if got := Implementation(); got != want {
			t.Fatalf("T2V_SIMD=%s: Implementation() = %q, want %q", os.Getenv(envSet), got, want)
		}
		return
	}
	if testing.Short() {
		t.Skip("starts a child process per kernel set")
	}
	for _, k := range allKernels() {
		cmd := exec.Command(os.Args[0], "-test.run=^(TestSelectByEnv|TestDotDispatch|TestAxpyDispatch)$", "-test.count=1")
		cmd.Env = append(os.Environ(), envSet+"="+k.name, "T2V_SIMD_EXPECT="+k.name)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s=%s: %v\n%s", envSet, k.name, err, out)
		}
	}
}

func TestChooseKernels(t *testing.T) {
	ks := allKernels()
	host := hostCPU()
	best, _ := compose(ks, host)
	if got, _, _ := chooseKernels("", host); got.name != best.name {
		t.Errorf(`chooseKernels("") = %q, want the composed %q`, got.name, best.name)
	}
	for _, k := range ks {
		got, sets, _ := chooseKernels(k.name, host)
		if got.name != k.name {
			t.Errorf("chooseKernels(%q) = %q", k.name, got.name)
		}
		for i, s := range sets {
			if s != k.name {
				t.Errorf("chooseKernels(%q) runs %s from %s", k.name, kernelSlots[i].name, s)
			}
		}
	}
	if got, _, u := chooseKernels("no-such-set", host); got.name != best.name || u.Want != "no-such-set" ||
		u.Using != best.name || !strings.Contains(u.Available, "go") {
		t.Errorf("an unknown set gives %q (unavailable %+v), want the composed %q", got.name, u, best.name)
	}
	if _, _, u := chooseKernels("go", host); u != (Unavailable{}) {
		t.Errorf(`chooseKernels("go") reports %+v unavailable`, u)
	}
	if got, _, _ := chooseKernels(os.Getenv(envSet), host); Implementation() != got.name {
		t.Errorf("Implementation() = %q, not the set %s=%q selects", Implementation(), envSet, os.Getenv(envSet))
	}
}

// TestDotDispatch checks that Dot runs the kernel of the set in use (impl),
// which Dot reaches through dotEntry rather than through impl: its result
// must be bit-identical to impl's dot at every length up to 300. The kernel
// sets sum in different orders, so a jump to another set shows as different
// bits at some length (checked here, so that the test can fail).
func TestDotDispatch(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	a, b := randVec(r, 300), randVec(r, 300)
	differs := map[string]bool{}
	for n := 0; n <= 300; n++ {
		x, y := a[:n], b[:n]
		want := dotOf(impl, x, y)
		if got := Dot(x, y); math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("%s, n=%d: Dot = %g, the set's kernel gives %g", impl.name, n, got, want)
		}
		for _, k := range allKernels() {
			if got := dotOf(k, x, y); math.Float32bits(got) != math.Float32bits(want) {
				differs[k.name] = true
			}
		}
	}
	for _, k := range allKernels() {
		if k.name != implSets[0] && !differs[k.name] {
			t.Errorf("sets %s and %s agree bit for bit at every length: the test cannot tell them apart",
				k.name, implSets[0])
		}
	}
}

// TestAxpyDispatch checks that Axpy, which reaches its kernel through
// axpyEntry rather than through impl, gives bit for bit what impl's axpy
// gives, at every length up to 300 and at every float offset of y within a
// 64-byte line (axpyEntry picks the AVX2 kernel for the AVX-512 set on
// short unaligned vectors; both use FMA, so they agree bit for bit, while
// the go set rounds each product first on amd64 and would show).
func TestAxpyDispatch(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 54))
	x, y0 := randVec(r, 300+16), randVec(r, 300+16)
	want, got := make([]float32, len(y0)), make([]float32, len(y0))
	for n := 0; n <= 300; n++ {
		for off := range 16 {
			copy(want, y0)
			copy(got, y0)
			impl.axpy(0.37, x[:n], want[off:off+n])
			Axpy(0.37, x[:n], got[off:off+n])
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s, n=%d offset %d: element %d is %g, the set's kernel gives %g", impl.name, n, off, i, got[i], want[i])
				}
			}
		}
	}
}

// Implementation returns the name of the kernel set in use: "avx512",
// "avx2", "neon" or "go", or names joined by "+" when kernels of several
// sets run (Sets tells which).
func Implementation() string { return impl.name }
