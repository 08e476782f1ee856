package eval

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/text2vec-am/text2vec-am/cli"
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
	// Both mappings undo a rotation exactly (for the supervised one, the
	// whitened spaces then differ by the rotation only, and each side is
	// de-whitened with matching matrices).
	var cos []float64
	for _, mapping := range []VecMapMapping{MappingSupervised, MappingOrthogonal} {
		c, n, err := VecMapScores(gold, space, d, dict, test, mapping)
		if err != nil {
			t.Fatal(err)
		}
		if n != 60 || math.Abs(c[0]-1) > 1e-3 || c[1] > 0.9 || c[2] != 0 {
			t.Fatalf("%v: cosines %v over %d dictionary pairs: want t1 ≈ 1, t2 < 0.9, t3 = 0", mapping, c, n)
		}
		cos = c
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

// TestVecMapSupervisedStepwise checks the composed transforms against
// VecMap's map_embeddings.py --supervised applied step by step to the rows
// (whiten each side, orthogonal mapping, re-weight both by Σ^½, de-whiten
// each side with the inverse of its own whitening, inverted numerically).
func TestVecMapSupervisedStepwise(t *testing.T) {
	const n, d = 40, 3
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, n*d)
	z := make([]float64, n*d)
	for i := range x {
		x[i] = rng.NormFloat64()
		z[i] = 0.5*x[i] + rng.NormFloat64() // correlated, not a rotation
	}
	for i := 0; i < n; i++ {
		x[i*d] *= 4 // anisotropic: whitening matters
	}
	tx, tz, err := VecMapSupervised(x, z, n, d)
	if err != nil {
		t.Fatal(err)
	}
	X, Z := mat.NewDense(n, d, x), mat.NewDense(n, d, z)
	white := func(m *mat.Dense) *mat.Dense {
		var c mat.SymDense
		c.SymOuterK(1, m.T())
		var eig mat.EigenSym
		if !eig.Factorize(&c, true) {
			t.Fatal("eigen decomposition failed")
		}
		var v mat.Dense
		eig.VectorsTo(&v)
		vals := eig.Values(nil)
		for i := range vals {
			vals[i] = 1 / math.Sqrt(vals[i])
		}
		var w mat.Dense
		w.Mul(&v, mat.NewDiagDense(d, vals))
		w.Mul(&w, v.T())
		return &w
	}
	wx1, wz1 := white(X), white(Z)
	var xw, zw, m mat.Dense
	xw.Mul(X, wx1)
	zw.Mul(Z, wz1)
	m.Mul(xw.T(), &zw)
	var svd mat.SVD
	if !svd.Factorize(&m, mat.SVDFull) {
		t.Fatal("svd failed")
	}
	var wx2, wz2 mat.Dense
	svd.UTo(&wx2)
	svd.VTo(&wz2)
	s := svd.Values(nil)
	xw.Mul(&xw, &wx2)
	zw.Mul(&zw, &wz2)
	for j := 0; j < d; j++ {
		for i := 0; i < n; i++ {
			xw.Set(i, j, xw.At(i, j)*math.Sqrt(s[j]))
			zw.Set(i, j, zw.At(i, j)*math.Sqrt(s[j]))
		}
	}
	dewhiten := func(rows *mat.Dense, w1, w2 *mat.Dense) {
		var inv, a mat.Dense
		if err := inv.Inverse(w1); err != nil {
			t.Fatal(err)
		}
		a.Mul(w2.T(), &inv)
		a.Mul(&a, w2)
		rows.Mul(rows, &a)
	}
	dewhiten(&xw, wx1, &wx2)
	dewhiten(&zw, wz1, &wz2)
	var gotX, gotZ mat.Dense
	gotX.Mul(X, tx)
	gotZ.Mul(Z, tz)
	if !mat.EqualApprox(&gotX, &xw, 1e-9) || !mat.EqualApprox(&gotZ, &zw, 1e-9) {
		t.Fatalf("composed transforms differ from the stepwise recipe:\n%v\nwant\n%v", mat.Formatted(&gotX), mat.Formatted(&xw))
	}
	// After whitening and the orthogonal step, the dictionary's
	// cross-covariance is diagonal: the mapped spaces agree on the
	// dictionary far better than the raw ones.
	var raw, mapped float64
	for i := 0; i < n; i++ {
		raw += model.Cosine(x[i*d:(i+1)*d], z[i*d:(i+1)*d])
		mapped += model.Cosine(gotX.RawRowView(i), gotZ.RawRowView(i))
	}
	if mapped <= raw {
		t.Errorf("mean dictionary cosine %v after mapping, %v before: mapping should align the spaces", mapped/n, raw/n)
	}
	if _, _, err := VecMapSupervised(x[:2*d], z[:2*d], 2, d); err == nil || !strings.Contains(err.Error(), "at least as many pairs") {
		t.Errorf("too few pairs: error = %v", err)
	}
	flat := make([]float64, n*d) // spans no dimension at all
	if _, _, err := VecMapSupervised(flat, z, n, d); err == nil || !strings.Contains(err.Error(), "cannot whiten") {
		t.Errorf("degenerate dictionary: error = %v", err)
	}
}

func TestParseVecMapMapping(t *testing.T) {
	for _, m := range []VecMapMapping{MappingSupervised, MappingOrthogonal} {
		if got, err := ParseVecMapMapping(m.String()); err != nil || got != m {
			t.Errorf("ParseVecMapMapping(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := ParseVecMapMapping("procrustes"); err == nil || !strings.Contains(err.Error(), `unknown mapping "procrustes"`) {
		t.Errorf("bad mapping: error = %v", err)
	}
	_, _, err := run(t, "vecmap", "--corpus", "c", "--work-dir", t.TempDir(), "--mapping", "bogus")
	if !errors.Is(err, cli.ErrUsage) || !strings.Contains(err.Error(), "--mapping") {
		t.Errorf("eval vecmap --mapping bogus: error = %v, want a usage error naming --mapping", err)
	}
}
