package refresh

import (
	"context"
	"strings"
	"testing"
)

// TestWalkListsEachObjectOnceWithItsText: a cursor that jumps back lists
// objects again; Walk passes each on once, with the text refresh assembles.
func TestWalkListsEachObjectOnceWithItsText(t *testing.T) {
	f, srv := newFake(t, 25)
	f.repeat = true
	c, err := ReadCollection(context.Background(), Options{Weaviate: srv.URL, Class: "Doc", Batch: 10})
	if err != nil {
		t.Fatal(err)
	}
	if c.Class() != "Doc" || len(c.Targets()) != 1 || c.Targets()[0].Name != "am" {
		t.Fatalf("class %s, targets %+v: want Doc with named vector am", c.Class(), c.Targets())
	}
	seen := map[string]bool{}
	ws, err := c.Walk(context.Background(), func(o Object) error {
		if seen[o.ID] {
			t.Errorf("object %s passed on twice", o.ID)
		}
		seen[o.ID] = true
		if want := f.objs[o.ID].Properties["text"].(string); o.Texts[0] != want {
			t.Errorf("object %s: text %q, want %q (note is skipped)", o.ID, o.Texts[0], want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 25 || ws.Read != 25 || ws.Repeated == 0 {
		t.Fatalf("walked %d objects, stats %+v: want 25 read and some repeated", len(seen), ws)
	}
}

func TestWalkStopsOnACursorThatDoesNotMove(t *testing.T) {
	f, srv := newFake(t, 30)
	f.stuck = true
	c, err := ReadCollection(context.Background(), Options{Weaviate: srv.URL, Class: "Doc", Batch: 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Walk(context.Background(), func(Object) error { return nil }); err == nil || !strings.Contains(err.Error(), "cursor") {
		t.Fatalf("walk over a cursor that never moves: %v", err)
	}
}
