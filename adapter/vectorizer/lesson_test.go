package vectorizer

import (
	"strings"
	"testing"
)

// TestLessonIsWhatTeachingWrites: a lesson written to an empty memory, then
// the texts vectorized as queries over it, gives the memory, the passage
// counts and the vectors of vectorizing the texts as passages; a text over
// MaxAMWords is refused and teaches nothing.
func TestLessonIsWhatTeachingWrites(t *testing.T) {
	texts := []string{
		"f1 f2 jargonx. f3 jargonx f4", "r3 r4 f6 jargony", "Jargonx f8. zq3x f9 f1",
		"many new words: " + strings.Repeat("qa qb qc qd qe ", 3), "f5 f7 jargony.", "f5 f7 jargony.",
	}
	opts := DefaultOptions()
	opts.MaxAMWords = 4
	taught, stored := newMemory(t), newMemory(t)
	a, b := newVectorizer(t, taught), newVectorizer(t, stored)
	vecs, _ := a.VectorizeBatch(texts, TaskPassage, opts)
	l, refused, err := b.Lesson(texts, opts)
	if err != nil || refused != 1 {
		t.Fatalf("lesson: %d refused, %v; want 1 refused", refused, err)
	}
	if stored.Stats().Passages != 0 || stored.Stats().Words != 0 {
		t.Fatal("Lesson wrote to the vectorizer's memory")
	}
	if err := stored.Remember(l.Observations); err != nil {
		t.Fatal(err)
	}
	if err := stored.CountPassages(l.Passages); err != nil {
		t.Fatal(err)
	}
	if ta, st := taught.Stats(), stored.Stats(); ta.Passages != 4 || st.Passages != ta.Passages || st.Contexts != ta.Contexts || st.Words != ta.Words {
		t.Fatalf("the lesson stored %+v, teaching %+v", st, ta)
	}
	for i, text := range texts {
		if i == 3 {
			continue
		}
		got, err := b.Vectorize(text, TaskQuery, opts)
		if err != nil {
			t.Fatal(err)
		}
		assertClose(t, got, vecs[i], 0)
	}
}
