package atomicfile

import (
	"os"
	"os/exec"
	"testing"
)

// TestBuildsOnOtherSystems: the package builds on systems with advisory
// locks other than Linux's, on one without flock and on Windows.
func TestBuildsOnOtherSystems(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the standard library for other systems")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("no go command: %v", err)
	}
	for _, target := range [][2]string{{"solaris", "amd64"}, {"aix", "ppc64"}, {"windows", "amd64"}, {"darwin", "arm64"}} {
		cmd := exec.Command("go", "vet", ".")
		cmd.Env = append(os.Environ(), "GOOS="+target[0], "GOARCH="+target[1], "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("GOOS=%s GOARCH=%s go vet: %v\n%s", target[0], target[1], err, out)
		}
	}
}
