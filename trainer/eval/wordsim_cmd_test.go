package eval

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/cli"
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
}
