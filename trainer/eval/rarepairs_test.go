package eval

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
)

func TestRarePairs(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "zorb.txt"), []byte("the zorb plays music\n\nmusic by a zorb\nzorb songs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "blip.txt"), []byte("blip bread food\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pairs := []WordPair{{"guitar", "zorb", 9}, {"blip", "bread", 8}, {"bread", "zorb", 1}, {"x", "y", 3}}
	tok := model.DefaultTokenizer()
	rp, ctx, skipped, err := RarePairsSetup(pairs, dir, tok)
	if err != nil {
		t.Fatal(err)
	}
	if skipped != 1 || len(rp) != 3 || rp[1] != (RarePair{Common: "bread", Rare: "blip", Score: 8}) || len(ctx["zorb"]) != 3 || len(ctx) != 2 {
		t.Fatalf("setup: %+v, %d skipped, contexts %v", rp, skipped, ctx)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	s := SampleK(ctx, []string{"zorb", "blip"}, 2, rng)
	if len(s["zorb"]) != 2 || len(s["blip"]) != 1 {
		t.Fatalf("SampleK: %v", s)
	}
	e := testEmbeddings(t, []string{"guitar", "bread", "music"}, [][]float32{{1, 0}, {0, 1}, {1, 0.1}}, nil)
	rare := map[string][]float32{"zorb": {1, 0.2}} // blip has no vector: cosine 0
	rho, used := RarePairsScore(rp, EmbeddingLookup(e), rare)
	// cosines: guitar·zorb 0.98, bread·blip 0, bread·zorb 0.196 vs gold 9, 8, 1: ranks 3,1,2 vs 3,2,1 → ρ 0.5.
	if used != 3 || math.Abs(rho-0.5) > 1e-12 {
		t.Fatalf("ρ = %v over %d pairs, want 0.5 over 3", rho, used)
	}
	if c, err := LoadRareContexts(dir, "missing", tok); err != nil || c != nil {
		t.Fatalf("missing context file: %v, %v", c, err)
	}
}
