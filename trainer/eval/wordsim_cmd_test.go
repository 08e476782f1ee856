package eval

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
)

// meanNorm returns the length of the mean of the unit vectors l gives words.
func meanNorm(t *testing.T, l Lookup, words []string) float64 {
	t.Helper()
	var mean []float64
	for _, w := range words {
		v := l(w)
		if v == nil {
			t.Fatalf("no vector for %q", w)
		}
		if mean == nil {
			mean = make([]float64, len(v))
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		for j, x := range v {
			mean[j] += float64(x) / math.Sqrt(n) / float64(len(words))
		}
	}
	var s float64
	for _, x := range mean {
		s += x * x
	}
	return math.Sqrt(s)
}

func TestWordSimAsTextTakesOutTheCommonSpace(t *testing.T) {
	sp, err := embeddingsSpace("default", "", true)
	if err != nil {
		if strings.Contains(err.Error(), "embeds no default model") {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	e, _, err := loadBaseOrBundle("default")
	if err != nil {
		t.Fatal(err)
	}
	words := e.Words[:2000]
	raw := meanNorm(t, sp.own, words)
	text, err := asTextSpace(sp, vectorizer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	served := meanNorm(t, text.own, words)
	// Word vectors share a common direction (their mean is far from zero);
	// the vectorizer takes it out of every text, one-word texts included.
	if raw < 0.2 || served > raw/2 {
		t.Fatalf("mean of the unit vectors of the 2,000 most frequent words: %.3f raw, %.3f as text; "+
			"want the common space taken out", raw, served)
	}
	if v := text.own("zzzqqq"); v != nil {
		t.Fatalf("a word without its own vector got one as text: want it left to the form")
	}
	v := text.form("zzzqqq")
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if math.Abs(n-1) > 1e-4 {
		t.Fatalf("the form as text: squared length %v, want a unit vector", n)
	}
	if err := text.err(); err != nil {
		t.Fatal(err)
	}
}

func TestEvalWordSimAsText(t *testing.T) {
	pairs := writeFile(t, "ws.txt", "music guitar 9\nmusic bread 2\nfood bread 8\nfood guitars 5\n")
	emb, _ := tinyEmbeddings(t)
	out, _, err := run(t, "wordsim", "--embeddings", emb, "--as-text", pairs)
	if err != nil || !strings.Contains(out, "(as text)") || !strings.Contains(out, "(3/4)") {
		t.Fatalf("--as-text --oov none: %v\n%s", err, out)
	}
	for _, args := range [][]string{
		{"--oov", "form-all"},
		{"--subwords", emb, "--subword-ngrams", emb},
		{"--common-components", "99"},
	} {
		args = append(append([]string{"wordsim", "--embeddings", emb, "--as-text"}, args...), pairs)
		if _, _, err := run(t, args...); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: %v, want a usage error", args[1:], err)
		}
	}
	ft := tinyFastText(t)
	out, _, err = run(t, "wordsim", "--fasttext", ft, "--oov", "form", "--as-text", pairs)
	if err != nil || !strings.Contains(out, "(as text)") || !strings.Contains(out, "(3 + 1 / 4)") {
		t.Fatalf("--fasttext --as-text --oov form: %v\n%s", err, out)
	}
	// A fastText model's vectorizer serves every word by its row, whatever
	// count rare_min asks of words AM serves: the form of "guitars" too.
	out, _, err = run(t, "wordsim", "--fasttext", ft, "--oov", "form", "--as-text", "--rare-min", "32", pairs)
	if err != nil || !strings.Contains(out, "(3 + 1 / 4)") {
		t.Fatalf("--fasttext --as-text --rare-min 32: %v\n%s", err, out)
	}
	if _, _, err := run(t, "wordsim", "--embeddings", emb, "--common-components", "0", pairs); !errors.Is(err, cli.ErrUsage) {
		t.Errorf("a vectorizer setting without --as-text: %v, want a usage error", err)
	}
}

// commonEmbeddings writes 300 words of dimension 64 that share one large
// common vector, with counts, and returns the file's path.
func commonEmbeddings(t *testing.T) (string, []string) {
	t.Helper()
	const dim, n = 64, 300
	rng := rand.New(rand.NewPCG(1, 2))
	words := make([]string, n)
	vecs := make([]float32, 0, n*dim)
	counts := make([]int64, n)
	for i := range n {
		words[i], counts[i] = fmt.Sprintf("w%03d", i), int64(1000-i)
		for j := range dim {
			vecs = append(vecs, float32(3*math.Cos(float64(j))+rng.NormFloat64()))
		}
	}
	e, err := model.NewEmbeddings(dim, words, vecs, counts)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "common.vec")
	if err := model.SaveEmbeddings(p, e, false); err != nil {
		t.Fatal(err)
	}
	return p, words
}

func TestWordSimAsTextWordList(t *testing.T) {
	path, words := commonEmbeddings(t)
	sp, err := embeddingsSpace(path, "", false)
	if err != nil {
		t.Fatal(err)
	}
	raw := meanNorm(t, sp.own, words)
	o := vectorizer.DefaultOptions()
	o.RareMin, o.FrequentMin = 32, 32 // a word list's vectorizer serves every word by its row
	text, err := asTextSpace(sp, o)
	if err != nil {
		t.Fatal(err)
	}
	if served := meanNorm(t, text.own, words); raw < 0.5 || served > raw/4 {
		t.Fatalf("mean of the unit vectors: %.3f raw, %.3f as text; want the common space taken out", raw, served)
	}
}

func TestWordSimAsTextSplitsWords(t *testing.T) {
	ft := tinyFastTextDim(t, 64)
	sp, err := fastTextSpace(ft, true, pairTokens([][]dataset.WordPair{{{A: "guitarz-bread", B: "bread"}}}))
	if err != nil {
		t.Fatal(err)
	}
	defer sp.close()
	text, err := asTextSpace(sp, vectorizer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	// "guitarz-bread" is the two-word text "guitarz bread": the form of
	// "guitarz" (no dictionary word) takes part in it.
	both, bread := text.form("guitarz-bread"), text.own("bread")
	if both == nil || bread == nil || model.Cosine(both, bread) > 0.999 {
		t.Fatalf("guitarz-bread as text: cosine %v with bread alone, want the form of guitarz in it",
			model.Cosine(both, bread))
	}
}

func TestEvalWordSimComparesSpaces(t *testing.T) {
	// Ten words on a circle: pair scores fall with the angle between them,
	// so "circle" ranks the pairs as the scores do and "reversed" (every
	// vector turned by its own angle again) scrambles them.
	const n = 10
	words := make([]string, n)
	circle, reversed := make([]float32, 0, 2*n), make([]float32, 0, 2*n)
	for i := range n {
		words[i] = fmt.Sprintf("w%d", i)
		a := float64(i) * math.Pi / n
		circle = append(circle, float32(math.Cos(a)), float32(math.Sin(a)))
		reversed = append(reversed, float32(math.Cos(3*a)), float32(math.Sin(3*a)))
	}
	var lines strings.Builder
	for i := range n {
		for j := i + 1; j < n; j++ {
			fmt.Fprintf(&lines, "%s %s %d\n", words[i], words[j], 10-(j-i))
		}
	}
	pairs := writeFile(t, "ws.txt", lines.String())
	dir := t.TempDir()
	paths := map[string][]float32{"circle.vec": circle, "reversed.vec": reversed, "short.vec": circle[:2*(n-1)]}
	for name, vecs := range paths {
		e, err := model.NewEmbeddings(2, words[:len(vecs)/2], vecs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := model.SaveEmbeddings(filepath.Join(dir, name), e, false); err != nil {
			t.Fatal(err)
		}
	}
	emb := func(name string) []string { return []string{"--embeddings", filepath.Join(dir, name)} }
	few := writeFile(t, "few.txt", "w0 w1 9\nw0 w2 8\nw1 w3 7\nw2 w3 9\n")
	out, _, err := run(t, append(append([]string{"wordsim"}, emb("circle.vec")...), pairs)...)
	if err != nil || strings.Contains(out, "minus") {
		t.Fatalf("one space: %v, want no comparison\n%s", err, out)
	}
	args := append(append(append(emb("circle.vec"), emb("reversed.vec")...), emb("short.vec")...), pairs, few)
	if out, _, err = run(t, append([]string{"wordsim"}, args...)...); err != nil {
		t.Fatal(err)
	}
	_, cmp, ok := strings.Cut(out, "ρ minus the first row's (circle.vec)")
	for name, want := range map[string]string{
		// Below circle.vec over all 45 pairs; level with it over the 36
		// pairs without w9; too few pairs in few.txt to compare.
		"reversed.vec": "p < 0.001 (45 pairs)",
		"short.vec":    "+0.000 [+0.000, +0.000] p 1.000 (36 pairs)",
	} {
		row := tableRow(cmp, name)
		if !ok || len(row) != 2 || !strings.HasSuffix(row[0], want) || row[1] != "– (4 pairs)" {
			t.Fatalf("%s: want %q, then – (4 pairs)\n%s", name, want, out)
		}
	}
	if !strings.HasPrefix(tableRow(cmp, "reversed.vec")[0], "-") {
		t.Fatalf("reversed.vec: want a ρ below circle.vec's\n%s", out)
	}
}
