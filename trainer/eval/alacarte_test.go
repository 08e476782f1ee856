package eval

import (
	"context"
	"fmt"
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

// TestAlaCarteFit fits on a small corpus file and refuses a missing one
// and one without a word to fit on, naming the flag's file.
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
	a, st, err := AlaCarteFit(context.Background(), e, path, AlaCarteHoldout{})
	if err != nil || st.Words != 3 || a.Dim() != 2 || st.Sentences != 3*alaCarteMinOccurrences || st.LeftOut != 0 {
		t.Fatalf("fit: %v, %+v, want 3 words of dimension 2", err, st)
	}
	if v := AlaCarteNonce(e, a)([][]string{{"a", NonceToken}}); len(v) != 2 {
		t.Errorf("nonce vector %v", v)
	}
	if _, _, err := AlaCarteFit(context.Background(), e, path+".missing", AlaCarteHoldout{}); err == nil || !strings.Contains(err.Error(), path+".missing") {
		t.Errorf("missing corpus: error %v, want one naming the file", err)
	}
	rare := writeFile(t, "rare.txt", "a b c\n")
	if _, _, err := AlaCarteFit(context.Background(), e, rare, AlaCarteHoldout{}); err == nil ||
		!strings.Contains(err.Error(), rare+": no base word occurs 5 times or more") {
		t.Errorf("corpus without a frequent word: error %v", err)
	}
}

// swapWords are the words of swapEmbeddings: x_i = (p_i, q_i) and its
// partner y_i = (q_i, p_i).
func swapWords(n int) (xs, ys []string, vecs [][]float32) {
	for i := range n {
		xs, ys = append(xs, fmt.Sprintf("x%c", 'a'+i)), append(ys, fmt.Sprintf("y%c", 'a'+i))
	}
	for i := range n {
		p, q := float32(2+i), float32(1+(3*i)%5)
		vecs = append(vecs, []float32{p, q})
	}
	for i := range n {
		vecs = append(vecs, []float32{vecs[i][1], vecs[i][0]})
	}
	return xs, ys, vecs
}

// swapEmbeddings returns embeddings of n pairs of swapWords, and extra
// words with their vectors, and a corpus in which x_i occurs only beside
// y_i: the context vector of each word is its partner's vector, so the A
// La Carte map is the swap of the two coordinates. The corpus ends with
// tail.
func swapEmbeddings(t *testing.T, n int, extra map[string][]float32, tail string) (*model.Embeddings, string) {
	t.Helper()
	xs, ys, vecs := swapWords(n)
	words := append(append([]string(nil), xs...), ys...)
	for w, v := range extra {
		words, vecs = append(words, w), append(vecs, v)
	}
	var text strings.Builder
	for range alaCarteMinOccurrences {
		for i := range n {
			fmt.Fprintf(&text, "%s %s\n", xs[i], ys[i])
		}
	}
	return testEmbeddings(t, words, vecs, nil), writeFile(t, "swap.txt", text.String()+tail)
}

// near reports whether a and b are within tol of each other in every coordinate.
func near(a, b []float32, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > tol {
			return false
		}
	}
	return true
}

// TestAlaCarteFitKnownMap: on a corpus whose map is the swap of the
// coordinates the fit finds it, and the nonce function applies it to the
// additive context vector (the additive vector itself would be x's, not y's).
func TestAlaCarteFitKnownMap(t *testing.T) {
	e, path := swapEmbeddings(t, 12, nil, "")
	a, st, err := AlaCarteFit(context.Background(), e, path, AlaCarteHoldout{})
	if err != nil || st.Words != 24 {
		t.Fatalf("fit: %v, %d words fitted, want 24", err, st.Words)
	}
	if got := a.Apply([]float32{1, 0}); !near(got, []float32{0, 1}, 5e-3) {
		t.Errorf("A·(1, 0) = %v, want (0, 1)", got)
	}
	f := AlaCarteNonce(e, a)
	xa, ya := e.Row(0), e.Row(12)
	if got := f([][]string{{"xa", NonceToken}}); !near(got, ya, 1e-2) {
		t.Errorf("A La Carte of a nonce beside xa = %v, want ya's vector %v (xa's is %v)", got, ya, xa)
	}
	// Two contexts: A applied to the mean of all their known words.
	if got := f([][]string{{"xa"}, {NonceToken, "xb", "unknown"}}); !near(got, a.Apply(Additive(e, nil)([][]string{{"xa", "xb"}})), 1e-6) {
		t.Errorf("two contexts: %v, want A·mean(xa, xb)", got)
	}
}

// TestAlaCarteFitLeavesOutSentences: the sentences of a held-out word,
// which pull xa's context vector away from ya's, are left out of the fit
// with Sentences set (the map stays the swap) and counted; holding out the
// word alone keeps them and the map moves.
func TestAlaCarteFitLeavesOutSentences(t *testing.T) {
	tail := strings.Repeat("xa zorb\n", 20)
	e, path := swapEmbeddings(t, 12, map[string][]float32{"zorb": {-40, 3}}, tail)
	held := map[string]bool{"zorb": true}
	a, st, err := AlaCarteFit(context.Background(), e, path, AlaCarteHoldout{Words: held, Sentences: true})
	if err != nil || st.Words != 24 || st.LeftOut != 20 || st.Sentences != 12*alaCarteMinOccurrences+20 {
		t.Fatalf("fit: %v, %+v; want 24 words fitted, 20 of %d sentences left out", err, st, 12*alaCarteMinOccurrences+20)
	}
	if got := a.Apply([]float32{1, 0}); !near(got, []float32{0, 1}, 5e-3) {
		t.Errorf("sentences left out: A·(1, 0) = %v, want (0, 1)", got)
	}
	a, st, err = AlaCarteFit(context.Background(), e, path, AlaCarteHoldout{Words: held})
	if err != nil || st.Words != 24 || st.LeftOut != 0 {
		t.Fatalf("word held out, sentences kept: %v, %+v", err, st)
	}
	if got := a.Apply([]float32{1, 0}); near(got, []float32{0, 1}, 0.05) {
		t.Errorf("zorb's sentences kept: A·(1, 0) = %v, still the swap: the test cannot tell them apart", got)
	}
	if _, st, _ := AlaCarteFit(context.Background(), e, path, AlaCarteHoldout{}); st.Words != 25 {
		t.Errorf("nothing held out: %d words fitted, want 25 (zorb too)", st.Words)
	}
}
