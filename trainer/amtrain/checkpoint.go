package amtrain

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"hash/crc64"
	"io"
	"log/slog"
	"maps"
	"math"
	"os"
	"path/filepath"

	"github.com/text2vec-am/text2vec-am/internal/atomicfile"
	"github.com/text2vec-am/text2vec-am/internal/checkpoint"
	"github.com/text2vec-am/text2vec-am/model"
)

// A checkpoint file (package internal/checkpoint's frame):
//
//	"T2VAMCK1"
//	uint32 n, n bytes JSON of the training state (epoch, next batch, seeds, history)
//	uint64 n, n bytes: the model weights (model.Save, float32, without base vectors)
//	the Adam state: uint64 step, then MM VM MA VA MU VU MN VN as
//	  (uint64 length, float32s) and MB VB as float32
//	uint32 CRC-32 (Castagnoli) of everything before
//
// All numbers little-endian. The random state is the seed plus the position
// (epoch, batch): every instance's generator is derived from them, so resuming
// reproduces the uninterrupted run exactly for the same thread count.
const checkpointMagic = checkpoint.TrainMagic

// TrainState is the part of a checkpoint that is not weights.
type TrainState struct {
	// Epoch is the number of epochs completed.
	Epoch int
	// Batch is the next batch of epoch Epoch (0 after a whole epoch).
	Batch int
	// Seed and Threads are the run's; Fingerprint identifies its words and options.
	Seed        int64
	Threads     int
	Fingerprint uint64
	// BaseFingerprint identifies the base embeddings, vector values included
	// (baseFingerprint); 0 in a checkpoint written before it was recorded.
	BaseFingerprint uint64 `json:",omitempty"`
	// Epochs is the run's Options.Epochs (0 in a checkpoint written before
	// it was recorded): the state is a finished run's when Epoch reaches it.
	Epochs int `json:",omitempty"`
	// Settings records the options and inputs Fingerprint covers, one by one
	// (settingsOf), so that a refused resume names those that differ; nil in
	// a checkpoint written before they were recorded.
	Settings map[string]string `json:",omitempty"`
	// EpochLoss, EpochFlops, EpochSeconds and EpochCPU are the partial sums of
	// the interrupted epoch.
	EpochLoss    float64
	EpochFlops   float64
	EpochSeconds float64
	EpochCPU     float64
	// History records the epochs completed.
	History []EpochStats
}

// Checkpoint is a loaded checkpoint.
type Checkpoint struct {
	// State is where training stopped (epoch, batch) and its history.
	State TrainState
	// Model holds the weights (no base embeddings attached).
	Model *model.Model
	// Adam is the optimizer state.
	Adam *Adam
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// baseFingerprint identifies base embeddings e: their dimension, their words
// and every vector value, as float32 bits (so -0 and 0 differ, as they do in
// a file), all through one CRC-64 (ECMA), about a second per gigabyte of
// vectors. Two sets of embeddings with the same words but other vectors (a
// retrained or renormalized file) differ.
func baseFingerprint(e *model.Embeddings) uint64 {
	h := crc64.New(crc64.MakeTable(crc64.ECMA))
	fmt.Fprintf(h, "%d %d\n", e.Dim, len(e.Words))
	for _, w := range e.Words {
		io.WriteString(h, w)
		h.Write([]byte{'\n'})
	}
	const chunk = 8192
	buf := make([]byte, 0, 4*chunk)
	for i := 0; i < len(e.Vectors); i += chunk {
		buf = buf[:0]
		for _, x := range e.Vectors[i:min(i+chunk, len(e.Vectors))] {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
		}
		h.Write(buf)
	}
	return h.Sum64()
}

func (t *trainer) checkpoint(st *TrainState) error {
	if err := saveCheckpoint(t.o.CheckpointPath, st, t.m, t.adam); err != nil {
		return err
	}
	t.log.Info("checkpoint written", "file", t.o.CheckpointPath, "position", st.position(t.batches()))
	return nil
}

// position says where training stands in st, epochs counted from 1: "after
// epoch N" when epoch N is complete and the next not begun, "in epoch N at
// batch B/nb" (B batches of epoch N done) otherwise; nb ≤ 0 leaves out "/nb".
func (st *TrainState) position(nb int) string {
	if st.Batch == 0 {
		return fmt.Sprintf("after epoch %d", st.Epoch)
	}
	if nb <= 0 {
		return fmt.Sprintf("in epoch %d at batch %d", st.Epoch+1, st.Batch)
	}
	return fmt.Sprintf("in epoch %d at batch %d/%d", st.Epoch+1, st.Batch, nb)
}

// saveCheckpoint writes a checkpoint atomically (temporary file, fsync,
// rename), streamed: the weights as model.Save writes them, then the Adam
// state.
func saveCheckpoint(path string, st *TrainState, m *model.Model, o *Adam) error {
	var mb bytes.Buffer
	if err := m.Save(&mb, model.SaveOptions{NgramStorage: model.StorageFloat32, BaseStorage: model.StorageFloat32}); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return checkpoint.Write(path, checkpointMagic, st, func(w *checkpoint.Writer) {
		w.U64(uint64(mb.Len()))
		w.Write(mb.Bytes())
		w.U64(uint64(o.Step))
		for _, s := range [][]float32{o.MM, o.VM, o.MA, o.VA, o.MU, o.VU, o.MN, o.VN} {
			w.Floats(s)
		}
		w.U32(math.Float32bits(o.MB))
		w.U32(math.Float32bits(o.VB))
	})
}

// LoadCheckpoint reads a checkpoint written during training. The returned
// model has no base embeddings attached. Only a regular file is read (a FIFO
// or device in its place is refused, wrapping model.ErrNotRegular, without
// blocking), and only the size it has when opened.
func LoadCheckpoint(path string) (*Checkpoint, error) {
	ck := &Checkpoint{}
	r, err := checkpoint.Open(path, checkpointMagic, &ck.State)
	if err != nil {
		return nil, err
	}
	mb := r.Bytes(r.U64())
	if r.Err() != nil {
		return nil, r.Close()
	}
	m, err := model.Load(bytes.NewReader(mb), path)
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	o := &Adam{Step: int64(r.U64())}
	for _, p := range []*[]float32{&o.MM, &o.VM, &o.MA, &o.VA, &o.MU, &o.VU, &o.MN, &o.VN} {
		*p = r.Floats()
	}
	o.MB = math.Float32frombits(r.U32())
	o.VB = math.Float32frombits(r.U32())
	if err := r.Close(); err != nil {
		return nil, err
	}
	if len(o.MM) != len(m.M) || len(o.MA) != len(m.A) || len(o.MU) != len(m.U) || len(o.MN) != len(m.Ngrams) ||
		len(o.VM) != len(m.M) || len(o.VA) != len(m.A) || len(o.VU) != len(m.U) || len(o.VN) != len(m.Ngrams) {
		return nil, fmt.Errorf("checkpoint %s: optimizer state does not match the model's shapes", path)
	}
	ck.Model, ck.Adam = m, o
	return ck, nil
}

// ErrUnfinishedCheckpoint is returned (wrapped) when a new run would
// overwrite the checkpoint of a run that did not finish.
var ErrUnfinishedCheckpoint = checkpoint.ErrUnfinished

// CheckNoUnfinished refuses to start a run that writes its checkpoint to path
// when path holds the checkpoint of a run that did not finish (an
// interrupted one), unless the run resumes from that very file: it would be
// overwritten at the end of the first epoch. A checkpoint that does not
// record its run's epoch count (written by an earlier version) is refused
// too unless it stopped inside an epoch, saying that whether its run
// finished cannot be told. A finished run's checkpoint is replaced, with a
// note in log; a file that is not a checkpoint is refused too.
func CheckNoUnfinished(path, resume string, log *slog.Logger) error {
	return checkpoint.CheckNoUnfinished(path, resume, log, runOf)
}

// runOf reads the head of the checkpoint at path: whether its run finished
// and where it stopped.
func runOf(path string) (checkpoint.Run, error) {
	var st TrainState
	if err := checkpoint.ReadHead(path, checkpointMagic, &st); err != nil {
		return checkpoint.Run{}, err
	}
	switch {
	case st.Epochs == 0 && st.Batch == 0:
		return checkpoint.Run{Stopped: fmt.Sprintf("stopped %s, written by an earlier version that did not record "+
			"the run's number of epochs, so whether it finished cannot be told", st.position(0))}, nil
	case st.Epochs == 0:
		return checkpoint.Run{Stopped: "stopped " + st.position(0)}, nil
	}
	return checkpoint.Run{Finished: st.Batch == 0 && st.Epoch >= st.Epochs, Epochs: st.Epoch,
		Stopped: fmt.Sprintf("stopped %s of %d epochs", st.position(0), st.Epochs)}, nil
}

// checkResumeHead reads the head of the --resume checkpoint, if any, before
// the corpus is indexed (minutes on a large one): a path that names no
// checkpoint of train, or one made with settings that do not depend on the
// corpus and the training words other than o's, is refused at once. The
// rest (the checksum, the words, the base embeddings, the position) is
// checked when training resumes.
func checkResumeHead(o *Options) error {
	if o.Resume == "" {
		return nil
	}
	var st TrainState
	if err := checkpoint.ReadResumeHead(o.Resume, checkpointMagic, &st); err != nil {
		return err
	}
	if st.Settings == nil {
		return nil // an older version's checkpoint: its fingerprint is checked when training resumes
	}
	now := settingsOf(o, &Plan{})
	was := maps.Clone(st.Settings)
	for _, k := range []string{settingWords, settingHoldout, "--ngrams (--ngram-max)"} {
		delete(now, k)
		delete(was, k)
	}
	for k := range now {
		if _, ok := was[k]; !ok {
			delete(now, k) // a setting newer than the checkpoint: the resume's fingerprint decides
		}
	}
	if diff := checkpoint.Diff(was, now); diff != "" {
		return fmt.Errorf("resume %s: the checkpoint was made with other options: %s; use the same ones", o.Resume, diff)
	}
	return nil
}

// writeAtomic replaces path with data atomically (atomicfile), creating its
// directory first (infer's --out may name a new one).
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return atomicfile.WriteFile(path, data, atomicfile.Readable)
}
