package eval

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
	"github.com/text2vec-am/text2vec-am/trainer/eval/stats"
)

func TestRarePairsSetup(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "zorb.txt"), []byte("the zorb plays music\n\nmusic by a zorb\nzorb zorb\nzorb songs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "blip.txt"), []byte("blip bread food\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pairs := []dataset.WordPair{{A: "guitar", B: "zorb", Score: 9}, {A: "blip", B: "bread", Score: 8}, {A: "bread", B: "zorb", Score: 1}, {A: "x", B: "y", Score: 3}}
	tok := model.DefaultTokenizer()
	rp, ctx, without, err := RarePairsSetup(pairs, dir, tok)
	if err != nil {
		t.Fatal(err)
	}
	// Every pair is kept; the one without contexts takes its second word as the rare one.
	if without != 1 || len(rp) != 4 || rp[1] != (RarePair{Common: "bread", Rare: "blip", Score: 8}) || rp[3] != (RarePair{Common: "x", Rare: "y", Score: 3}) {
		t.Fatalf("setup: %+v, %d without contexts", rp, without)
	}
	// The rare word is removed from its sentences; "zorb zorb" leaves nothing and is dropped.
	if len(ctx) != 2 || len(ctx["zorb"]) != 3 || strings.Join(ctx["zorb"][0], " ") != "the plays music" || strings.Join(ctx["zorb"][2], " ") != "songs" {
		t.Fatalf("contexts: %q", ctx)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	s := SampleK(ctx, []string{"zorb", "blip"}, 2, rng)
	if len(s["zorb"]) != 2 || len(s["blip"]) != 1 {
		t.Fatalf("SampleK: %v", s)
	}
	if c, err := LoadRareContexts(dir, "missing", tok); err != nil || c != nil {
		t.Fatalf("missing context file: %v, %v", c, err)
	}
}

func TestRarePairsScoreEveryPair(t *testing.T) {
	rp := []RarePair{{"guitar", "zorb", 9}, {"bread", "blip", 8}, {"bread", "zorb", 1}, {"nothing", "zorb", 5}}
	e := testEmbeddings(t, []string{"guitar", "bread", "music"}, [][]float32{{1, 0}, {0, 1}, {1, 0.1}}, nil)
	rare := map[string][]float32{"zorb": {1, 0.2}} // blip has no vector, nor has "nothing"
	rho, missing := RarePairsScore(rp, EmbeddingLookup(e), rare)
	// cosines .98, 0, .196, 0 vs gold 9, 8, 1, 5: ranks 4, 1.5, 3, 1.5 vs 4, 3, 1, 2.
	want := stats.Spearman([]float64{0.98, 0, 0.196, 0}, []float64{9, 8, 1, 5})
	if missing != 2 || math.Abs(rho-want) > 1e-12 {
		t.Fatalf("ρ = %v with %d missing, want %v with 2", rho, missing, want)
	}
}

func TestRarePairsRunAveragesTrials(t *testing.T) {
	rp := []RarePair{{"a", "r1", 1}, {"b", "r2", 2}, {"c", "r3", 3}}
	common := func(w string) []float32 { return []float32{0, 1} }
	calls := 0
	// Call n gives ρ = +1 (n even) or −1 (n odd): cosines rising or falling with the gold.
	flip := func(map[string][][]string) (map[string][]float32, error) {
		s := float32(1)
		if calls%2 == 1 {
			s = -1
		}
		calls++
		return map[string][]float32{"r1": {1, -s * 1}, "r2": {1, 0}, "r3": {1, s * 1}}, nil
	}
	constCalls := 0
	fixed := func(map[string][][]string) (map[string][]float32, error) {
		constCalls++
		return map[string][]float32{"r1": {1, 0}}, nil
	}
	rows := []rareRow{{name: "flip", common: common, minK: 1, infer: flip}, {name: "fixed", common: common, constant: true, infer: fixed}}
	contexts := map[string][][]string{"r1": {{"x"}, {"y"}}}
	res, err := rarePairsRun(context.Background(), rp, rareSamples{contexts: contexts}, []string{"r1", "r2", "r3"}, rows, []int{0, 1, 2}, 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	// flip: k = 1 calls 0, 1, 2 → (1 − 1 + 1)/3; k = 2 calls 3, 4, 5 → (−1 + 1 − 1)/3; no k = 0.
	if calls != 6 || math.Abs(res[0].rho[1]-1.0/3) > 1e-12 || math.Abs(res[0].rho[2]+1.0/3) > 1e-12 || res[0].rho[0] != 0 {
		t.Fatalf("flip: %d calls, ρ %v", calls, res[0].rho)
	}
	// fixed: computed once, two of three pairs without a rare vector at every k.
	if constCalls != 1 || res[1].missing[0] != 2 || res[1].missing[2] != 2 {
		t.Fatalf("fixed: %d calls, missing %v", constCalls, res[1].missing)
	}
}

func TestMixUnit(t *testing.T) {
	got := MixUnit([]float32{3, 0}, []float32{0, 0.5})
	if math.Abs(float64(got[0])-0.5) > 1e-6 || math.Abs(float64(got[1])-0.5) > 1e-6 {
		t.Fatalf("MixUnit = %v, want [0.5 0.5]", got)
	}
	if MixUnit(nil, nil) != nil || MixUnit([]float32{0, 0}, []float32{1, 2})[1] != 2 {
		t.Fatal("MixUnit with a missing side must return the other")
	}
}

func TestEvalRarePairsCommand(t *testing.T) {
	emb, counts := tinyEmbeddings(t)
	dir := t.TempDir()
	// zorb's sentences: music words and the stop word "the" (the most frequent word).
	if err := os.WriteFile(filepath.Join(dir, "zorb.txt"), []byte("the zorb guitar music\nthe the zorb music\nzorb the guitar\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "blip.txt"), []byte("the blip bread food\nthe blip food\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pairs := writeFile(t, "rp.txt", "music zorb 9\nbread zorb 1\nfood blip 8\nguitar blip 2\nunknownword qqq 5\n")
	out, _, err := run(t, "rare-pairs", "--embeddings", emb, "--counts", counts, "--stopwords", "1", "--max-k", "2", "--trials", "2", pairs, dir)
	if err != nil {
		t.Fatal(err)
	}
	// Every pair is scored, the one without any vector too (cosine 0).
	if !strings.Contains(out, "All 5 pairs scored (1 with a rare word without contexts)") {
		t.Fatalf("output:\n%s", out)
	}
	var addLine, missLine string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| additive − sw") {
			if addLine == "" {
				addLine = l
			} else {
				missLine = l
			}
		}
	}
	cells := strings.Split(addLine, "|")
	if len(cells) < 6 || strings.TrimSpace(cells[2]) != "–" {
		t.Fatalf("additive row %q: want no value at k = 0", addLine)
	}
	// The additive row's missing count: the unknown pair at every k ≥ 1.
	if mc := strings.Split(missLine, "|"); strings.TrimSpace(mc[3]) != "1" || strings.TrimSpace(mc[4]) != "1" {
		t.Fatalf("missing row %q: want 1 pair without a vector at k = 1, 2", missLine)
	}
	// Without stop-word removal "the" dominates both additive vectors and ρ falls.
	outSW, _, err := run(t, "rare-pairs", "--embeddings", emb, "--counts", counts, "--stopwords", "0", "--max-k", "2", "--trials", "2", pairs, dir)
	if err != nil {
		t.Fatal(err)
	}
	rho := func(out string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "| additive − sw") {
				return strings.TrimSpace(strings.Split(l, "|")[4])
			}
		}
		return ""
	}
	if rho(out) == rho(outSW) {
		t.Fatalf("stop words removed or not, the same ρ at k = 2 (%s): the stop list has no effect", rho(out))
	}
}

func TestMeanVectorAndBlendCentred(t *testing.T) {
	e, err := model.NewEmbeddings(2, []string{"a", "b"}, []float32{1, 3, 3, 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if mu := MeanVector(e); mu[0] != 2 || mu[1] != 3 {
		t.Fatalf("MeanVector = %v, want [2 3]", mu)
	}
	mu := []float32{2, 3}
	// add − mu = (0, 2): unit (0, 1) at weight k/(k+c) = 2/(2+2) = ½; am unit (1, 0).
	got := BlendCentred([]float32{5, 0}, []float32{2, 5}, mu, 2, 2)
	if math.Abs(float64(got[0])-1) > 1e-6 || math.Abs(float64(got[1])-0.5) > 1e-6 {
		t.Fatalf("BlendCentred = %v, want [1 0.5]", got)
	}
	// The weight grows with k: 6/(6+2) = ¾.
	if got := BlendCentred([]float32{5, 0}, []float32{2, 5}, mu, 6, 2); math.Abs(float64(got[1])-0.75) > 1e-6 {
		t.Fatalf("BlendCentred at k = 6 = %v, want second component 0.75", got)
	}
	am := []float32{5, 0}
	for _, c := range []struct {
		name string
		add  []float32
		k    int
	}{{"no additive", nil, 2}, {"no contexts", []float32{2, 5}, 0}, {"additive equal to the mean", []float32{2, 3}, 2},
		{"additive the mean up to rounding", []float32{2, 3 + 2e-7}, 2}} {
		if got := BlendCentred(am, c.add, mu, c.k, 2); &got[0] != &am[0] {
			t.Fatalf("%s: BlendCentred = %v, want am itself", c.name, got)
		}
	}
	if got := BlendCentred(nil, []float32{2, 5}, mu, 2, 2); got[0] != 0 || got[1] != 2 {
		t.Fatalf("BlendCentred without am = %v, want the centred additive [0 2]", got)
	}
}

func TestEvalRarePairsContextBlend(t *testing.T) {
	emb, counts := tinyEmbeddings(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "zorb.txt"), []byte("the zorb guitar music\nthe zorb music\nzorb the guitar\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pairs := writeFile(t, "rp.txt", "music zorb 9\nbread zorb 1\nfood zorb 2\nlinux zorb 3\n")
	am := saveTinyModel(t, emb, model.ModeAM)
	args := []string{"rare-pairs", "--embeddings", emb, "--counts", counts, "--am", am, "--stopwords", "1", "--max-k", "2", "--trials", "1"}
	row := func(out, prefix string) []string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, prefix) {
				return strings.Split(l, "|")
			}
		}
		t.Fatalf("no row %q in:\n%s", prefix, out)
		return nil
	}
	out, _, err := run(t, append(args, "--context-blend", "2", pairs, dir)...)
	if err != nil {
		t.Fatal(err)
	}
	blend, amRow := row(out, "| AM + k/(k+2)·centred additive − sw"), row(out, "| AM (am)")
	// k = 0: no contexts, the blend is the AM form itself.
	if strings.TrimSpace(blend[2]) != strings.TrimSpace(amRow[2]) {
		t.Fatalf("k = 0: blend %q, AM %q: want the same", blend[2], amRow[2])
	}
	// k = 2: the contexts move the blend away from AM (cells 4 = k = 2).
	if strings.TrimSpace(blend[4]) == strings.TrimSpace(amRow[4]) {
		t.Fatalf("k = 2: blend %q equals AM %q: the contexts' mean was not added", blend[4], amRow[4])
	}
	plain, _, err := run(t, append(args, pairs, dir)...)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain, "centred additive") {
		t.Fatal("without --context-blend the blend row must not appear")
	}
	for _, c := range []struct{ flag, want string }{
		{"-1", "--context-blend must be a finite number ≥ 0"},
		{"NaN", "--context-blend must be a finite number ≥ 0"},
		{"+Inf", "--context-blend must be a finite number ≥ 0"},
	} {
		if _, _, err := run(t, append(args, "--context-blend", c.flag, pairs, dir)...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("--context-blend %s: err %v, want %q", c.flag, err, c.want)
		}
	}
	if _, _, err := run(t, "rare-pairs", "--embeddings", emb, "--context-blend", "2", pairs, dir); err == nil || !strings.Contains(err.Error(), "--context-blend needs --am") {
		t.Fatalf("without --am: err %v", err)
	}
}

// blendRow blends each word's own AM vector and additive vector, centred by
// the given mean, at the weight of that word's own number of contexts.
func TestBlendRow(t *testing.T) {
	am := map[string][]float32{"a": {1, 0}, "b": {0, 2}}
	add := map[string][]float32{"a": {1, 3}, "b": {4, 1}}
	var gotCtx map[string][][]string
	infer := func(c map[string][][]string) map[string][]float32 { gotCtx = c; return am }
	addAll := func(map[string][][]string) map[string][]float32 { return add }
	mu := []float32{1, 1}
	row := blendRow(infer, addAll, mu, []string{"a", "b"}, nil, 3)
	ctxs := map[string][][]string{"a": {{"x"}}, "b": {{"x"}, {"y"}, {"z"}}}
	out, err := row.infer(ctxs)
	if err != nil {
		t.Fatal(err)
	}
	if gotCtx == nil || len(gotCtx["b"]) != 3 {
		t.Fatal("blendRow must infer AM from the contexts it is given")
	}
	for w, k := range map[string]int{"a": 1, "b": 3} {
		want := BlendCentred(am[w], add[w], mu, k, 3)
		if out[w][0] != want[0] || out[w][1] != want[1] {
			t.Fatalf("%s: %v, want %v (k = %d)", w, out[w], want, k)
		}
	}
	// a: (1,3) − (1,1) = (0,2), unit (0,1) at weight 1/(1+3): [1 0.25].
	if math.Abs(float64(out["a"][1])-0.25) > 1e-6 {
		t.Fatalf("a: %v, want [1 0.25]", out["a"])
	}
}

// A zero vector (a context-only model's vector of a word without contexts)
// is no vector: cosine 0 and counted as missing, whichever side it is on.
func TestRarePairsScoreZeroVectorIsMissing(t *testing.T) {
	rp := []RarePair{{"guitar", "zorb", 9}, {"bread", "blip", 8}, {"zero", "zorb", 1}}
	e := testEmbeddings(t, []string{"guitar", "bread", "zero"}, [][]float32{{1, 0}, {0, 1}, {0, 0}}, nil)
	rare := map[string][]float32{"zorb": {1, 0.2}, "blip": {0, 0}}
	rho, missing := RarePairsScore(rp, EmbeddingLookup(e), rare)
	want := stats.Spearman([]float64{0.98, 0, 0}, []float64{9, 8, 1})
	if missing != 2 || math.Abs(rho-want) > 1e-12 {
		t.Fatalf("ρ = %v with %d missing, want %v with 2 (zero vectors count as missing)", rho, missing, want)
	}
}

// A model trained context-only has no form: its row has no k = 0 value, the
// ½ AM form row and the blend's k = 0 value are left out, and a rare word
// without contexts (a zero vector) is counted as missing.
func TestEvalRarePairsContextOnlyModel(t *testing.T) {
	emb, counts := tinyEmbeddings(t)
	dir := contextDir(t, map[string]string{"zorb": "the zorb guitar music\nthe zorb music\n"})
	// blip has no contexts: the context-only model gives it the zero vector at every k.
	pairs := writeFile(t, "rp.txt", "music zorb 9\nbread zorb 1\nfood blip 2\nlinux zorb 3\n")
	am := saveTinyModel(t, emb, model.ModeContext)
	out, _, err := run(t, "rare-pairs", "--embeddings", emb, "--counts", counts, "--am", am, "--context-blend", "2",
		"--stopwords", "1", "--max-k", "2", "--trials", "1", pairs, dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "AM form") {
		t.Fatalf("a context-only model has no form, yet a form row is printed:\n%s", out)
	}
	var rows [][]string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| AM (context)") || strings.HasPrefix(l, "| AM + k/(k+2)") {
			rows = append(rows, strings.Split(l, "|"))
		}
	}
	if len(rows) != 4 { // AM and blend, in the ρ table and in the missing table
		t.Fatalf("want the AM (context) and blend rows in both tables, got %d rows:\n%s", len(rows), out)
	}
	for _, r := range rows {
		if strings.TrimSpace(r[2]) != "–" {
			t.Fatalf("row %q: want no value at k = 0 (no form)", strings.Join(r, "|"))
		}
	}
	// Missing table (rows 2 and 3): blip's pair at k = 1 and k = 2.
	for _, r := range rows[2:] {
		if strings.TrimSpace(r[3]) != "1" || strings.TrimSpace(r[4]) != "1" {
			t.Fatalf("missing row %q: want 1 pair without a vector at k = 1, 2", strings.Join(r, "|"))
		}
	}
}

// contextDir writes a CONTEXT_DIR of rare-pairs: WORD.txt holding the
// sentences files gives each word.
func contextDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for w, text := range files {
		if err := os.WriteFile(filepath.Join(dir, w+".txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// contextCounts doubles k up to maxK and stops there, however large maxK:
// k never overflows into negative or zero values that would append forever.
func TestContextCountsNeverOverflow(t *testing.T) {
	for _, c := range []struct {
		maxK int
		want []int
	}{{1, []int{0, 1}}, {2, []int{0, 1, 2}}, {6, []int{0, 1, 2, 4}}, {8, []int{0, 1, 2, 4, 8}}} {
		if got := contextCounts(c.maxK); !slices.Equal(got, c.want) {
			t.Errorf("contextCounts(%d) = %v, want %v", c.maxK, got, c.want)
		}
	}
	for _, maxK := range []int{1 << 62, math.MaxInt} {
		ks := contextCounts(maxK)
		if len(ks) != 64 || ks[63] != 1<<62 {
			t.Errorf("contextCounts(%d): %d values ending in %d, want 0 and 2^0 … 2^62", maxK, len(ks), ks[len(ks)-1])
		}
	}
}

// Each bad flag of rare-pairs is a usage error naming that flag and its
// value; --plot needs two values of k (its log axis cannot be drawn around
// one), refused before any work and before the file is created.
func TestEvalRarePairsFlagErrors(t *testing.T) {
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--max-k", "0"}, "--max-k must be in 1..2^20 (1048576), got 0"},
		{[]string{"--max-k", "1048577"}, "--max-k must be in 1..2^20 (1048576), got 1048577"},
		{[]string{"--max-k", "4611686018427387904"}, "got 4611686018427387904"},
		{[]string{"--max-k", "9223372036854775807"}, "got 9223372036854775807"},
		{[]string{"--trials", "0"}, "--trials must be in 1..2^16 (65536), got 0"},
		{[]string{"--trials", "65537"}, "--trials must be in 1..2^16 (65536), got 65537"},
		{[]string{"--stopwords", "-1"}, "--stopwords must be ≥ 0, got -1"},
		{[]string{"--plot", "p.png", "--max-k", "1"}, "--plot p.png needs two values of k to draw (--max-k ≥ 2), got --max-k 1"},
	} {
		args := append(append([]string{"rare-pairs", "--embeddings", "e.vec"}, c.flags...), "pairs.txt", "contexts")
		_, _, err := run(t, args...)
		if !errors.Is(err, cli.ErrUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error = %v, want a usage error with %q", c.flags, err, c.want)
		}
	}
}

// A CONTEXT_DIR that is a regular file, or missing, is an error naming it
// and its cause (no "(<nil>)").
func TestEvalRarePairsContextDirErrors(t *testing.T) {
	emb, counts := tinyEmbeddings(t)
	pairs := writeFile(t, "pairs.txt", "music zorb 9\nbread zorb 1\n")
	for _, c := range []struct{ dir, want string }{
		{pairs, "context directory " + pairs + " is not a directory"},
		{filepath.Join(t.TempDir(), "nosuch"), "no such file or directory"},
	} {
		_, _, err := run(t, "rare-pairs", "--embeddings", emb, "--counts", counts, "--stopwords", "1", pairs, c.dir)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "<nil>") {
			t.Errorf("CONTEXT_DIR %s: error = %v, want %q", c.dir, err, c.want)
		}
	}
}

// A PAIRS file on which Spearman's ρ is undefined whatever the vectors (one
// pair, or every score equal) is an error naming the file, not a table of
// undefined values.
func TestEvalRarePairsDegeneratePairs(t *testing.T) {
	emb, counts := tinyEmbeddings(t)
	dir := contextDir(t, map[string]string{"zorb": "the zorb guitar music\n"})
	for _, c := range []struct{ name, pairs, want string }{
		{"one pair", "music zorb 9\n", "holds 1 pair: Spearman's ρ needs at least two pairs with different scores"},
		{"equal scores", "music zorb 5\nbread zorb 5\nfood zorb 5\n", "all 3 pairs have the score 5: Spearman's ρ needs at least two pairs with different scores"},
	} {
		pairs := writeFile(t, "rp.txt", c.pairs)
		out, _, err := run(t, "rare-pairs", "--embeddings", emb, "--counts", counts, "--stopwords", "1", "--max-k", "2", pairs, dir)
		if err == nil || !strings.Contains(err.Error(), pairs) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error = %v, want %q naming %s\n%s", c.name, err, c.want, pairs, out)
		}
	}
}

// A PAIRS or context file line longer than dataset.MaxLineBytes is an error
// wrapping dataset.ErrLineTooLong that names the file and the line (such a
// line used to be read whole, however long).
func TestEvalRarePairsLineTooLong(t *testing.T) {
	emb, counts := tinyEmbeddings(t)
	long := strings.Repeat("x", dataset.MaxLineBytes+1)
	goodPairs := writeFile(t, "pairs.txt", "music zorb 9\nbread zorb 1\n")
	goodDir := contextDir(t, map[string]string{"zorb": "the zorb guitar music\n"})
	longPairs := writeFile(t, "long-pairs.txt", "music zorb 9\n"+long+"\n")
	longDir := contextDir(t, map[string]string{"zorb": "the zorb guitar music\n" + long + "\n"})
	for _, c := range []struct{ name, pairs, dir, where string }{
		{"PAIRS", longPairs, goodDir, longPairs + ":2:"},
		{"context file", goodPairs, longDir, filepath.Join(longDir, "zorb.txt") + ":2:"},
	} {
		_, _, err := run(t, "rare-pairs", "--embeddings", emb, "--counts", counts, "--stopwords", "1", "--max-k", "2", c.pairs, c.dir)
		if !errors.Is(err, dataset.ErrLineTooLong) || !strings.Contains(err.Error(), c.where) {
			t.Errorf("%s with a line too long: err = %v, want dataset.ErrLineTooLong naming %s", c.name, err, c.where)
		}
	}
}

// A trial whose ρ is undefined (every cosine equal) counts as ρ = 0, as a
// pair without a vector counts as cosine 0, and is counted: one undefined
// trial no longer turns the mean into NaN.
func TestRarePairsRunUndefinedTrialCountsZero(t *testing.T) {
	rp := []RarePair{{"a", "r1", 1}, {"b", "r2", 2}, {"c", "r3", 3}}
	common := func(string) []float32 { return []float32{0, 1} }
	calls := 0
	// Even calls: ρ = +1; odd calls: no vector at all, every cosine 0, ρ undefined.
	half := func(map[string][][]string) (map[string][]float32, error) {
		calls++
		if calls%2 == 0 {
			return nil, nil
		}
		return map[string][]float32{"r1": {1, -1}, "r2": {1, 0}, "r3": {1, 1}}, nil
	}
	never := func(map[string][][]string) (map[string][]float32, error) { return nil, nil }
	rows := []rareRow{{name: "half", common: common, minK: 1, infer: half}, {name: "never", common: common, constant: true, infer: never}}
	res, err := rarePairsRun(context.Background(), rp, rareSamples{}, []string{"r1", "r2", "r3"}, rows, []int{0, 1}, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].rho[1] != 0.5 || res[0].undefined[1] != 2 || res[0].missing[1] != 1.5 {
		t.Fatalf("half: ρ %v, %d undefined, %v missing; want 0.5 (two of four trials undefined, as 0), 2, 1.5", res[0].rho[1], res[0].undefined[1], res[0].missing[1])
	}
	if res[0].undefined[0] != 0 || res[1].rho[0] != 0 || res[1].undefined[0] != 4 || res[1].undefined[1] != 4 {
		t.Fatalf("never: ρ %v, undefined %v; half at k = 0: %d undefined: want ρ 0 and 4 of 4 undefined at every k", res[1].rho, res[1].undefined, res[0].undefined[0])
	}
}

// The output tells an undefined ρ (0.000†, counted in a note) from a row
// without a value at k = 0 (–, explained under the tables).
func TestEvalRarePairsUndefinedReported(t *testing.T) {
	emb, counts := tinyEmbeddings(t)
	dir := contextDir(t, map[string]string{"zorb": "the zorb guitar music\nthe zorb music\n"})
	// No common word has a vector: every cosine is 0 and ρ is undefined in every trial.
	pairs := writeFile(t, "rp.txt", "aaa zorb 1\nbbb zorb 2\nccc zorb 3\n")
	out, _, err := run(t, "rare-pairs", "--embeddings", emb, "--counts", counts, "--stopwords", "1", "--max-k", "2", "--trials", "2", pairs, dir)
	if err != nil {
		t.Fatal(err)
	}
	cells := func(out string) []string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "| additive − sw") {
				c := strings.Split(l, "|")
				for i := range c {
					c[i] = strings.TrimSpace(c[i])
				}
				return c[2:5]
			}
		}
		t.Fatalf("no additive row in:\n%s", out)
		return nil
	}
	if c := cells(out); !slices.Equal(c, []string{"–", "0.000†", "0.000†"}) {
		t.Errorf("additive row %q: want – at k = 0 (no value), 0.000† at k = 1, 2 (undefined)", c)
	}
	for _, want := range []string{
		"† ρ undefined (every cosine equal) in some trials, counted as ρ = 0",
		"- additive − sw: k=1 2 of 2, k=2 2 of 2\n",
		"–: no value, the row needs contexts",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Defined in every trial: no mark, not in the note.
	ok := writeFile(t, "ok.txt", "music zorb 9\nbread zorb 1\nfood zorb 2\n")
	out, _, err = run(t, "rare-pairs", "--embeddings", emb, "--counts", counts, "--stopwords", "1", "--max-k", "2", "--trials", "2", ok, dir)
	if err != nil {
		t.Fatal(err)
	}
	if c := cells(out); c[0] != "–" || strings.Contains(c[1]+c[2], "†") || strings.Contains(out, "- additive − sw:") {
		t.Fatalf("every ρ of the additive row defined: row %q, output:\n%s", c, out)
	}
}

// A pair word that cannot name a file of CONTEXT_DIR ("../corpus") has no
// contexts: the file outside the directory is not read, and its pair counts
// among those without contexts.
func TestRarePairsSetupUnsafeWord(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "contexts")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(parent, "corpus.txt"), []byte("secret corpus line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pairs := []dataset.WordPair{{A: "kakaiona", B: "../corpus", Score: 3}, {A: "..", B: ".", Score: 1}}
	rp, ctx, without, err := RarePairsSetup(pairs, dir, model.DefaultTokenizer())
	if err != nil {
		t.Fatal(err)
	}
	if len(ctx) != 0 || without != 2 || rp[0] != (RarePair{Common: "kakaiona", Rare: "../corpus", Score: 3}) {
		t.Fatalf("setup: %+v, contexts %q, %d without contexts: want ../corpus.txt unread, both pairs without contexts", rp, ctx, without)
	}
}

// A context file that is a symbolic link leading out of CONTEXT_DIR is an
// error naming it, not read (the secret line reached no context); a link
// inside the directory reads.
func TestRarePairsSetupContextFileOutside(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "contexts")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(parent, "secret.txt")
	if err := os.WriteFile(secret, []byte("secret corpus line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "inner.txt"), []byte("an inner line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "zorb.txt")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	// Links to a file inside the directory, however spelt: relative, absolute,
	// through ".." and back in.
	for name, target := range map[string]string{"blick": "inner.txt", "frob": filepath.Join(dir, "inner.txt"), "quux": "../contexts/inner.txt"} {
		if err := os.Symlink(target, filepath.Join(dir, name+".txt")); err != nil {
			t.Fatal(err)
		}
	}
	tok := model.DefaultTokenizer()
	pairs := []dataset.WordPair{{A: "music", B: "zorb", Score: 3}, {A: "food", B: "blick", Score: 1}, {A: "food", B: "frob", Score: 2}, {A: "food", B: "quux", Score: 4}}
	if _, ctx, _, err := RarePairsSetup(pairs, dir, tok); err == nil || !strings.Contains(err.Error(), "zorb.txt") {
		t.Errorf("a link out of the directory: err = %v (contexts %q), want an error naming zorb.txt", err, ctx)
	}
	if _, ctx, _, err := RarePairsSetup(pairs[1:], dir, tok); err != nil || len(ctx["blick"]) != 1 || len(ctx["frob"]) != 1 || len(ctx["quux"]) != 1 {
		t.Errorf("links inside the directory: contexts %q, err %v: want one line each", ctx, err)
	}
	// The context directory reached through a link reads alike.
	via := filepath.Join(t.TempDir(), "via")
	if err := os.Symlink(dir, via); err != nil {
		t.Fatal(err)
	}
	if _, ctx, _, err := RarePairsSetup(pairs[1:], via, tok); err != nil || len(ctx) != 3 {
		t.Errorf("CONTEXT_DIR a symbolic link: contexts %q, err %v: want three words", ctx, err)
	}
}

// openContextFile opens a regular file of the context directory and
// checks the open file: a missing file wraps fs.ErrNotExist, a directory
// model.ErrNotRegular; checkInContextDir refuses a path that is no longer
// the file opened (another put in its place), naming it.
func TestOpenContextFile(t *testing.T) {
	dir := contextDir(t, map[string]string{"zorb": "the zorb music\n", "blick": "a blick\n"})
	if err := os.Mkdir(filepath.Join(dir, "sub.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := openContextFile(dir, "nosuch.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: err %v, want fs.ErrNotExist", err)
	}
	if _, err := openContextFile(dir, "sub.txt"); !errors.Is(err, model.ErrNotRegular) {
		t.Errorf("a directory: err %v, want model.ErrNotRegular", err)
	}
	zorb := filepath.Join(dir, "zorb.txt")
	f, err := openContextFile(dir, "zorb.txt")
	if err != nil {
		t.Fatal(err)
	}
	opened, err := f.Stat()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := checkInContextDir(zorb, dir, opened); err != nil {
		t.Errorf("the file opened: %v", err)
	}
	blick, err := os.Stat(filepath.Join(dir, "blick.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkInContextDir(zorb, dir, blick); !errors.Is(err, errContextFileSwapped) || !strings.Contains(err.Error(), zorb) {
		t.Errorf("another file than the one opened: err %v, want errContextFileSwapped naming %s", err, zorb)
	}
}

func TestContextFile(t *testing.T) {
	for _, w := range []string{"", ".", "..", "../corpus", "a/b", `a\b`, "/etc/passwd", "a\x00b", strings.Repeat("a", 252)} {
		if p, ok := contextFile("dir", w); ok {
			t.Errorf("contextFile(%q) = %q: want no file", w, p)
		}
	}
	for _, w := range []string{"zorb", "...", ".hidden", "a..b", "naïve"} {
		if p, ok := contextFile("dir", w); !ok || p != filepath.Join("dir", w+".txt") {
			t.Errorf("contextFile(%q) = %q, %v: want dir/%s.txt", w, p, ok, w)
		}
	}
}

// The --plot curves flag, with an open marker, the means in which some trials
// had an undefined ρ (counted as 0, † in the table), and only those.
func TestRarePlotFlagsUndefined(t *testing.T) {
	rows := []rareRow{{name: "AM"}, {name: "additive − sw", minK: 1}}
	ks := []int{0, 1, 2, 4}
	res := []rareResult{
		{rho: []float64{0.3, 0, 0.2, 0.4}, undefined: []int{0, 5, 2, 0}},
		{rho: []float64{0, 0.1, 0.2, 0}, undefined: []int{3, 0, 0, 5}},
	}
	p := rarePlot(rows, res, ks)
	if !slices.Equal(p.X, []float64{1, 2, 4}) || len(p.Series) != 2 {
		t.Fatalf("x %v, %d series", p.X, len(p.Series))
	}
	for i, want := range [][]bool{{true, true, false}, {false, false, true}} {
		if s := p.Series[i]; !slices.Equal(s.Flagged, want) || !slices.Equal(s.Y, res[i].rho[1:]) {
			t.Errorf("%s: y %v flagged %v, want y %v flagged %v", s.Name, s.Y, s.Flagged, res[i].rho[1:], want)
		}
	}
	if !strings.Contains(p.FlaggedNote, "undefined") || !strings.Contains(p.FlaggedNote, undefinedMark) {
		t.Errorf("legend note %q: want it to say the open marker is an undefined ρ (%s)", p.FlaggedNote, undefinedMark)
	}
}

// Of CONTEXT_DIR only its .txt files are read: a plot that is one of them
// (or the directory) is refused, a plot elsewhere in it is not, so a run
// from inside the context directory (CONTEXT_DIR ".") can still plot.
func TestPlotInContextDir(t *testing.T) {
	dir := contextDir(t, map[string]string{"zorb": "the zorb music\n"})
	if err := os.Symlink("zorb.txt", filepath.Join(dir, "blick.txt")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	for plot, want := range map[string]bool{
		dir:                                 true,
		filepath.Join(dir, "zorb.txt"):      true,
		filepath.Join(dir, "new.TXT"):       true,
		filepath.Join(dir, "rho.png"):       false,
		filepath.Join(dir, "sub", "x.txt"):  false,
		filepath.Join(t.TempDir(), "a.txt"): false,
	} {
		if got := plotInContextDir(plot, dir); got != want {
			t.Errorf("plotInContextDir(%s): %v, want %v", plot, got, want)
		}
	}
	t.Chdir(dir)
	if plotInContextDir("rho.png", ".") || !plotInContextDir("zorb.txt", ".") {
		t.Error("CONTEXT_DIR \".\": a .png refused or a context file allowed")
	}
	if err := checkPlotOutput("", ".", nil); err != nil {
		t.Errorf("no --plot: %v", err)
	}
}

// With full am weights rare-pairs adds AM-ctx, the context part alone:
// A·v_ctx with the attention (here M = I, A the swap: ρ = (0.8, 0.2) over
// v_1 = (2, 0) and v_2 = (0, 1), so A·(1.6, 0.2) = (0.2, 1.6)), not the
// gated mix of the AM row; context-only weights have no such row (their
// AM row is it).
func TestRarePairsAMContextRow(t *testing.T) {
	e := testEmbeddings(t, []string{"loud", "food"}, [][]float32{{2, 0}, {0, 1}}, nil)
	cfg := model.Config{Dim: 2, Mode: model.ModeAM, Ngram: model.DefaultNgramConfig(), Tokenizer: model.DefaultTokenizer()}
	m, err := model.New(cfg, model.BuildNgramVocab([]string{"loud", "food", "zorb"}, cfg.Ngram), e, 1)
	if err != nil {
		t.Fatal(err)
	}
	copy(m.A, []float32{0, 1, 1, 0})
	copy(m.M, []float32{1, 0, 0, 1})
	words := []string{"zorb"}
	none := func(map[string][][]string) map[string][]float32 { return nil }
	sample := map[string][][]string{"zorb": {{"loud"}, {"food"}}}
	vecs := map[string][]float32{}
	for _, r := range modelRareRows("AM", m, e, none, words, 0) {
		v, err := r.infer(sample)
		if err != nil {
			t.Fatal(err)
		}
		vecs[r.name] = v["zorb"]
		if r.name == "AM-ctx (its context part)" && r.minK != 1 {
			t.Errorf("AM-ctx row: minK %d, want 1 (no form, no value at k = 0)", r.minK)
		}
	}
	if got := vecs["AM-ctx (its context part)"]; !near(got, []float32{0.2, 1.6}, 1e-5) {
		t.Fatalf("AM-ctx of zorb = %v, want A·v_ctx = (0.2, 1.6); rows %v", got, vecs)
	}
	if near(vecs["AM (am)"], vecs["AM-ctx (its context part)"], 1e-3) {
		t.Errorf("the AM row equals AM-ctx (%v): the form is not mixed in, the test cannot tell them apart", vecs["AM (am)"])
	}
	if m.Mode != model.ModeAM {
		t.Errorf("the AM model's mode became %s", m.Mode)
	}
	m.Mode = model.ModeContext
	for _, r := range modelRareRows("AM", m, e, none, words, 0) {
		if strings.HasPrefix(r.name, "AM-ctx") {
			t.Errorf("context-only weights: row %q, want no AM-ctx row", r.name)
		}
	}
}

// eval rare-pairs prints AM-ctx beside AM for full am weights and keeps
// the gate table.
func TestEvalRarePairsAMContext(t *testing.T) {
	emb, counts := tinyEmbeddings(t)
	dir := contextDir(t, map[string]string{"zorb": "the zorb guitar music\nthe zorb music\n"})
	pairs := writeFile(t, "rp.txt", "music zorb 9\nbread zorb 1\nlinux zorb 3\n")
	out, _, err := run(t, "rare-pairs", "--embeddings", emb, "--counts", counts, "--am", saveTinyModel(t, emb, model.ModeAM),
		"--stopwords", "1", "--max-k", "2", "--trials", "1", pairs, dir)
	if err != nil {
		t.Fatal(err)
	}
	row := tableRow(out, "AM-ctx (its context part)")
	if len(row) != 3 || row[0] != "–" || row[1] == "–" {
		t.Errorf("AM-ctx row %q, want no value at k = 0 and one at k = 1, 2:\n%s", row, out)
	}
	if tableRow(out, "AM (am)") == nil || !strings.Contains(out, "AM's gate α") {
		t.Errorf("AM row or gate table missing:\n%s", out)
	}
}
