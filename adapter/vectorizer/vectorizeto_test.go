package vectorizer

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestVectorizeToMatchesVectorize vectorizes the same passages with
// Vectorize and, into one reused slice, with VectorizeTo (each on its own
// memory, as both teach it) and checks that the vectors are bit for bit the
// same, that a destination of the wrong length is an error and that a
// failed call leaves the destination as it was.
func TestVectorizeToMatchesVectorize(t *testing.T) {
	a, b := newVectorizer(t, newMemory(t)), newVectorizer(t, newMemory(t))
	words := strings.Fields(strings.Join(a.Model().Base.Words[:40], " "))
	texts := []string{
		strings.Join(words[:20], " ") + ". " + strings.Join(words[20:], " ") + " zzqunseen.",
		"zzqunseen " + strings.Join(words[5:15], " "),
		strings.Join(words, " "),
	}
	dst := make([]float32, a.Dim())
	for _, task := range []Task{TaskPassage, TaskQuery} {
		for _, text := range texts {
			want, err := a.Vectorize(text, task, a.Options())
			if err != nil {
				t.Fatal(err)
			}
			if err := b.VectorizeTo(context.Background(), dst, text, task, b.Options()); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(dst, want) {
				t.Errorf("%v %q: VectorizeTo differs from Vectorize", task, text)
			}
		}
	}
	if err := b.VectorizeTo(context.Background(), dst[1:], texts[0], TaskQuery, b.Options()); err == nil {
		t.Error("a destination one shorter than the dimension is no error")
	}
	before := slices.Clone(dst)
	if err := b.VectorizeTo(context.Background(), dst, "", TaskQuery, b.Options()); err == nil {
		t.Error("a text without words is no error")
	}
	if !slices.Equal(dst, before) {
		t.Error("a failed VectorizeTo changed the destination")
	}
}
