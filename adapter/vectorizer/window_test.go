package vectorizer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
)

// longSentence returns n frequent words with target at position at, one sentence.
func longSentence(n, at int, target string) string {
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("f%d", i)
	}
	words[at] = target
	return strings.Join(words, " ") + "."
}

// TestContextWindow: a passage teaches the memory the ±ContextWindow tokens
// around each occurrence, not the whole sentence; a short sentence is its own
// context, punctuation included.
func TestContextWindow(t *testing.T) {
	mem := newMemory(t)
	v := newVectorizer(t, mem)
	w := model.ContextWindow
	text := longSentence(200, 100, "zqlong")
	if _, err := v.Vectorize(text, TaskPassage, DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	got, _ := mem.Contexts(nil, "zqlong")
	want := strings.TrimSuffix(longSentence(200, 100, "zqlong"), ".")
	fields := strings.Fields(want)
	want = strings.Join(fields[100-w:100+w+1], " ")
	if len(got) != 1 || got[0] != want {
		t.Fatalf("remembered %q,\nwant the window %q", got, want)
	}
	// At the sentence start the window runs to the sentence's start.
	text = longSentence(200, 3, "zqearly")
	v.Vectorize(text, TaskPassage, DefaultOptions())
	got, _ = mem.Contexts(nil, "zqearly")
	if len(got) != 1 || !strings.HasPrefix(got[0], "f0 f1 f2 zqearly") || len(strings.Fields(got[0])) != 3+w+1 {
		t.Fatalf("remembered %q", got)
	}
	// Two occurrences: two contexts.
	v.Vectorize(longSentence(200, 10, "zqtwice")+" "+longSentence(200, 150, "zqtwice"), TaskPassage, DefaultOptions())
	if got, _ = mem.Contexts(nil, "zqtwice"); len(got) != 2 {
		t.Fatalf("two occurrences remembered %d contexts", len(got))
	}
}

// TestMaxAMWordsAndCancel: more distinct AM words than MaxAMWords is refused
// before anything is taught; a cancelled context stops the work.
func TestMaxAMWordsAndCancel(t *testing.T) {
	mem := newMemory(t)
	v := newVectorizer(t, mem)
	var b strings.Builder
	for i := range 11 {
		fmt.Fprintf(&b, "f1 zq%dx ", i)
	}
	o := DefaultOptions()
	o.MaxAMWords = 10
	if _, err := v.Vectorize(b.String(), TaskPassage, o); !errors.Is(err, ErrTooManyAMWords) {
		t.Fatalf("11 AM words over 10: %v", err)
	}
	if _, err := v.Explain(b.String(), o); !errors.Is(err, ErrTooManyAMWords) {
		t.Fatalf("explain: %v", err)
	}
	if st := mem.Stats(); st.Words != 0 || st.Passages != 0 {
		t.Errorf("a refused passage taught the memory: %+v", st)
	}
	o.MaxAMWords = 11
	if _, err := v.Vectorize(b.String(), TaskQuery, o); err != nil {
		t.Fatalf("11 AM words at a limit of 11: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := v.VectorizeContext(ctx, b.String(), TaskQuery, o); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	_, errs := v.VectorizeBatchContext(ctx, []string{b.String(), "f1"}, TaskPassage, o)
	for i, err := range errs {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("batch text %d: %v", i, err)
		}
	}
}

// TestExplainLimits: words, contexts per word, context bytes and the byte
// budget bound an explanation; what is left out is counted.
func TestExplainLimits(t *testing.T) {
	mem := newMemory(t)
	v := newVectorizer(t, mem)
	var b strings.Builder
	for i := range 50 {
		fmt.Fprintf(&b, "f%d zqx%dq %s. ", i, i%5, strings.Repeat("f7 ", 200))
	}
	lim := ExplainLimits{MaxWords: 4, MaxContexts: 3, MaxContextBytes: 40, MaxBytes: 1 << 20}
	ex, err := v.ExplainContext(context.Background(), b.String(), DefaultOptions(), lim)
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Words) != 4 || ex.WordsOmitted == 0 || !ex.Truncated {
		t.Errorf("%d words listed, %d omitted, truncated %v", len(ex.Words), ex.WordsOmitted, ex.Truncated)
	}
	var weight float32
	for _, we := range ex.Words {
		weight += we.Weight
		if len(we.Contexts) > 3 {
			t.Errorf("%s: %d contexts", we.Word, len(we.Contexts))
		}
		for _, c := range we.Contexts {
			if len(c.Text) > 40 {
				t.Errorf("%s: context of %d bytes", we.Word, len(c.Text))
			}
		}
	}
	if weight >= 1 {
		t.Errorf("listed words carry weight %v: the omitted ones must keep their share", weight)
	}
	lim = ExplainLimits{MaxBytes: 2000}
	ex, err = v.ExplainContext(context.Background(), b.String(), DefaultOptions(), lim)
	if err != nil {
		t.Fatal(err)
	}
	if ex.used > 2000 || !ex.Truncated {
		t.Errorf("budget 2000: used %d, truncated %v", ex.used, ex.Truncated)
	}
}

// TestTokenSentence: the sentence found for every token is the one whose
// token range holds it, in texts with many sentences, sentences without
// words and a text that is one sentence.
func TestTokenSentence(t *testing.T) {
	v := newVectorizer(t, nil)
	w := v.newWork()
	o := DefaultOptions()
	for _, text := range []string{
		"one sentence without an end",
		"A first one. A second one! ... !!! ?? And a third? Short. x.",
		". . . start with empty ones. then words",
		longSentence(50, 3, "zqa") + " " + longSentence(5, 1, "zqb") + "!!! " + longSentence(70, 60, "zqc"),
	} {
		v.prepare(w, text, &o)
		var want []int // the sentence of every token, from the sentence ends
		start := 0
		for s, end := range w.sentEnd {
			for range end - start {
				want = append(want, s)
			}
			start = end
		}
		if len(want) != len(w.tokens) || len(w.tokens) == 0 {
			t.Fatalf("%q: %d tokens, sentence ends cover %d", text, len(w.tokens), len(want))
		}
		for pos, s := range want {
			if got := tokenSentence(w, pos); got != s {
				t.Fatalf("%q: token %d (%q) in sentence %d, want %d (ends %v)", text, pos, w.tokens[pos], got, s, w.sentEnd)
			}
			if !strings.Contains(strings.ToLower(w.sentences[s]), w.tokens[pos]) {
				t.Fatalf("%q: token %q not in its sentence %q", text, w.tokens[pos], w.sentences[s])
			}
		}
	}
}
