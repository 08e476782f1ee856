package weaviatemem

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/internal/fakeweaviate"
)

// TestWriteAddsToEveryCopy: objects written to two scopes are added to the
// copy of each, though adding them to the first fails; the error names it.
func TestWriteAddsToEveryCopy(t *testing.T) {
	_, ts := fakeweaviate.New(t)
	s := openStore(t, ts.URL, nil)
	books, err := s.loadedScope(context.Background(), "Books")
	if err != nil {
		t.Fatal(err)
	}
	bad := object{id: lessonObject(nil, nil).id, kind: kindLesson, ps: []memory.Passage{{Words: []string{"x"}}}} // no hash
	good := lessonObject([]memory.Observation{{Word: "w", Context: "w here"}}, nil)
	err = s.writeObjects([]*scope{s.scopes[""], books}, [][]object{{bad}, {good}})
	if err == nil || !strings.Contains(err.Error(), "copy of tenant "+sharedTenant) {
		t.Errorf("error %v: want one naming the copy of %s", err, sharedTenant)
	}
	mem, _ := books.current()
	if c, _ := mem.Contexts(nil, "w"); len(c) != 1 || books.objects() != 1 {
		t.Errorf("the second copy holds %d contexts of w, %d objects: want the object written", len(c), books.objects())
	}
}

// TestWriteToClosedStoreFails: a write to a closed store fails at once,
// never waiting in the queue for a writer that has stopped.
func TestWriteToClosedStoreFails(t *testing.T) {
	_, ts := fakeweaviate.New(t)
	s := openStore(t, ts.URL, nil)
	s.Close()
	sc := s.scopes[""]
	for i := range 50 {
		done := make(chan error, 1)
		go func() {
			done <- s.write(context.Background(), part{sc, teaching{obs: []memory.Observation{{Word: "w", Context: "w here"}}}})
		}()
		select {
		case err := <-done:
			if !errors.Is(err, errClosed) {
				t.Fatalf("write %d: %v, want %v", i, err, errClosed)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("write %d to a closed store still waits", i)
		}
	}
}
