package memory

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestWordStoreMatchesMap runs random adds, inserts, truncations, touches
// and removals on a wordStore and on maps and slices, and checks after every
// step that both hold the same words, contexts and order by last change,
// and that every string handed out earlier still reads as it did (the
// arenas are rebuilt many times on the way).
func TestWordStoreMatchesMap(t *testing.T) {
	s := newWordStore()
	want := map[string][]string{}
	var order []string // least recently changed first
	type held struct{ got, want string }
	var views []held
	r := rand.New(rand.NewPCG(1, 2))
	moveBack := func(w string) {
		order = slices.DeleteFunc(order, func(x string) bool { return x == w })
		order = append(order, w)
	}
	for step := range 20_000 {
		w := fmt.Sprintf("w%d", r.IntN(300))
		id := s.find(w)
		if (id >= 0) != (want[w] != nil) {
			t.Fatalf("step %d: find(%q) = %d, in the map: %v", step, w, id, want[w] != nil)
		}
		switch op := r.IntN(10); {
		case op < 6:
			if id < 0 {
				id = s.add(w)
				want[w] = []string{}
			} else {
				s.touch(id)
			}
			moveBack(w)
			ctx := fmt.Sprintf("context %d of %s %s", r.IntN(1000), w, string(make([]byte, r.IntN(40))))
			if slices.Contains(want[w], ctx) {
				continue
			}
			i := r.IntN(len(want[w]) + 1)
			s.insert(id, i, uint64(step), ctx)
			want[w] = slices.Insert(want[w], i, ctx)
			views = append(views, held{s.context(s.contexts(id)[i]), ctx})
		case op < 7 && id >= 0:
			k := r.IntN(len(want[w]) + 1)
			s.truncate(id, k)
			want[w] = want[w][:k]
		case id >= 0:
			views = append(views, held{s.word(id), w})
			s.remove(id)
			delete(want, w)
			order = slices.DeleteFunc(order, func(x string) bool { return x == w })
		}
		if s.len() != len(want) {
			t.Fatalf("step %d: %d words, want %d", step, s.len(), len(want))
		}
	}
	var got []string
	for id := s.head; id >= 0; id = s.ents[id].next {
		w := s.word(id)
		got = append(got, w)
		if c := s.appendTexts(nil, id); !slices.Equal(c, want[w]) {
			t.Errorf("contexts of %q = %q, want %q", w, c, want[w])
		}
	}
	if !slices.Equal(got, order) {
		t.Errorf("order by last change = %q, want %q", got, order)
	}
	for _, v := range views {
		if v.got != v.want {
			t.Fatalf("a string handed out changed: %q, was %q", v.got, v.want)
		}
	}
	if s.textUse > len(s.text) || s.refsUse > len(s.refs) {
		t.Errorf("accounting: %d live bytes of %d, %d live references of %d", s.textUse, len(s.text), s.refsUse, len(s.refs))
	}
}
