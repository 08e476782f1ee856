package vectorizer

import "testing"

// TestWithStoresCountsAddUp: what a vectorizer made by WithStores vectorizes
// counts in the statistics of the vectorizer it was made of.
func TestWithStoresCountsAddUp(t *testing.T) {
	v := newVectorizer(t, newMemory(t))
	mem := newMemory(t)
	w, err := v.WithStores(mem, mem, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := v.Stats()
	if _, err := w.Vectorize("f1 f2 jargonx f3", TaskQuery, DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	after := v.Stats()
	words := func(s Stats) (n int64) {
		for _, c := range s.WordsBySource {
			n += c
		}
		return n
	}
	if words(after)-words(before) != 4 || after.AMInferences != before.AMInferences+1 {
		t.Errorf("before %+v, after %+v: want 4 more words and 1 more inference", before, after)
	}
	if w.Stats().AMInferences != after.AMInferences {
		t.Error("the derived vectorizer reports other counts")
	}
}
