package simd

import (
	"os"
	"os/exec"
	"testing"
)

// TestSelectByEnv runs this test binary again with T2V_SIMD naming each
// kernel set available here, and checks that the set is the one in use.
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
		cmd := exec.Command(os.Args[0], "-test.run=^TestSelectByEnv$", "-test.count=1")
		cmd.Env = append(os.Environ(), envSet+"="+k.name, "T2V_SIMD_EXPECT="+k.name)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s=%s: %v\n%s", envSet, k.name, err, out)
		}
	}
}

func TestChooseKernels(t *testing.T) {
	ks := allKernels()
	best := ks[len(ks)-1].name
	if got := chooseKernels("").name; got != best {
		t.Errorf(`chooseKernels("") = %q, want the fastest %q`, got, best)
	}
	for _, k := range ks {
		if got := chooseKernels(k.name).name; got != k.name {
			t.Errorf("chooseKernels(%q) = %q", k.name, got)
		}
	}
	if got := chooseKernels("no-such-set").name; got != best {
		t.Errorf("an unknown set gives %q, want the fastest %q", got, best)
	}
	if Implementation() != chooseKernels(os.Getenv(envSet)).name {
		t.Errorf("Implementation() = %q, not the set %s=%q selects", Implementation(), envSet, os.Getenv(envSet))
	}
}
