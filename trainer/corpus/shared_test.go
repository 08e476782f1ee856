package corpus

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/text2vec-am/text2vec-am/internal/shareddata"
	"github.com/text2vec-am/text2vec-am/model"
)

// TestGeneralCorpusCounts checks the reader against the published statistics of
// the shared general corpus: 13.47 M tokens, 74,504 words with count ≥ 5.
func TestGeneralCorpusCounts(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 80 MB of text")
	}
	dir := filepath.Join(shareddata.Dir(t), "data", "corpus", "general")
	c, err := Read(context.Background(), []string{dir}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if n := c.NumTokens(); n < 13_465_000 || n >= 13_475_000 {
		t.Errorf("general corpus has %d tokens, want 13.47 M", n)
	}
	if v := c.Vocab(5); v.Len() != 74504 {
		t.Errorf("general corpus has %d words with count ≥ 5, want 74504", v.Len())
	}
	if v := c.Vocab(1); v.Words[0] != "the" || v.Counts[0] != 705958 {
		t.Errorf("most frequent word %q (%d), want the (705958)", v.Words[0], v.Counts[0])
	}
	// Every count equals the one in the shared counts file, made with the same tokenizer.
	ref, err := model.LoadCounts(filepath.Join(shareddata.Dir(t), "data", "embeddings", "general-counts.txt.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ref) != len(c.Words) {
		t.Errorf("%d distinct words, the shared counts file has %d", len(c.Words), len(ref))
	}
	bad := 0
	for i, w := range c.Words {
		if ref[w] != c.Counts[i] {
			if bad++; bad <= 5 {
				t.Errorf("count of %q: %d, shared counts file %d", w, c.Counts[i], ref[w])
			}
		}
	}
}
