package vectorizer

import (
	"math"
	"slices"
	"testing"
)

// TestDocFreqRowsBitIdentical imports the same passages, in batches and one
// by one, through two vectorizers over two memories, one finding the
// counters of base words by row and one by word only, and checks that
// every vector of passages and queries is the same bits and that the
// memories hold the same document frequencies.
func TestDocFreqRowsBitIdentical(t *testing.T) {
	memA, memB := newMemory(t), newMemory(t)
	rows, plain := newVectorizer(t, memA), newVectorizer(t, memB)
	if rows.dfRows == nil {
		t.Fatal("a vectorizer over a memory finds no counter by row")
	}
	plain.dfRows = nil
	queries := []string{"zq3x f1 f2", "r4 f3", "zq1x r2 jargon0 f5 f6"}
	var words []string
	for round := range 4 {
		texts := cachePassages(40, uint64(round))
		assertSameVectors(t, rows, plain, texts[:32], TaskPassage, DefaultOptions())
		for _, text := range texts[32:] {
			a, errA := rows.Vectorize(text, TaskPassage, DefaultOptions())
			b, errB := plain.Vectorize(text, TaskPassage, DefaultOptions())
			if errA != nil || errB != nil || !slices.EqualFunc(a, b, sameBits) {
				t.Fatalf("%q: %v, %v; vectors %v and %v", text, errA, errB, a, b)
			}
		}
		assertSameVectors(t, rows, plain, queries, TaskQuery, DefaultOptions())
		all, _ := rows.memoryWords(texts, DefaultOptions())
		words = append(words, all...)
	}
	dfA, dfB := make([]int64, len(words)), make([]int64, len(words))
	if na, nb := memA.DocFreqs(dfA, words), memB.DocFreqs(dfB, words); na != nb || na == 0 || !slices.Equal(dfA, dfB) {
		t.Fatalf("%d and %d passages; document frequencies %v and %v", na, nb, dfA, dfB)
	}
}

func sameBits(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }
