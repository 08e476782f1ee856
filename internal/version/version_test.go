package version

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/internal/shareddata"
	"github.com/text2vec-am/text2vec-am/simd"
)

func TestFromBuildInfo(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	rev := strings.Repeat("ab", 20)
	for _, c := range []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"installed at a tag", debug.BuildInfo{Main: debug.Module{Path: Module, Version: "v0.10.0"}}, "v0.10.0"},
		{"checkout, stamped", debug.BuildInfo{Main: debug.Module{Path: Module, Version: "v0.10.1-0.20260101000000-abababababab+dirty"},
			Settings: vcs(rev, "true")}, "v0.10.1-0.20260101000000-abababababab+dirty"},
		{"checkout, clean", debug.BuildInfo{Main: debug.Module{Path: Module, Version: Devel}, Settings: vcs(rev, "false")},
			"(devel)-abababababab"},
		{"checkout, modified", debug.BuildInfo{Main: debug.Module{Path: Module, Version: Devel}, Settings: vcs(rev, "true")},
			"(devel)-abababababab+dirty"},
		{"no version control", debug.BuildInfo{Main: debug.Module{Path: Module}}, Devel},
		{"a dependency at a tag", debug.BuildInfo{Main: debug.Module{Path: "github.com/weaviate/weaviate", Version: "v1.39.0"},
			Deps: []*debug.Module{{Path: Module, Version: "v0.10.0"}}}, "v0.10.0"},
		{"a dependency replaced by a source tree", debug.BuildInfo{Main: debug.Module{Path: "github.com/weaviate/weaviate"},
			Deps:     []*debug.Module{{Path: Module, Version: "v0.0.0", Replace: &debug.Module{Path: "/src/text2vec-am"}}},
			Settings: vcs(rev, "false")}, Devel},
		{"not linked", debug.BuildInfo{Main: debug.Module{Path: "example.com/other", Version: "v1.0.0"}}, Devel},
	} {
		if got := fromBuildInfo(&c.bi); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestStringPrefersLinkerVersion checks that Version, once set, is what
// String and Get report.
func TestStringPrefersLinkerVersion(t *testing.T) {
	if Version != "" {
		t.Skipf("built with Version %q", Version)
	}
	if got := String(); got == "" {
		t.Fatal("String is empty")
	}
	Version = "v9.8.7"
	defer func() { Version = "" }()
	if got := Get(); got.Version != "v9.8.7" || got.GoVersion != runtime.Version() || got.OS != runtime.GOOS || got.Arch != runtime.GOARCH {
		t.Errorf("Get = %+v", got)
	}
}

// linkerFlag is the -ldflags argument of a release build (see the Dockerfile).
func linkerFlag(v string) string { return "-X " + Module + "/internal/version.Version=" + v }

// TestLinkerFlag builds a program with linkerFlag and checks that it reports
// the version given: the flag names the variable that String reads.
func TestLinkerFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	bin := filepath.Join(t.TempDir(), "printversion")
	build := exec.Command(goCmd, "build", "-ldflags", linkerFlag("v1.2.3-rc.1"), "-o", bin, "./testdata/printversion")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "v1.2.3-rc.1" {
		t.Errorf("the program reports %q, want v1.2.3-rc.1", got)
	}
}

func TestVersionCommand(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		var out, errb bytes.Buffer
		code := cli.Main(context.Background(), "text2vec-am", []cli.Command{Command()}, args, &out, &errb)
		want := "text2vec-am " + String() + "\ngo:   " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH +
			"\nsimd: " + simd.SetsString() + "\n"
		if code != 0 || out.String() != want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", args, code, out.String(), errb.String(), want)
		}
	}
	var out, errb bytes.Buffer
	if code := cli.Main(context.Background(), "text2vec-am", []cli.Command{Command()}, []string{"version", "x"}, &out, &errb); code != 2 ||
		!strings.Contains(errb.String(), "unexpected arguments") {
		t.Errorf("version x: exit %d, stderr %q", code, errb.String())
	}
}

// TestDockerfileSetsVersion checks that the image build sets the variable
// String reads: a misspelt -X path would silently leave it empty.
func TestDockerfileSetsVersion(t *testing.T) {
	df, err := os.ReadFile(filepath.Join(shareddata.RepoRoot(t), "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	want := linkerFlag("${VERSION}")
	if !strings.Contains(string(df), want) || !strings.Contains(string(df), "\nARG VERSION") {
		t.Errorf("the Dockerfile does not pass ARG VERSION as %q", want)
	}
}
