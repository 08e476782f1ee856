package witness_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/witness"
	"github.com/text2vec-am/text2vec-am/adapter/witness/witnesstest"
)

// A server's memory directory, witnessed by the Weaviate it vectorizes
// for: a memory that lost passages the witness recorded is refused.
func ExampleStart() {
	weaviate := witnesstest.New()
	defer weaviate.Close()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	weaviate.SetPassages("default", 18491) // recorded before the memory's volume was lost

	mem, _ := memory.Open("", memory.DefaultOptions()) // an empty memory
	defer mem.Close()
	w, _ := witness.Start(witness.Options{URL: weaviate.URL, Every: time.Second, Logger: quiet}, mem, "/data/memory")
	defer w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var behind *witness.BehindError
	if err := w.Wait(ctx); errors.As(err, &behind) {
		fmt.Printf("refused: memory %q holds %d passages, its witness recorded %d\n", behind.Name, behind.Holds, behind.Recorded)
	}
	// Output:
	// refused: memory "default" holds 0 passages, its witness recorded 18491
}
