package amtrain

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/crc64"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"

	"github.com/text2vec-am/text2vec-am/internal/atomicfile"
	"github.com/text2vec-am/text2vec-am/internal/outpath"
	"github.com/text2vec-am/text2vec-am/model"
)

// A checkpoint file:
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
const checkpointMagic = "T2VAMCK1"

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

// saveCheckpoint writes a checkpoint atomically (temporary file, fsync, rename).
func saveCheckpoint(path string, st *TrainState, m *model.Model, o *Adam) error {
	var buf bytes.Buffer
	buf.WriteString(checkpointMagic)
	js, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	putU32(&buf, uint32(len(js)))
	buf.Write(js)
	var mb bytes.Buffer
	if err := m.Save(&mb, model.SaveOptions{NgramStorage: model.StorageFloat32, BaseStorage: model.StorageFloat32}); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	putU64(&buf, uint64(mb.Len()))
	buf.Write(mb.Bytes())
	putU64(&buf, uint64(o.Step))
	for _, s := range [][]float32{o.MM, o.VM, o.MA, o.VA, o.MU, o.VU, o.MN, o.VN} {
		putFloats(&buf, s)
	}
	putU32(&buf, math.Float32bits(o.MB))
	putU32(&buf, math.Float32bits(o.VB))
	putU32(&buf, crc32.Checksum(buf.Bytes(), castagnoli))
	return writeAtomic(path, buf.Bytes())
}

// LoadCheckpoint reads a checkpoint written during training. The returned
// model has no base embeddings attached. Only a regular file is read (a FIFO
// or device in its place is refused, wrapping model.ErrNotRegular, without
// blocking), and only the size it has when opened.
func LoadCheckpoint(path string) (*Checkpoint, error) {
	b, err := readRegular(path)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	bad := func(what string) error { return fmt.Errorf("checkpoint %s: %s", path, what) }
	if len(b) < len(checkpointMagic)+8 || string(b[:len(checkpointMagic)]) != checkpointMagic {
		return nil, bad("not a text2vec-am checkpoint (bad magic)")
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, bad("checksum mismatch (truncated or corrupt file)")
	}
	r := &reader{b: body[len(checkpointMagic):]}
	ck := &Checkpoint{}
	js := r.bytes(uint64(r.u32()))
	if r.err == nil {
		if err := json.Unmarshal(js, &ck.State); err != nil {
			return nil, bad("state: " + err.Error())
		}
	}
	mb := r.bytes(r.u64())
	if r.err != nil {
		return nil, bad(r.err.Error())
	}
	m, err := model.Load(bytes.NewReader(mb), path)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	o := &Adam{Step: int64(r.u64())}
	for _, p := range []*[]float32{&o.MM, &o.VM, &o.MA, &o.VA, &o.MU, &o.VU, &o.MN, &o.VN} {
		*p = r.floats()
	}
	o.MB = math.Float32frombits(r.u32())
	o.VB = math.Float32frombits(r.u32())
	if r.err != nil {
		return nil, bad(r.err.Error())
	}
	if len(r.b) != 0 {
		return nil, bad("trailing bytes")
	}
	if len(o.MM) != len(m.M) || len(o.MA) != len(m.A) || len(o.MU) != len(m.U) || len(o.MN) != len(m.Ngrams) ||
		len(o.VM) != len(m.M) || len(o.VA) != len(m.A) || len(o.VU) != len(m.U) || len(o.VN) != len(m.Ngrams) {
		return nil, bad("optimizer state does not match the model's shapes")
	}
	ck.Model, ck.Adam = m, o
	return ck, nil
}

// ErrUnfinishedCheckpoint is returned (wrapped) when a new run would
// overwrite the checkpoint of a run that did not finish.
var ErrUnfinishedCheckpoint = errors.New("the checkpoint of an unfinished run is in the way")

// CheckNoUnfinished refuses to start a run that writes its checkpoint to path
// when path holds the checkpoint of a run that did not finish (an
// interrupted one), unless the run resumes from that very file: it would be
// overwritten at the end of the first epoch. A checkpoint that does not
// record its run's epoch count (written by an earlier version) is refused
// too unless it stopped inside an epoch, saying that whether its run
// finished cannot be told. A finished run's checkpoint is replaced, with a
// note in log; a file that is not a checkpoint is refused too.
func CheckNoUnfinished(path, resume string, log *slog.Logger) error {
	if resume != "" && outpath.SamePath(path, resume) {
		return nil
	}
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	st, err := readState(path)
	if err != nil {
		return fmt.Errorf("%w: %s is in the place of this run's checkpoint and cannot be read as one (%w); "+
			"move it away or remove it, or choose another --out or --checkpoint-dir", ErrUnfinishedCheckpoint, path, err)
	}
	ways := fmt.Sprintf("continue it with --resume %s, or remove the file to start over", path)
	switch {
	case st.Epochs == 0 && st.Batch == 0:
		return fmt.Errorf("%w: %s holds a run stopped %s, written by an earlier version that did not record "+
			"the run's number of epochs, so whether it finished cannot be told; %s",
			ErrUnfinishedCheckpoint, path, st.position(0), ways)
	case st.Epochs == 0:
		return fmt.Errorf("%w: %s holds a run stopped %s; %s", ErrUnfinishedCheckpoint, path, st.position(0), ways)
	case st.Batch == 0 && st.Epoch >= st.Epochs:
		log.Info("replacing the checkpoint of a finished run", "file", path, "epochs", st.Epoch)
		return nil
	}
	return fmt.Errorf("%w: %s holds a run stopped %s of %d epochs; %s",
		ErrUnfinishedCheckpoint, path, st.position(0), st.Epochs, ways)
}

// readState reads the training state at the head of the checkpoint at path,
// without its weights and without checking its checksum.
func readState(path string) (TrainState, error) {
	var st TrainState
	f, _, err := model.OpenRegular(path)
	if err != nil {
		return st, err
	}
	defer f.Close()
	head := make([]byte, len(checkpointMagic)+4)
	if _, err := io.ReadFull(f, head); err != nil || string(head[:len(checkpointMagic)]) != checkpointMagic {
		return st, errors.New("not a text2vec-am checkpoint (bad magic)")
	}
	n := binary.LittleEndian.Uint32(head[len(checkpointMagic):])
	js := make([]byte, min(n, 1<<26))
	if _, err := io.ReadFull(f, js); err != nil || int64(n) != int64(len(js)) {
		return st, errors.New("truncated state")
	}
	if err := json.Unmarshal(js, &st); err != nil {
		return st, fmt.Errorf("state: %w", err)
	}
	return st, nil
}

// readRegular reads the regular file at path whole: the size it had when
// opened, and an error if it then holds more or less.
func readRegular(path string) ([]byte, error) {
	f, st, err := model.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > math.MaxInt {
		return nil, fmt.Errorf("%s: %d bytes, too large to read on this platform", path, st.Size())
	}
	b := make([]byte, st.Size())
	if _, err := io.ReadFull(f, b); errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w (the file shrank while read)", path, err)
	} else if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if n, _ := f.Read(make([]byte, 1)); n != 0 {
		return nil, fmt.Errorf("%s: the file grew while read", path)
	}
	return b, nil
}

// writeAtomic replaces path with data atomically (atomicfile), creating its
// directory first (--checkpoint-dir, infer's --out may name a new one).
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return atomicfile.WriteFile(path, data, atomicfile.Readable)
}

func putU32(w io.Writer, v uint32) {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	w.Write(b[:])
}

func putU64(w io.Writer, v uint64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	w.Write(b[:])
}

func putFloats(buf *bytes.Buffer, s []float32) {
	putU64(buf, uint64(len(s)))
	var b [4]byte
	for _, x := range s {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(x))
		buf.Write(b[:])
	}
}

// reader decodes the checkpoint body; the first error sticks.
type reader struct {
	b   []byte
	err error
}

var errShort = errors.New("truncated")

func (r *reader) bytes(n uint64) []byte {
	if r.err != nil {
		return nil
	}
	if uint64(len(r.b)) < n {
		r.err = errShort
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) u32() uint32 {
	b := r.bytes(4)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(b)
}

func (r *reader) u64() uint64 {
	b := r.bytes(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

func (r *reader) floats() []float32 {
	n := r.u64()
	if r.err == nil && n > uint64(len(r.b))/4 {
		r.err = errShort
	}
	b := r.bytes(4 * n)
	if b == nil {
		return nil
	}
	s := make([]float32, n)
	for i := range s {
		s[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return s
}
