package eval

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/corpus"
)

func TestSelectVecMapWords(t *testing.T) {
	var words []string
	var counts []int64
	for i := 0; i < 40; i++ {
		words = append(words, "w"+strings.Repeat("x", i%5)+string(rune('a'+i%26))+string(rune('a'+i/26)))
		counts = append(counts, 1000+int64(i))
	}
	words = append(words, "ab1", "z", "rare", "huge")
	counts = append(counts, 5000, 5000, 10, 1_000_000)
	cfg := VecMapSelection{MinCount: 1000, MaxCount: 5000, Buckets: 3, PerBucket: 4, Seed: 7}
	pref := map[string]int{words[3]: 4, "rare": 1, words[5]: 3} // 3 is no bucket size
	sel, err := SelectVecMapWords(words, counts, pref, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(sel) != 12 {
		t.Fatalf("%d words selected, want 12", len(sel))
	}
	seen := map[string]bool{}
	perBucket := map[int]int{}
	for _, w := range sel {
		if seen[w.Word] || !QualifiesForVecMap(w.Word) || w.Word == "rare" || w.Word == "huge" {
			t.Fatalf("bad selection %+v", sel)
		}
		seen[w.Word] = true
		perBucket[w.Occurrences]++
		if w.Word == words[3] && w.Occurrences != 4 {
			t.Fatalf("preferred word %s in bucket %d, want 4", w.Word, w.Occurrences)
		}
	}
	if !seen[words[3]] || perBucket[1] != 4 || perBucket[2] != 4 || perBucket[4] != 4 {
		t.Fatalf("buckets %v, preferred kept %v", perBucket, seen[words[3]])
	}
	again, _ := SelectVecMapWords(words, counts, pref, cfg)
	for i := range sel {
		if sel[i] != again[i] {
			t.Fatal("selection is not deterministic for a seed")
		}
	}
	cfg.PerBucket = 20
	if _, err := SelectVecMapWords(words, counts, nil, cfg); err == nil || !strings.Contains(err.Error(), "need 60") {
		t.Fatalf("too few candidates: error = %v", err)
	}
}

func TestDownsampleAndContexts(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 50; i++ {
		b.WriteString("alpha beta gamma. delta alpha epsilon beta\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "c.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := corpus.Read(context.Background(), []string{dir}, corpus.Options{Tokenizer: model.DefaultTokenizer(), Sentences: true})
	if err != nil {
		t.Fatal(err)
	}
	words := []VecMapWord{{"alpha", 4}, {"beta", 1}}
	del, err := Downsample(c, words, 3)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "down.txt")
	if err := WriteTokenized(out, c, del); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if n := strings.Count(" "+strings.ReplaceAll(text, "\n", " ")+" ", " alpha "); n != 4 {
		t.Fatalf("alpha kept %d times, want 4", n)
	}
	if n := strings.Count(" "+strings.ReplaceAll(text, "\n", " ")+" ", " beta "); n != 1 {
		t.Fatalf("beta kept %d times, want 1", n)
	}
	if n := strings.Count(text, "gamma"); n != 50 {
		t.Fatalf("gamma %d times, want all 50", n)
	}
	// Sentences are lines: 100 sentences, none empty.
	if n := strings.Count(text, "\n"); n != 100 {
		t.Fatalf("%d lines, want 100", n)
	}
	cs := CollectContexts(c, words, del, 1)
	if cs[0].Word != "alpha" || len(cs[0].Contexts) != 4 || len(cs[1].Contexts) != 1 {
		t.Fatalf("contexts %+v", cs)
	}
	for _, ctx := range cs[0].Contexts {
		if len(ctx) > 3 || !containsStr(ctx, "alpha") || containsStr(ctx, "beta") && len(cs[1].Contexts) == 0 {
			t.Fatalf("context %q: want a window of ≤ 1 word each side around alpha", ctx)
		}
	}
	p := filepath.Join(dir, "ctx.jsonl")
	if err := WriteContexts(p, cs); err != nil {
		t.Fatal(err)
	}
	back, err := LoadContexts(p)
	if err != nil || len(back) != 2 || strings.Join(back[0].Contexts[0], " ") != strings.Join(cs[0].Contexts[0], " ") {
		t.Fatalf("contexts round trip: %+v, %v", back, err)
	}
	if _, err := Downsample(c, []VecMapWord{{"gamma", 51}}, 1); err == nil {
		t.Fatal("more occurrences than exist: want an error")
	}
}

func TestVecMapScoresRotatedSpace(t *testing.T) {
	const d = 4
	rng := rand.New(rand.NewPCG(9, 9))
	goldV := map[string][]float32{}
	var dict []string
	for i := 0; i < 60; i++ {
		w := "d" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		dict = append(dict, w)
	}
	test := []VecMapWord{{"t1", 1}, {"t2", 1}, {"t3", 2}}
	for _, w := range append(append([]string{}, dict...), "t1", "t2", "t3") {
		v := make([]float32, d)
		for k := range v {
			v[k] = float32(rng.NormFloat64())
		}
		goldV[w] = v
	}
	// Centering covers the test words too (VecMap normalizes whole matrices), so t1 is ≈ 1, not exactly 1.
	// The model space is gold rotated by 90° in the first plane, except t2 (noise) and t3 (missing).
	space := func(w string) []float32 {
		if w == "t3" {
			return nil
		}
		g := goldV[w]
		if w == "t2" {
			return []float32{g[1], g[0], -g[3], g[2]}
		}
		return []float32{-g[1], g[0], g[2], g[3]}
	}
	gold := func(w string) []float32 { return goldV[w] }
	cos, n, err := VecMapScores(gold, space, d, dict, test)
	if err != nil {
		t.Fatal(err)
	}
	if n != 60 || math.Abs(cos[0]-1) > 1e-3 || cos[1] > 0.9 || cos[2] != 0 {
		t.Fatalf("cosines %v over %d dictionary pairs: want t1 ≈ 1, t2 < 0.9, t3 = 0", cos, n)
	}
	occ, mean := VecMapBuckets(test, cos)
	if len(occ) != 2 || occ[0] != 1 || math.Abs(mean[0]-50*(cos[0]+cos[1])) > 1e-9 || mean[1] != 0 {
		t.Fatalf("buckets %v %v", occ, mean)
	}
	better, worse := Wins(test, []float64{1, 0, 0}, cos)
	if better[1] != 1 || worse[1] != 0 && cos[1] <= 0 {
		t.Fatalf("wins %v %v", better, worse)
	}
}

func TestLoadVecMapLists(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "selected-words-16.txt")
	if err := os.WriteFile(p, []byte("Opus\naerobics\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := LoadVecMapLists([]string{p})
	if err != nil || m["opus"] != 16 || m["aerobics"] != 16 {
		t.Fatalf("lists %v, %v", m, err)
	}
	bad := filepath.Join(dir, "words.txt")
	if err := os.WriteFile(bad, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadVecMapLists([]string{bad}); err == nil || !strings.Contains(err.Error(), "-N.txt") {
		t.Fatalf("name without N: error = %v", err)
	}
}
