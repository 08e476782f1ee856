package skipgram_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/text2vec-am/text2vec-am/trainer/corpus"
	"github.com/text2vec-am/text2vec-am/trainer/skipgram"
)

// onCheckpoint is a log destination that calls f on each line saying a
// checkpoint was written.
type onCheckpoint func()

func (f onCheckpoint) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("checkpoint written")) {
		f()
	}
	return len(p), nil
}

// A run interrupted after its first checkpoint and resumed from it ends,
// with one thread, with exactly the vectors of a run never interrupted.
func ExampleCheckpoints() {
	dir, err := os.MkdirTemp("", "skipgram-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	text := strings.Repeat("the cat sat on the mat\nthe dog lay on the rug\n", 2000)
	path := filepath.Join(dir, "corpus.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	c, err := corpus.Read(context.Background(), []string{path}, corpus.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	vocab := c.Vocab(1)
	enc := c.Encode(vocab, false)
	cfg := skipgram.DefaultConfig()
	cfg.Dim, cfg.Epochs = 8, 3
	whole, err := skipgram.Train(context.Background(), enc, vocab, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg.Checkpoints.Path = filepath.Join(dir, "vectors.ckpt")
	cfg.Checkpoints.Log = slog.New(slog.NewTextHandler(onCheckpoint(cancel), nil))
	_, err = skipgram.Train(ctx, enc, vocab, cfg) // as after Ctrl-C at the first checkpoint
	fmt.Println("interrupted:", errors.Is(err, skipgram.ErrInterrupted))

	cfg.Checkpoints.Resume, cfg.Checkpoints.Log = cfg.Checkpoints.Path, nil
	resumed, err := skipgram.Train(context.Background(), enc, vocab, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("the same vectors:", slices.Equal(whole.Vectors, resumed.Vectors))
	// Output:
	// interrupted: true
	// the same vectors: true
}
