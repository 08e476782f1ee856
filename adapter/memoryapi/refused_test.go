package memoryapi_test

import (
	"context"
	"errors"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/testhttp"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
)

// TestRefusedPassageTeachesNothing: a passage refused for too many AM words
// gets no vector, so, as on a node with a memory of its own, it must leave
// the shared memory unchanged (no contexts, no passage count).
func TestRefusedPassageTeachesNothing(t *testing.T) {
	m, err := testmodel.New(testmodel.DefaultSpec())
	if err != nil {
		t.Fatal(err)
	}
	ts, mem := testhttp.Holder(t, m, false)
	opts := vectorizer.DefaultOptions()
	opts.Weighting = vectorizer.WeightSIFCollection
	opts.MaxAMWords = 1
	text := testmodel.FrequentWord(1) + " zzqxa zzqxb " + testmodel.FrequentWord(2) + " zzqxa."

	local := mustVectorizer(t, m)
	_, lerrs := local.VectorizeBatch([]string{text}, vectorizer.TaskPassage, opts)
	if !errors.Is(lerrs[0], vectorizer.ErrTooManyAMWords) {
		t.Fatalf("local: %v, want ErrTooManyAMWords", lerrs[0])
	}
	v, c := node(t, m, ts.URL)
	_, errs, err := c.VectorizeBatch(context.Background(), v, "", []string{text}, vectorizer.TaskPassage, opts)
	if err != nil || !errors.Is(errs[0], vectorizer.ErrTooManyAMWords) {
		t.Fatalf("shared: %v %v, want ErrTooManyAMWords", err, errs)
	}
	if st := mem.Stats(); st.Passages != 0 || st.Contexts != 0 {
		t.Errorf("the holder counted %d passages and remembered %d contexts of a refused passage; a local memory keeps none", st.Passages, st.Contexts)
	}
}
