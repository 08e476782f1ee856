package amtrain

import (
	"compress/gzip"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/model"
)

// tinyBase gives base vectors to the words named, the rest are "unknown".
func tinyBase(t testing.TB, words ...string) *model.Embeddings {
	t.Helper()
	e, err := model.NewEmbeddings(2, words, make([]float32, 2*len(words)), nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func openTiny(t testing.TB, corpus string) (*Index, string) {
	t.Helper()
	dir := t.TempDir()
	p := writeFile(t, dir, "c.txt", corpus)
	x, err := OpenIndex(context.Background(), []string{p}, model.DefaultTokenizer(), dir, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x, dir
}

// words returns the base words of ids.
func words(e *model.Embeddings, ids []int32) []string {
	var out []string
	for _, id := range ids {
		out = append(out, e.Words[id])
	}
	return out
}

func TestIndexPositionsAndCounts(t *testing.T) {
	x, _ := openTiny(t, "The cat sat.\n\nthe DOG, the cat!\n")
	if x.Lines() != 2 {
		t.Errorf("lines = %d, want 2 (the blank line has no tokens)", x.Lines())
	}
	if x.Tokens() != 7 {
		t.Errorf("tokens = %d, want 7", x.Tokens())
	}
	want := map[string]int64{"the": 3, "cat": 2, "sat": 1, "dog": 1}
	for w, c := range want {
		id, ok := x.ID(w)
		if !ok || x.Count(id) != c || int64(len(x.Positions(id))) != c {
			t.Errorf("%s: ok=%v count=%d, want %d", w, ok, x.Count(id), c)
		}
		for _, p := range x.Positions(id) {
			if x.tokens[p] != id {
				t.Errorf("%s: position %d holds token %d", w, p, x.tokens[p])
			}
		}
	}
	if _, ok := x.ID("The"); ok {
		t.Error("the tokenizer lowercases; \"The\" must not be a type")
	}
}

func TestContextWindowLinesAndTarget(t *testing.T) {
	// A 60-word line w0..w59 with the target at 30.
	var line []string
	for i := 0; i < 60; i++ {
		line = append(line, "w"+strconv.Itoa(i))
	}
	line[30] = "target"
	line[32] = "target" // another occurrence inside the window: dropped too
	line[28] = "unk"    // no base vector: dropped but counts toward the window
	corpus := "before line words\n" + strings.Join(line, " ") + "\nafter line\n"
	x, _ := openTiny(t, corpus)
	var baseWords []string
	for i := 0; i < 60; i++ {
		baseWords = append(baseWords, "w"+strconv.Itoa(i))
	}
	baseWords = append(baseWords, "target", "before", "line", "words", "after")
	base := tinyBase(t, baseWords...)
	s := NewSampler(x, base, 25)
	tid, _ := x.ID("target")
	pos := x.Positions(tid)
	if len(pos) != 2 {
		t.Fatalf("target occurs %d times, want 2", len(pos))
	}
	got := words(base, s.AppendContext(nil, tid, pos[0]))
	var want []string
	for i := 5; i <= 55; i++ { // 25 left (5..29), 25 right (31..55)
		if i == 30 || i == 32 || i == 28 {
			continue
		}
		want = append(want, "w"+strconv.Itoa(i))
	}
	if !slices.Equal(got, want) {
		t.Errorf("context =\n%v\nwant\n%v", got, want)
	}
	// Near the start of a line, the window stops at the line boundary.
	w1, _ := x.ID("w1")
	got = words(base, s.AppendContext(nil, w1, x.Positions(w1)[0]))
	if got[0] != "w0" || slices.Contains(got, "words") || len(got) != 26 {
		t.Errorf("context of w1 = %v: want w0, w2..w26 only (no previous line)", got)
	}
	// Near the end: stops before the next line.
	w58, _ := x.ID("w58")
	got = words(base, s.AppendContext(nil, w58, x.Positions(w58)[0]))
	if slices.Contains(got, "after") || got[len(got)-1] != "w59" || got[0] != "w33" {
		t.Errorf("context of w58 = %v: want w33..w59 without the next line", got)
	}
	// A one-word line has an empty context.
	x2, _ := openTiny(t, "alone\nw1 w2\n")
	s2 := NewSampler(x2, base, 25)
	a, _ := x2.ID("alone")
	if c := s2.AppendContext(nil, a, x2.Positions(a)[0]); len(c) != 0 {
		t.Errorf("context of a one-word line = %v, want empty", c)
	}
}

func TestIndexCache(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "c.txt", "a b c\nb c d\n")
	tok := model.DefaultTokenizer()
	x1, err := OpenIndex(context.Background(), []string{p}, tok, dir, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	x1.Close()
	files, _ := filepath.Glob(filepath.Join(dir, "amindex-*.idx"))
	if len(files) != 1 {
		t.Fatalf("cache files = %v, want one", files)
	}
	st1, _ := os.Stat(files[0])
	x2, err := OpenIndex(context.Background(), []string{p}, tok, dir, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	st2, _ := os.Stat(files[0])
	if !st1.ModTime().Equal(st2.ModTime()) {
		t.Error("the second open rebuilt the index instead of using the cache")
	}
	if id, _ := x2.ID("c"); x2.Count(id) != 2 {
		t.Errorf("cached index: count(c) = %d, want 2", x2.Count(id))
	}
	x2.Close()
	// Changing the corpus changes the key: a new index with the new counts.
	time.Sleep(10 * time.Millisecond)
	writeFile(t, dir, "c.txt", "a b c\nb c d c\n")
	x3, err := OpenIndex(context.Background(), []string{p}, tok, dir, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	defer x3.Close()
	if id, _ := x3.ID("c"); x3.Count(id) != 3 {
		t.Errorf("after editing the corpus: count(c) = %d, want 3", x3.Count(id))
	}
	// A corrupt cache file (one flipped byte in the token stream) is rebuilt, not trusted.
	files, _ = filepath.Glob(filepath.Join(dir, "amindex-*.idx"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		b[indexHeaderSize+5] ^= 0x40
		os.WriteFile(f, b, 0o644)
		if _, err := loadIndex(f, binary.LittleEndian.Uint64(b[8+8*2:])); err == nil || !strings.Contains(err.Error(), "checksum") {
			t.Errorf("corrupt index loaded: %v", err)
		}
	}
	x4, err := OpenIndex(context.Background(), []string{p}, tok, dir, quietLog())
	if err != nil {
		t.Fatalf("corrupt cache: %v", err)
	}
	defer x4.Close()
	if id, _ := x4.ID("c"); x4.Count(id) != 3 {
		t.Errorf("rebuilt index: count(c) = %d, want 3", x4.Count(id))
	}
}

func TestIndexGzipAndDirectory(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "corpus")
	os.Mkdir(sub, 0o755)
	writeFile(t, sub, "a.txt", "one two\n")
	f, _ := os.Create(filepath.Join(sub, "b.txt.gz"))
	gz := gzip.NewWriter(f)
	gz.Write([]byte("two three\nthree"))
	gz.Close()
	f.Close()
	writeFile(t, sub, ".hidden", "secret\n")
	x, err := OpenIndex(context.Background(), []string{sub}, model.DefaultTokenizer(), dir, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if x.Lines() != 3 || x.Tokens() != 5 {
		t.Errorf("lines %d tokens %d, want 3 and 5", x.Lines(), x.Tokens())
	}
	if _, ok := x.ID("secret"); ok {
		t.Error("hidden files must be skipped")
	}
}

func TestCorpusErrors(t *testing.T) {
	dir := t.TempDir()
	tok := model.DefaultTokenizer()
	cases := map[string]struct {
		paths []string
		want  string
	}{
		"missing":   {[]string{filepath.Join(dir, "nope.txt")}, "no such file"},
		"empty":     {[]string{writeFile(t, dir, "empty.txt", "")}, "no words"},
		"no words":  {[]string{writeFile(t, dir, "punct.txt", "... !!! ,,,\n")}, "no words"},
		"bad gzip":  {[]string{writeFile(t, dir, "bad.gz", "\x1f\x8b\x08\x00garbage")}, "bad.gz"},
		"empty dir": {[]string{mkdir(t, dir, "emptydir")}, "emptydir: no files"},
	}
	for name, c := range cases {
		_, err := OpenIndex(context.Background(), c.paths, tok, dir, quietLog())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", name, err, c.want)
		}
	}
}

func mkdir(t *testing.T, dir, name string) string {
	p := filepath.Join(dir, name)
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSampleDistinct(t *testing.T) {
	r := newRNG(1)
	for _, c := range []struct{ n, k int }{{10, 1}, {10, 10}, {100, 64}, {1, 1}, {5, 3}} {
		for rep := 0; rep < 50; rep++ {
			got := sampleDistinct(nil, &r, c.n, c.k)
			if len(got) != c.k {
				t.Fatalf("n=%d k=%d: got %d values", c.n, c.k, len(got))
			}
			seen := map[int]bool{}
			for _, v := range got {
				if v < 0 || v >= c.n || seen[v] {
					t.Fatalf("n=%d k=%d: bad sample %v", c.n, c.k, got)
				}
				seen[v] = true
			}
		}
	}
	// Uniformity: every element of [0,10) is picked about equally often with k=3.
	hist := make([]int, 10)
	for rep := 0; rep < 20000; rep++ {
		for _, v := range sampleDistinct(nil, &r, 10, 3) {
			hist[v]++
		}
	}
	for i, h := range hist {
		if h < 5400 || h > 6600 { // expectation 6000
			t.Errorf("element %d picked %d times, want ≈ 6000", i, h)
		}
	}
}

// TestContextMatchesContextIDs checks the sampler against model.ContextIDs
// on every occurrence of every word of a corpus: the window of ±3 tokens of
// the raw line, target and unknown words dropped.
func TestContextMatchesContextIDs(t *testing.T) {
	lines := []string{
		"a b c a d e f g a",
		"x a y",
		"a",
		"b b b c unknownword c a b",
	}
	x, _ := openTiny(t, strings.Join(lines, "\n")+"\n")
	base := tinyBase(t, "a", "b", "c", "d", "e", "f", "g", "x", "y")
	m, err := model.New(model.Config{Dim: 2, Mode: model.ModeAM, Ngram: model.DefaultNgramConfig(), Tokenizer: model.DefaultTokenizer()},
		model.BuildNgramVocab([]string{"a", "b"}, model.DefaultNgramConfig()), base, 1)
	if err != nil {
		t.Fatal(err)
	}
	const window = 3
	s := NewSampler(x, base, window)
	for _, target := range []string{"a", "b", "c", "unknownword"} {
		id, _ := x.ID(target)
		pos := x.Positions(id)
		k := 0
		for _, line := range lines {
			toks := model.DefaultTokenizer().AppendTokens(nil, line)
			for i, tk := range toks {
				if tk != target {
					continue
				}
				win := append(append([]string(nil), toks[max(0, i-window):i]...), toks[i+1:min(len(toks), i+1+window)]...)
				want := m.ContextIDs(nil, win, target)
				got := s.AppendContext(nil, id, pos[k])
				if !slices.Equal(got, want) {
					t.Errorf("%q occurrence %d: context %v, ContextIDs gives %v", target, k, words(base, got), words(base, want))
				}
				k++
			}
		}
		if k != len(pos) {
			t.Errorf("%q: %d occurrences in the text, %d in the index", target, k, len(pos))
		}
	}
}
