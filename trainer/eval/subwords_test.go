package eval

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/model"
)

// writeSubwords writes a tiny subword model: words "cat" and "dog", the
// 3-grams of "cat" and "cats" ("ts>" only in "cats") and "og>" of "dog".
func writeSubwords(t *testing.T) (words, ngrams string) {
	t.Helper()
	dir := t.TempDir()
	w, err := model.NewEmbeddings(2, []string{"cat", "dog"}, []float32{1, 0, 0, 1}, []int64{10, 8})
	if err != nil {
		t.Fatal(err)
	}
	g, err := model.NewEmbeddings(2, []string{"<ca", "cat", "at>", "ats", "ts>", "og>"},
		[]float32{1, 0, 0, 1, 2, 2, 4, 0, 0, 8, 0, 3}, []int64{2, 2, 1, 1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	words, ngrams = filepath.Join(dir, "w.bin"), filepath.Join(dir, "g.txt")
	if err := model.SaveEmbeddings(words, w, true); err != nil {
		t.Fatal(err)
	}
	if err := model.SaveEmbeddings(ngrams, g, false); err != nil {
		t.Fatal(err)
	}
	return words, ngrams
}

func TestSubwordsVectors(t *testing.T) {
	words, ngrams := writeSubwords(t)
	s, err := LoadSubwords(words, ngrams)
	if err != nil {
		t.Fatal(err)
	}
	if s.Config.MinN != 3 || s.Config.MaxN != 3 || s.Config.Style != model.NgramFastText {
		t.Fatalf("config %+v: want fastText-style 3..3", s.Config)
	}
	v := make([]float32, 2)
	// "cats": <ca cat ats ts> are in the table (at> is not an n-gram of cats; "cats>" too long).
	if ok, err := s.FormVector(v, "cats"); !ok || err != nil || v[0] != (1+0+4+0)/4.0 || v[1] != (0+1+0+8)/4.0 {
		t.Fatalf("form of cats: %v %v %v", v, ok, err)
	}
	// An in-vocabulary word: its own vector, not its form.
	if ok, err := s.WordVector(v, "cat"); !ok || err != nil || v[0] != 1 || v[1] != 0 {
		t.Fatalf("word vector of cat: %v %v %v", v, ok, err)
	}
	// Outside the vocabulary: the form.
	if ok, err := s.WordVector(v, "cats"); !ok || err != nil || v[1] != 9.0/4 {
		t.Fatalf("word vector of cats: %v %v %v", v, ok, err)
	}
	// No known n-gram: no vector, dst zero.
	v[0] = 5
	if ok, err := s.FormVector(v, "xyz"); ok || err != nil || v[0] != 0 {
		t.Fatalf("form of xyz: %v %v %v", v, ok, err)
	}
	if _, err := s.FormVector(make([]float32, 3), "cats"); err == nil {
		t.Fatal("wrong length: no error")
	}
}

func TestSubwordsDimensionMismatch(t *testing.T) {
	words, _ := writeSubwords(t)
	g, err := model.NewEmbeddings(3, []string{"<ca"}, []float32{1, 2, 3}, []int64{1})
	if err != nil {
		t.Fatal(err)
	}
	ngrams := filepath.Join(t.TempDir(), "g3.txt")
	if err := model.SaveEmbeddings(ngrams, g, false); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSubwords(words, ngrams); err == nil || !strings.Contains(err.Error(), "dimension") {
		t.Fatalf("dimension mismatch: %v", err)
	}
}

func TestEvalWordSimSubwords(t *testing.T) {
	words, ngrams := writeSubwords(t)
	pairs := writeFile(t, "ws.txt", "cat cats 9\ndog cats 1\ncat dog 2\n")
	out, _, err := run(t, "wordsim", "--subwords", words, "--subword-ngrams", ngrams, pairs)
	if err != nil || !strings.Contains(out, "(1/3)") || !strings.Contains(out, "w.bin") {
		t.Fatalf("--subwords: %v\n%s", err, out)
	}
	out, _, err = run(t, "wordsim", "--subwords", words, "--subword-ngrams", ngrams, "--oov", "form", pairs)
	if err != nil || !strings.Contains(out, "(1 + 2 / 3)") {
		t.Fatalf("--subwords --oov form: %v\n%s", err, out)
	}
	out, _, err = run(t, "wordsim", "--subwords", words, "--subword-ngrams", ngrams, "--oov", "form-all", pairs)
	if err != nil || !strings.Contains(out, "(0 + 3 / 3)") || !strings.Contains(out, "w.bin (form only)") {
		t.Fatalf("--subwords --oov form-all: %v\n%s", err, out)
	}
	if _, _, err := run(t, "wordsim", "--subwords", words, pairs); !errors.Is(err, cli.ErrUsage) {
		t.Fatalf("--subwords without --subword-ngrams: %v", err)
	}
}

func TestEvalRarePairsSubwords(t *testing.T) {
	emb, counts := tinyEmbeddings(t)
	words, ngrams := writeSubwords(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cats.txt"), []byte("the cats music\nthe cats food\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pairs := writeFile(t, "rp.txt", "cat cats 1\ndog cats 9\n")
	out, _, err := run(t, "rare-pairs", "--embeddings", emb, "--counts", counts, "--subwords", words, "--subword-ngrams", ngrams,
		"--stopwords", "1", "--max-k", "1", "--trials", "1", pairs, dir)
	if err != nil {
		t.Fatal(err)
	}
	// form(cats) = (1.25, 2.25): cos with dog (0, 1) 0.87, with cat (1, 0) 0.49, so ρ = 1.
	var formLine string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| subwords form (n-grams only)") {
			formLine = l
			break
		}
	}
	if cells := strings.Split(formLine, "|"); len(cells) < 3 || strings.TrimSpace(cells[2]) != "1.000" {
		t.Fatalf("subwords form row %q in:\n%s", formLine, out)
	}
	if !strings.Contains(out, "subwords own vector (all corpus occurrences)") {
		t.Fatalf("no own-vector row:\n%s", out)
	}
}

func TestSubwordsEmbeddings(t *testing.T) {
	words, ngrams := writeSubwords(t)
	s, err := LoadSubwords(words, ngrams)
	if err != nil {
		t.Fatal(err)
	}
	e, oov, err := s.Embeddings(map[string]int64{"cat": 10}, []string{"Cats and dog.", "xyz cats"}, model.DefaultTokenizer())
	if err != nil {
		t.Fatal(err)
	}
	// cat and dog by their own vectors, cats by its form; "and" and "xyz" have no known n-gram.
	if e.Len() != 3 || oov != 1 {
		t.Fatalf("%d words (%v), %d from their form: want 3, 1", e.Len(), e.Words, oov)
	}
	want := map[string]struct {
		count int64
		vec   []float32
	}{"cat": {10, []float32{1, 0}}, "dog": {0, []float32{0, 1}}, "cats": {1, []float32{1.25, 2.25}}}
	for w, x := range want {
		id, ok := e.ID(w)
		if !ok || e.Count(id) != x.count || e.Row(id)[0] != x.vec[0] || e.Row(id)[1] != x.vec[1] {
			t.Errorf("%s: in %v, count %d, vector %v; want count %d, vector %v", w, ok, e.Count(id), e.Row(id), x.count, x.vec)
		}
	}
}

func TestEvalRetrievalSubwords(t *testing.T) {
	words, ngrams := writeSubwords(t)
	counts := writeFile(t, "counts.txt", "cat 10\ndog 8\n")
	docs := writeFile(t, "d.jsonl", `{"id":"a","text":"A cat."}`+"\n"+`{"id":"b","text":"A dog."}`+"\n")
	// "cats" is outside the vocabulary: its form (1.25, 2.25) is nearer dog (0, 1) than cat (1, 0).
	qs := writeFile(t, "q.jsonl", `{"id":"q1","text":"dog","relevant":["b"]}`+"\n"+`{"id":"q2","text":"cats","relevant":["b"]}`+"\n")
	out, _, err := run(t, "retrieval", "--counts", counts, "--subwords", words, "--subword-ngrams", ngrams, docs, qs)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "| dense subwords (n-grams for OOV words) ") {
		t.Fatalf("no dense-subwords row:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "| dense subwords") {
			continue
		}
		if c := strings.Split(l, "|"); len(c) < 5 || strings.TrimSpace(c[2]) != "1.000" || strings.TrimSpace(c[3]) != "1.000" {
			t.Fatalf("row %q: want both queries answered first (q2 by the form of cats)", l)
		}
	}
	if _, _, err := run(t, "retrieval", "--subwords", words, "--subword-ngrams", ngrams, docs, qs); !errors.Is(err, cli.ErrUsage) {
		t.Fatalf("--subwords without --counts: %v", err)
	}
	if _, _, err := run(t, "retrieval", "--counts", counts, "--subwords", words, docs, qs); !errors.Is(err, cli.ErrUsage) {
		t.Fatalf("--subwords without --subword-ngrams: %v", err)
	}
}

func TestEvalRarePairsSkipInference(t *testing.T) {
	_, ngrams := writeSubwords(t)
	dir := t.TempDir()
	// "the" makes cat and dog rare: subsampling keeps them.
	counts := writeFile(t, "counts.txt", "the 100000\ncat 10\ndog 8\n")
	o, err := model.NewEmbeddings(2, []string{"the", "cat", "dog"}, []float32{0.1, 0.1, 2, -2, -2, 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	outputs := filepath.Join(dir, "out.txt")
	if err := model.SaveEmbeddings(outputs, o, false); err != nil {
		t.Fatal(err)
	}
	b, err := model.NewEmbeddings(2, []string{"the", "cat", "dog"}, []float32{0.5, 0.5, 1, 0, 0, 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, "base.txt")
	if err := model.SaveEmbeddings(base, b, false); err != nil {
		t.Fatal(err)
	}
	ctxDir := filepath.Join(dir, "contexts")
	if err := os.Mkdir(ctxDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ctxDir, "cats.txt"), []byte(strings.Repeat("cats cat\n", 8)+"cats cats\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The form of cats, (1.25, 2.25), is nearer dog (0, 1) than cat (1, 0):
	// against these scores ρ = −1. Seen beside cat, whose output vector is
	// (2, −2), cats learns to predict it and turns towards cat: ρ = 1.
	pairs := writeFile(t, "rp.txt", "cat cats 9\ndog cats 1\n")
	// An AM model over the same base: the AM+skip row.
	cfg := model.Config{Dim: 2, Mode: model.ModeAM, Ngram: model.DefaultNgramConfig(), Tokenizer: model.DefaultTokenizer()}
	am, err := model.New(cfg, model.BuildNgramVocab(b.Words, cfg.Ngram), b, 1)
	if err != nil {
		t.Fatal(err)
	}
	amPath := filepath.Join(dir, "am.am")
	if err := am.SaveFile(amPath, model.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, "rare-pairs", "--embeddings", base, "--counts", counts, "--subwords", base, "--subword-ngrams", ngrams,
		"--subword-outputs", outputs, "--am", amPath, "--stopwords", "1", "--max-k", "8", "--trials", "1", pairs, ctxDir)
	if err != nil {
		t.Fatal(err)
	}
	var cells []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| subwords skipgram, inferred from the k sentences") {
			cells = strings.Split(l, "|")
			break
		}
	}
	// | name | k=0 | k=1 | k=2 | k=4 | k=8 |
	if len(cells) < 7 || strings.TrimSpace(cells[2]) != "-1.000" || strings.TrimSpace(cells[6]) != "1.000" {
		t.Fatalf("skipgram row %q, want -1.000 at k = 0 and 1.000 at k = 8, in:\n%s", strings.Join(cells, "|"), out)
	}
	// With no sentence AM+skip is AM (β(0) = 1). (The line "cats cats" holds
	// nothing but the word: it is neither a context nor a sentence.)
	row := func(prefix string) []string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, prefix) {
				return strings.Split(l, "|")
			}
		}
		t.Fatalf("no row %q in:\n%s", prefix, out)
		return nil
	}
	amRow, mix := row("| AM (am)"), row("| AM+skip, the skipgram inferred")
	if strings.TrimSpace(mix[2]) != strings.TrimSpace(amRow[2]) {
		t.Errorf("AM+skip at k = 0 %s, want AM's %s", mix[2], amRow[2])
	}
	if _, _, err := run(t, "rare-pairs", "--embeddings", base, "--counts", counts, "--subword-outputs", outputs, pairs, ctxDir); !errors.Is(err, cli.ErrUsage) {
		t.Fatalf("--subword-outputs without --subwords: %v", err)
	}
	// Output vectors that lack a word of --subwords are another model's:
	// refused, naming the flag. Fewer --subwords words (--out-min-count) are not.
	other, err := model.NewEmbeddings(2, []string{"the", "cat", "emu"}, []float32{0.1, 0.1, 2, -2, -2, 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	otherPath := filepath.Join(dir, "other.txt")
	if err := model.SaveEmbeddings(otherPath, other, false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, "rare-pairs", "--embeddings", base, "--counts", counts, "--subwords", base, "--subword-ngrams", ngrams,
		"--subword-outputs", otherPath, "--stopwords", "1", pairs, ctxDir); err == nil || !strings.Contains(err.Error(), "--subword-outputs") {
		t.Fatalf("outputs of another model: %v", err)
	}
	words, _ := writeSubwords(t) // cat and dog only
	if _, _, err := run(t, "rare-pairs", "--embeddings", base, "--counts", counts, "--subwords", words, "--subword-ngrams", ngrams,
		"--subword-outputs", outputs, "--stopwords", "1", pairs, ctxDir); err != nil {
		t.Fatalf("outputs holding more words than --subwords: %v", err)
	}
}

// The sentences with the rare word and its contexts without it are sampled
// alike: the i-th of one is the i-th of the other with the word left in.
func TestRareSentencesMatchContexts(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for i := range 12 {
		lines = append(lines, fmt.Sprintf("w%d zorb w%d", i, i+100))
	}
	lines = append(lines, "zorb", "zorb zorb") // nothing but the word: in neither
	if err := os.WriteFile(filepath.Join(dir, "zorb.txt"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tok := model.DefaultTokenizer()
	ctx, err := LoadRareContexts(dir, "zorb", tok)
	if err != nil {
		t.Fatal(err)
	}
	full, err := LoadRareSentences(dir, "zorb", tok)
	if err != nil || len(full) != 12 || len(ctx) != 12 {
		t.Fatalf("%d sentences, %d contexts (%v): want 12 of each", len(full), len(ctx), err)
	}
	words := []string{"zorb"}
	for trial := range 3 {
		c := rareSample(map[string][][]string{"zorb": ctx}, words, 5, trial, 9)["zorb"]
		f := rareSample(map[string][][]string{"zorb": full}, words, 5, trial, 9)["zorb"]
		for i := range c {
			if !slices.Equal(dropWord(f[i], "zorb"), c[i]) || !slices.Contains(f[i], "zorb") {
				t.Fatalf("trial %d, sample %d: sentence %q, context %q", trial, i, f[i], c[i])
			}
		}
	}
}
