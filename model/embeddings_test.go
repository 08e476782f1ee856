package model

import "testing"

// TestVocabularyFingerprint: the same words and counts give the same
// fingerprint whatever the vectors; another count or word another one.
func TestVocabularyFingerprint(t *testing.T) {
	mk := func(words []string, counts []int64, x float32) *Embeddings {
		t.Helper()
		e, err := NewEmbeddings(2, words, []float32{x, 1, 2, x}, counts)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	a := mk([]string{"a", "b"}, []int64{3, 4}, 0).VocabularyFingerprint()
	if b := mk([]string{"a", "b"}, []int64{3, 4}, 9).VocabularyFingerprint(); b != a || len(a) != 16 {
		t.Errorf("same vocabulary, other vectors: %s and %s", a, b)
	}
	for _, e := range []*Embeddings{mk([]string{"a", "b"}, []int64{3, 5}, 0), mk([]string{"a", "c"}, []int64{3, 4}, 0),
		mk([]string{"a", "b"}, nil, 0)} {
		if e.VocabularyFingerprint() == a {
			t.Errorf("%v %v: the fingerprint of another vocabulary", e.Words, e.Counts)
		}
	}
}
