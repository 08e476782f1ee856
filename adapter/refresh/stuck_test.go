package refresh

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestRunStopsOnACursorThatDoesNotMove: a server (or proxy) that ignores
// "after" lists the same page forever; refresh must give up with an error,
// not loop until it is killed.
func TestRunStopsOnACursorThatDoesNotMove(t *testing.T) {
	f, srv := newFake(t, 30)
	f.stuck = true
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := Run(ctx, Options{Weaviate: srv.URL, Vectorizer: f.vecURL, Class: "Doc", Batch: 10})
	if err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("refresh over a cursor that never moves: %v; want an error naming the cursor", err)
	}
}
