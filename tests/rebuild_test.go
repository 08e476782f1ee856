//go:build unix

package e2e

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRebuildStock: debian-dev imported through a stock Weaviate with
// teaching on, then the memory is lost: "text2vec-am memory rebuild"
// recomputes it from the collection's objects, byte for byte the memory the
// import left (memory export).
func TestRebuildStock(t *testing.T) {
	s := startStock(t, "DocsRebuild")
	r, tmp, memDir, bin, a, w, docs := s.r, s.tmp, s.memDir, s.bin, s.a, s.w, s.docs
	importAll(t, docs, r)
	a.proc.stop(t)
	imported := runCommand(t, bin, "memory", "export", "--memory-dir", memDir)

	rebuilt := filepath.Join(tmp, "rebuilt")
	args := []string{"memory", "rebuild", "--weaviate", w.url(""), "--class", docs.class, "--memory-dir", rebuilt}
	if r.modelPath != "" {
		args = append(args, "--model", r.modelPath)
	}
	start := time.Now()
	out := runCommand(t, bin, args...)
	el := time.Since(start)
	t.Logf("memory rebuild in %v, %.0f objects/s: %s", el.Round(time.Millisecond), float64(len(r.docs))/el.Seconds(), out)
	if !strings.Contains(out, "refresh --class "+docs.class) {
		t.Errorf("memory rebuild does not say to run refresh:\n%s", out)
	}
	if got := runCommand(t, bin, "memory", "export", "--memory-dir", rebuilt); got != imported {
		t.Fatalf("the rebuilt memory differs from the one the import left (%d and %d bytes of export)", len(got), len(imported))
	}
	if again := runCommand(t, bin, args...); !strings.Contains(again, "0 passages newly counted") {
		t.Errorf("a second rebuild counted passages again:\n%s", again)
	}
	if got := runCommand(t, bin, "memory", "export", "--memory-dir", rebuilt); got != imported {
		t.Fatal("a second rebuild changed the memory")
	}
}

// runCommand runs the text2vec-am binary and returns its standard output.
func runCommand(t testing.TB, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("text2vec-am %s: %v\n%s", strings.Join(args, " "), err, tailString(errb.String(), 3000))
	}
	return out.String()
}

// stockPath is path (A) started for a test: the adapter teaching the memory
// in memDir, a stock Weaviate calling it, and an empty collection.
type stockPath struct {
	r           *reference
	tmp, memDir string
	bin         string
	a           *adapterServer
	w           *weaviateServer
	docs        collection
}

// startStock starts path (A) with the collection class (vectorizeClassName false).
func startStock(t *testing.T, class string) stockPath {
	e := requireE2E(t)
	s := stockPath{r: loadReference(t, e), tmp: t.TempDir(), bin: text2vecAM(t, e.repo)}
	s.memDir = filepath.Join(s.tmp, "memory")
	s.a = startAdapter(t, s.bin, filepath.Join(s.tmp, "adapter.log"), freePorts(t, 1)[0], adapterArgs(s.r, s.memDir, true))
	s.w = startWeaviate(t, stockServer(t), filepath.Join(s.tmp, "data"), filepath.Join(s.tmp, "weaviate.log"), newWeaviatePorts(t), []string{
		"ENABLE_MODULES=text2vec-transformers",
		"TRANSFORMERS_INFERENCE_API=" + s.a.url(""),
	})
	s.docs = collection{w: s.w, c: newClient(t, s.w), class: class}
	createCollection(t, s.w, transformersCollection(class, map[string]any{"vectorizeClassName": false}))
	return s
}
