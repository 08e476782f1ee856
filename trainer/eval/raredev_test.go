package eval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
)

func TestBuildRareDev(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "c.txt")
	text := strings.Repeat("the guitar plays music. the zorb plays music. ", 3) + "a zorb eats bread.\n" +
		strings.Repeat("blip blip food.\n", 2) + strings.Repeat("common word here. ", 10) + "\n"
	if err := os.WriteFile(corpus, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	pairs := []dataset.WordPair{
		{A: "zorb", B: "music", Score: 7},   // zorb: 4 occurrences, 2 distinct sentences: kept
		{A: "blip", B: "food", Score: 5},    // blip: 4 occurrences but 1 distinct context ("blip blip food" twice)
		{A: "common", B: "music", Score: 3}, // 10 occurrences: not rare
		{A: "zorb", B: "nowhere", Score: 2}, // the other word never occurs
	}
	set, err := BuildRareDev(context.Background(), []string{corpus}, pairs, RareDevOptions{MinSentences: 2, MaxCount: 5, MinCommon: 1, MaxContexts: 10, Window: 25, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Pairs) != 1 || set.Pairs[0] != (RarePair{Common: "music", Rare: "zorb", Score: 7}) || len(set.Contexts) != 1 || len(set.Contexts["zorb"]) != 2 {
		t.Fatalf("pairs %+v, contexts %q", set.Pairs, set.Contexts)
	}
	out := filepath.Join(dir, "dev")
	if err := set.Write(out); err != nil {
		t.Fatal(err)
	}
	// eval rare-pairs reads it back: the rare word is the second, its sentences without it.
	wp, err := dataset.LoadWordPairs(filepath.Join(out, "pairs.txt"))
	if err != nil {
		t.Fatal(err)
	}
	rp, ctx, without, err := RarePairsSetup(wp, filepath.Join(out, "contexts"), model.DefaultTokenizer())
	if err != nil || without != 0 || rp[0].Rare != "zorb" || len(ctx["zorb"]) != 2 {
		t.Fatalf("read back: %+v %q %d %v", rp, ctx, without, err)
	}
	for _, c := range ctx["zorb"] {
		for _, w := range c {
			if w == "zorb" {
				t.Fatalf("context %q still holds the rare word", c)
			}
		}
	}
}
