package eval

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
)

// TestContextSums: each occurrence adds the mean of the known words around
// it (itself, unknown words and words beyond the window left out).
func TestContextSums(t *testing.T) {
	e, err := model.NewEmbeddings(2, []string{"a", "b", "c"}, []float32{1, 0, 0, 1, 1, 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := newContextSums(e)
	c.addSentence([]string{"a", "b", "x", "c"})
	c.addSentence([]string{"a", "c"})
	far := append([]string{"b"}, strings.Fields(strings.Repeat("x ", alaCarteWindow))...)
	c.addSentence(append(far, "a")) // a and b are too far apart: no occurrence counted
	targets, contexts := c.pairs(1, nil)
	// a: (b + c)/2 = (0.5, 1) and c = (1, 1); b: (a + c)/2 = (1, 0.5); c: (a + b)/2 and a.
	want := map[int][]float32{0: {0.75, 1}, 1: {1, 0.5}, 2: {0.75, 0.25}}
	if len(targets) != 3 {
		t.Fatalf("%d pairs, want 3", len(targets))
	}
	for id, w := range want {
		if c.occ[id] != map[int]int{0: 2, 1: 1, 2: 2}[id] {
			t.Errorf("word %d: %d occurrences", id, c.occ[id])
		}
		for k := range w {
			if math.Abs(float64(contexts[id][k]-w[k])) > 1e-6 {
				t.Errorf("word %d: context vector %v, want %v", id, contexts[id], w)
				break
			}
		}
	}
	if targets, _ := c.pairs(2, nil); len(targets) != 2 {
		t.Errorf("words seen twice: %d, want 2", len(targets))
	}
	if targets, _ := c.pairs(1, map[string]bool{"b": true}); len(targets) != 2 || targets[1][1] != 1 || targets[1][0] != 1 {
		t.Errorf("b excluded: targets %v, want a's and c's", targets)
	}
}

// TestAlaCarteFit fits on a small corpus file and refuses a missing one.
func TestAlaCarteFit(t *testing.T) {
	e, err := model.NewEmbeddings(2, []string{"a", "b", "c"}, []float32{1, 0, 0, 1, 1, 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "corpus.txt")
	text := strings.Repeat("a b c\nb c a a\nc a b\n", alaCarteMinOccurrences)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	a, n, err := AlaCarteFit(context.Background(), e, path, model.DefaultTokenizer(), nil)
	if err != nil || n != 3 || a.Dim() != 2 {
		t.Fatalf("fit: %v, %d words, want 3 words of dimension 2", err, n)
	}
	if v := AlaCarteNonce(e, a)([][]string{{"a", NonceToken}}); len(v) != 2 {
		t.Errorf("nonce vector %v", v)
	}
	if _, _, err := AlaCarteFit(context.Background(), e, path+".missing", model.DefaultTokenizer(), nil); err == nil {
		t.Error("missing corpus: no error")
	}
}
