package fasttext

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestAgainstFastTextCLI trains a tiny model with the fasttext binary and
// compares our vectors with `fasttext print-word-vectors` for words in and
// out of the dictionary, non-ASCII ones included. It skips without fasttext.
func TestAgainstFastTextCLI(t *testing.T) {
	bin, err := exec.LookPath("fasttext")
	if err != nil {
		t.Skip("fasttext not installed (apt install fasttext)")
	}
	dir := t.TempDir()
	vocab := []string{"alpha", "beta", "gamma", "delta", "café", "naïve", "über", "straße", "x", "go"}
	rng := rand.New(rand.NewPCG(1, 2))
	var corpus strings.Builder
	for range 400 {
		for range 12 {
			corpus.WriteString(vocab[rng.IntN(len(vocab))] + " ")
		}
		corpus.WriteString("\n")
	}
	in := filepath.Join(dir, "corpus.txt")
	if err := os.WriteFile(in, []byte(corpus.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "m")
	cmd := exec.Command(bin, "skipgram", "-input", in, "-output", out, "-dim", "8", "-minCount", "1",
		"-minn", "2", "-maxn", "4", "-bucket", "5000", "-epoch", "1", "-thread", "1", "-verbose", "0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fasttext skipgram: %v\n%s", err, b)
	}
	queries := append(append([]string{}, vocab...), "alphabet", "cafés", "ß", "ü", "zzzz", "a")
	cmd = exec.Command(bin, "print-word-vectors", out+".bin")
	cmd.Stdin = strings.NewReader(strings.Join(queries, "\n") + "\n")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		t.Fatalf("fasttext print-word-vectors: %v", err)
	}
	want := map[string][]float64{}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		f := strings.Fields(line)
		vec := make([]float64, len(f)-1)
		for k, s := range f[1:] {
			if vec[k], err = strconv.ParseFloat(s, 64); err != nil {
				t.Fatalf("print-word-vectors line %q: %v", line, err)
			}
		}
		want[f[0]] = vec
	}
	m, err := Open(out + ".bin")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.Dim != 8 || m.MinN != 2 || m.MaxN != 4 || m.Bucket != 5000 {
		t.Fatalf("header: dim %d minn %d maxn %d bucket %d", m.Dim, m.MinN, m.MaxN, m.Bucket)
	}
	v := make([]float32, m.Dim)
	for _, q := range queries {
		w, ok := want[q]
		if !ok || len(w) != m.Dim {
			t.Fatalf("print-word-vectors gave no %d-d vector for %q", m.Dim, q)
		}
		if _, err := m.WordVector(v, q); err != nil {
			t.Fatal(err)
		}
		for k := range w {
			// print-word-vectors prints 5 significant digits.
			if math.Abs(float64(v[k])-w[k]) > 1e-4*math.Max(1, math.Abs(w[k]))+1e-5 {
				t.Fatalf("%q: ours %v, fastText %v", q, v, fmt.Sprint(w))
			}
		}
	}
}
