package buildweaviate

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/cli"
)

func TestInsertRegisterCall(t *testing.T) {
	src := "func registerModules(appState *state.State) error {\n\tfor x {\n\t}\n\n\t" + registerAnchor + "\n\t\tappState.Modules.Register(modt2vbigram.New())\n\t}\n}\n"
	got, err := insertRegisterCall(src)
	if err != nil {
		t.Fatal(err)
	}
	want := "func registerModules(appState *state.State) error {\n\tfor x {\n\t}\n\n\t" + registerCall + "\n\n\t" + registerAnchor + "\n\t\tappState.Modules.Register(modt2vbigram.New())\n\t}\n}\n"
	if got != want {
		t.Errorf("patched source:\n%s\nwant:\n%s", got, want)
	}
	if _, err := insertRegisterCall("package rest\n"); err == nil || !strings.Contains(err.Error(), "found 0") {
		t.Errorf("source without the anchor: error %v", err)
	}
	if _, err := insertRegisterCall(src + src); err == nil || !strings.Contains(err.Error(), "found 2") {
		t.Errorf("source with two anchors: error %v", err)
	}
}

// TestPatchRealSource patches Weaviate's own configure_api.go from the module
// cache (skipped when it is not there) and checks the result compiles as Go
// syntax with the call inside registerModules.
func TestPatchRealSource(t *testing.T) {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skipf("go env GOMODCACHE: %v", err)
	}
	path := filepath.Join(strings.TrimSpace(string(out)), "github.com/weaviate/weaviate@"+WeaviateVersion, configureFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("Weaviate %s source not in the module cache: %v", WeaviateVersion, err)
	}
	patched, err := insertRegisterCall(string(data))
	if err != nil {
		t.Fatal(err)
	}
	fn := patched[strings.Index(patched, "func registerModules("):]
	fn = fn[:strings.Index(fn, "\n}\n")]
	call := strings.Index(fn, registerCall)
	if call < 0 || call < strings.Index(fn, "enabledModules[strings.TrimSpace(module)] = true") {
		t.Errorf("the call is not in registerModules after enabledModules is filled")
	}
	if strings.Count(patched, "\n") != strings.Count(string(data), "\n")+2 {
		t.Errorf("patch added %d lines, want 1 and a blank one", strings.Count(patched, "\n")-strings.Count(string(data), "\n"))
	}
}

func TestMergeSums(t *testing.T) {
	a := []byte("x v1 h1\ny v2 h2\n")
	b := []byte("y v2 h2\nz v3 h3\n\n")
	if got := string(mergeSums(a, b)); got != "x v1 h1\ny v2 h2\nz v3 h3\n" {
		t.Errorf("merged go.sum %q", got)
	}
}

func TestBuildRefusesOtherVersionsAndMissingOut(t *testing.T) {
	err := Build(context.Background(), Options{Out: "x", WeaviateVersion: "v1.30.0"})
	if err == nil || !strings.Contains(err.Error(), "v1.30.0") || !strings.Contains(err.Error(), WeaviateVersion) {
		t.Errorf("other version: error %v", err)
	}
	if err := Build(context.Background(), Options{}); err == nil || !strings.Contains(err.Error(), "--out") {
		t.Errorf("no output: error %v", err)
	}
	var stderr bytes.Buffer
	cmd := Commands()[0]
	err = cmd.Run(context.Background(), cli.Env{Args: []string{"--out", "x", "--weaviate-version", "v1.38.2"}, Stdout: &stderr, Stderr: &stderr})
	if err == nil || !strings.Contains(err.Error(), "v1.38.2") {
		t.Errorf("command with another version: error %v", err)
	}
	err = cmd.Run(context.Background(), cli.Env{Args: nil, Stdout: &stderr, Stderr: &stderr})
	if err == nil || !strings.Contains(err.Error(), "--out") {
		t.Errorf("command without --out: error %v", err)
	}
}

func TestPrepareWorkDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "precious.txt"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := prepareWorkDir(dir); err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Errorf("foreign non-empty directory: error %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "precious.txt")); err != nil {
		t.Errorf("foreign file was touched: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, markerFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := prepareWorkDir(dir); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("our old work directory was not cleared: %d entries", len(entries))
	}
	fresh := filepath.Join(t.TempDir(), "a", "b")
	if err := prepareWorkDir(fresh); err != nil {
		t.Fatal(err)
	}
}

func TestFindRepo(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := findRepo(dir); err == nil || !strings.Contains(err.Error(), OurModule) {
		t.Errorf("foreign module: error %v", err)
	}
	root, err := findRepo("")
	if err != nil {
		t.Fatal(err)
	}
	if err := checkOurModule(root); err != nil {
		t.Error(err)
	}
}
