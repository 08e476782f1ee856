package skipgram

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/internal/checkpoint"
)

// FuzzResume: whatever a checkpoint's state says of the run's counters and
// of one worker (its checksum valid, its settings and matrices the run's),
// a resume refuses it naming the file or trains to the end.
func FuzzResume(f *testing.F) {
	_, v, enc := readCorpus(f, topicCorpus(f, 60), 1)
	cfg := smallConfig(2)
	cfg.Epochs = 2
	ck := finishedCheckpoint(f, enc, v, cfg)
	var st ckState
	r, err := checkpoint.Open(ck, checkpoint.EmbeddingsMagic, &st)
	if err != nil {
		f.Fatal(err)
	}
	syn0, syn1 := r.Floats(), r.Floats()
	if err := r.Close(); err != nil {
		f.Fatal(err)
	}
	for k, w := range st.Workers {
		f.Add(uint8(k), w.Pos, w.RNG, w.Quota, w.Local, w.Sent, w.AlphaBits, w.Done, st.Claimed, st.Processed, st.Finished)
		f.Add(uint8(k), 0, w.RNG, int64(0), int64(0), int64(0), w.AlphaBits, false, int64(0), int64(0), false)
	}
	f.Fuzz(func(t *testing.T, k uint8, pos int, rng uint64, quota, local, sent int64, alpha uint32, done bool,
		claimed, processed int64, finished bool) {
		edited := st
		edited.Workers = append([]workerState(nil), st.Workers...)
		w := &edited.Workers[int(k)%len(edited.Workers)]
		w.Pos, w.RNG, w.Quota, w.Local, w.Sent, w.AlphaBits, w.Done = pos, rng, quota, local, sent, alpha, done
		edited.Claimed, edited.Processed, edited.Finished = claimed, processed, finished
		path := filepath.Join(t.TempDir(), "edited.ckpt")
		writeState(t, path, &edited, func(w *checkpoint.Writer) { w.Floats(syn0); w.Floats(syn1) })
		c := cfg
		c.Checkpoints.Resume = path
		if _, err := trainOnce(context.Background(), enc, v, c); err != nil && !strings.Contains(err.Error(), path) {
			t.Fatalf("err = %v, want it to name %s", err, path)
		}
	})
}
