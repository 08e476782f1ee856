package atomicfile

import (
	"os"
	"os/exec"
	"testing"
)

// TestBuildsOnOtherSystems: the package builds on a system whose advisory
// locks are not Linux's (Solaris) and on one without flock (AIX); Windows
// and macOS are built by CI's other-platforms step.
func TestBuildsOnOtherSystems(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the standard library for other systems")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("no go command: %v", err)
	}
	for _, target := range [][2]string{{"solaris", "amd64"}, {"aix", "ppc64"}} {
		cmd := exec.Command("go", "vet", ".")
		cmd.Env = append(os.Environ(), "GOOS="+target[0], "GOARCH="+target[1], "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("GOOS=%s GOARCH=%s go vet: %v\n%s", target[0], target[1], err, out)
		}
	}
}
