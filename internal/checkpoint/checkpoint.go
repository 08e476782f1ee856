// Package checkpoint holds what the checkpoints of the two trainers (train
// and train-embeddings) share: the file's frame, written atomically and
// streamed, and read back with every length bounded by the file before
// anything is allocated; the settings a checkpoint records one by one, so
// that a refused resume names those that differ; and the refusal to start a
// run over the checkpoint of a run that did not finish.
//
// A checkpoint file is
//
//	magic, 8 bytes ("T2VAMCK1" train, "T2VSGCK1" train-embeddings)
//	uint32 n, n bytes: the JSON of the training state
//	the body, the trainer's own (Writer, Reader)
//	uint32 CRC-32 (Castagnoli) of everything before
//
// all numbers little-endian.
package checkpoint

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/text2vec-am/text2vec-am/internal/atomicfile"
	"github.com/text2vec-am/text2vec-am/internal/outpath"
	"github.com/text2vec-am/text2vec-am/model"
)

// The magic bytes that begin each trainer's checkpoints.
const (
	// TrainMagic begins the checkpoints of `text2vec-am train` (AM).
	TrainMagic = "T2VAMCK1"
	// EmbeddingsMagic begins those of `text2vec-am train-embeddings`.
	EmbeddingsMagic = "T2VSGCK1"
)

// MaxStateBytes bounds the JSON state of a checkpoint.
const MaxStateBytes = 1 << 26

// ErrInterrupted is returned (wrapping context.Canceled) when training was
// cancelled; the error says whether and where a checkpoint was written.
var ErrInterrupted = errors.New("training interrupted")

// ErrUnfinished is returned (wrapped) when a new run would overwrite the
// checkpoint of a run that did not finish.
var ErrUnfinished = errors.New("the checkpoint of an unfinished run is in the way")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// chunk is how many float32s Writer.Floats and Reader.FloatsInto convert at a time.
const chunk = 1 << 16

// commandOf names the command whose checkpoints begin with magic ("" for
// none of ours).
func commandOf(magic string) string {
	switch magic {
	case TrainMagic:
		return "train"
	case EmbeddingsMagic:
		return "train-embeddings"
	}
	return ""
}

// magicError describes a file that begins with got instead of want.
func magicError(got []byte, want string) error {
	if other := commandOf(string(got)); other != "" {
		return fmt.Errorf("a checkpoint of text2vec-am %s, not of %s", other, commandOf(want))
	}
	return errors.New("not a text2vec-am checkpoint (bad magic)")
}

// Writer writes the body of a checkpoint, summing every byte into its
// checksum; the first error sticks and Write returns it.
type Writer struct {
	w   *bufio.Writer
	sum uint32
	buf []byte
	err error
}

// Write writes p whole.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	w.sum = crc32.Update(w.sum, castagnoli, p)
	n, err := w.w.Write(p)
	w.err = err
	return n, err
}

// U32 writes v.
func (w *Writer) U32(v uint32) { w.Write(binary.LittleEndian.AppendUint32(w.buf[:0], v)) }

// U64 writes v.
func (w *Writer) U64(v uint64) { w.Write(binary.LittleEndian.AppendUint64(w.buf[:0], v)) }

// Floats writes len(s) as a uint64, then the values of s as float32 bits,
// converted a chunk at a time (no copy of s in memory).
func (w *Writer) Floats(s []float32) {
	w.U64(uint64(len(s)))
	for i := 0; i < len(s) && w.err == nil; i += chunk {
		b := w.buf[:0]
		for _, x := range s[i:min(i+chunk, len(s))] {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
		w.Write(b)
	}
}

// Write replaces the checkpoint at path atomically (atomicfile; its
// directory is created first, as --checkpoint-dir may name a new one):
// magic, the JSON of state, what body writes to w, and the checksum. The
// body is streamed to the file, never held whole in memory.
func Write(path, magic string, state any, body func(w *Writer)) error {
	js, err := json.Marshal(state)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	if len(js) > MaxStateBytes {
		return fmt.Errorf("checkpoint %s: a state of %d bytes, more than %d", path, len(js), MaxStateBytes)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return atomicfile.Write(path, atomicfile.Readable, func(bw *bufio.Writer) error {
		w := &Writer{w: bw, buf: make([]byte, 0, 4*chunk)}
		w.Write([]byte(magic))
		w.U32(uint32(len(js)))
		w.Write(js)
		body(w)
		w.U32(w.sum)
		return w.err
	})
}

// Reader reads the body of a checkpoint that Open opened, summing every
// byte into the checksum; every length it reads is checked against the
// bytes left before anything is allocated. The first error sticks: reads
// after it return zeros, and Close returns it.
type Reader struct {
	path string
	f    *os.File
	r    *bufio.Reader
	left int64 // bytes before the checksum not yet read
	sum  uint32
	buf  []byte
	err  error
}

var errShort = errors.New("truncated")

// Open opens the checkpoint at path, which must be a regular file
// (model.OpenRegular: a FIFO or a device is refused without blocking)
// beginning with magic and whose checksum matches its content: the file is
// read through once for it before anything in it is trusted. It decodes the
// JSON state (at most MaxStateBytes, as Write writes) into state; the caller
// then reads the body and calls Close. Errors name the file ("checkpoint
// PATH: …").
func Open(path, magic string, state any) (*Reader, error) {
	f, info, err := model.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	size := info.Size()
	bad := func(err error) (*Reader, error) {
		f.Close()
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	if err := checkMagic(f, magic); err != nil {
		return bad(err)
	}
	if size < int64(len(magic))+8 {
		return bad(errShort)
	}
	if err := verifySum(f, size); err != nil {
		return bad(err)
	}
	if _, err := f.Seek(int64(len(magic)), io.SeekStart); err != nil {
		return bad(err)
	}
	r := &Reader{path: path, f: f, r: bufio.NewReaderSize(f, 1<<20), left: size - 4 - int64(len(magic)),
		sum: crc32.Update(0, castagnoli, []byte(magic)), buf: make([]byte, 4*chunk)}
	n := r.U32()
	if r.err == nil && int64(n) <= r.left && n > MaxStateBytes { // (past the end: truncated)
		return bad(fmt.Errorf("a state of %d bytes, more than %d", n, MaxStateBytes))
	}
	js := r.Bytes(uint64(n))
	if r.err != nil {
		return bad(r.err)
	}
	if err := json.Unmarshal(js, state); err != nil {
		return bad(fmt.Errorf("state: %w", err))
	}
	return r, nil
}

// checkMagic reads the first len(magic) bytes of f, which must be magic.
func checkMagic(f *os.File, magic string) error {
	head := make([]byte, len(magic))
	if n, _ := io.ReadFull(f, head); n < len(head) || string(head) != magic {
		return magicError(head[:n], magic)
	}
	return nil
}

// verifySum reads f (of size bytes) from its start and checks that its last
// four bytes are the checksum of the others.
func verifySum(f *os.File, size int64) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	h := crc32.New(castagnoli)
	if _, err := io.CopyN(h, f, size-4); err != nil {
		return fmt.Errorf("%w (the file shrank while read)", err)
	}
	var b [4]byte
	if _, err := io.ReadFull(f, b[:]); err != nil {
		return fmt.Errorf("%w (the file shrank while read)", err)
	}
	if h.Sum32() != binary.LittleEndian.Uint32(b[:]) {
		return errors.New("checksum mismatch (truncated or corrupt file)")
	}
	return nil
}

// fill reads len(p) bytes of the body into p.
func (r *Reader) fill(p []byte) {
	if r.err != nil {
		clear(p)
		return
	}
	if int64(len(p)) > r.left {
		r.err = errShort
		clear(p)
		return
	}
	if _, err := io.ReadFull(r.r, p); err != nil {
		r.err = fmt.Errorf("%w (the file shrank while read)", err)
		clear(p)
		return
	}
	r.sum = crc32.Update(r.sum, castagnoli, p)
	r.left -= int64(len(p))
}

// Err returns the first error of a read, nil if none.
func (r *Reader) Err() error { return r.err }

// U32 reads a uint32.
func (r *Reader) U32() uint32 {
	b := r.buf[:4]
	r.fill(b)
	return binary.LittleEndian.Uint32(b)
}

// U64 reads a uint64.
func (r *Reader) U64() uint64 {
	b := r.buf[:8]
	r.fill(b)
	return binary.LittleEndian.Uint64(b)
}

// Bytes reads n bytes, n at most the bytes left (nil after an error).
func (r *Reader) Bytes(n uint64) []byte {
	if r.err == nil && n > uint64(r.left) {
		r.err = errShort
	}
	if r.err != nil {
		return nil
	}
	b := make([]byte, n)
	r.fill(b)
	return b
}

// Floats reads what Writer.Floats wrote into a new slice, its length at
// most what the bytes left can hold (nil after an error).
func (r *Reader) Floats() []float32 {
	n := r.U64()
	if r.err == nil && n > uint64(r.left)/4 {
		r.err = errShort
	}
	if r.err != nil {
		return nil
	}
	s := make([]float32, n)
	r.read(s)
	return s
}

// FloatsInto reads what Writer.Floats wrote into dst, whose length it must
// have; what names the values in the error otherwise.
func (r *Reader) FloatsInto(dst []float32, what string) {
	n := r.U64()
	if r.err == nil && n != uint64(len(dst)) {
		r.err = fmt.Errorf("%s: %d values, the run has %d", what, n, len(dst))
	}
	r.read(dst)
}

// read fills dst with float32s, a chunk at a time.
func (r *Reader) read(dst []float32) {
	for i := 0; i < len(dst) && r.err == nil; i += chunk {
		part := dst[i:min(i+chunk, len(dst))]
		b := r.buf[:4*len(part)]
		r.fill(b)
		for j := range part {
			part[j] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*j:]))
		}
	}
}

// Close checks that the body was read to its end and that the file still
// holds the checksum of what was read (it may have changed since Open), and
// closes the file. It returns the first error of the reads, naming the file.
func (r *Reader) Close() error {
	err := r.err
	if err == nil && r.left != 0 {
		err = errors.New("trailing bytes")
	}
	if err == nil {
		err = r.checkSum()
	}
	r.f.Close()
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", r.path, err)
	}
	return nil
}

// checkSum reads the checksum after the body and checks it against what was
// read, and that the file ends there.
func (r *Reader) checkSum() error {
	var b [4]byte
	if _, err := io.ReadFull(r.r, b[:]); err != nil {
		return fmt.Errorf("%w (the file shrank while read)", err)
	}
	if n, _ := r.r.Read(make([]byte, 1)); n != 0 {
		return errors.New("the file grew while read")
	}
	if binary.LittleEndian.Uint32(b[:]) != r.sum {
		return errors.New("checksum mismatch (the file changed while read)")
	}
	return nil
}

// ReadHead decodes the JSON state at the head of the checkpoint at path into
// state, without reading the rest of the file or checking its checksum. Its
// errors say what is wrong without naming the file: CheckNoUnfinished, which
// reads a head through a trainer's status, names it.
func ReadHead(path, magic string, state any) error {
	f, info, err := model.OpenRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return readHead(f, info.Size(), magic, state)
}

// ReadResumeHead reads the head of the checkpoint a run resumes from, as
// ReadHead does, before any other work: every error names the file (a
// missing or odd file, one that is not a checkpoint of the command of magic,
// a damaged head).
func ReadResumeHead(path, magic string, state any) error {
	f, info, err := model.OpenRegular(path)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err) // it names the file
	}
	defer f.Close()
	if err := readHead(f, info.Size(), magic, state); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return nil
}

// readHead decodes the JSON state at the head of f, a checkpoint of size
// bytes, into state.
func readHead(f *os.File, size int64, magic string, state any) error {
	if err := checkMagic(f, magic); err != nil {
		return err
	}
	truncated := errors.New("truncated state")
	var b [4]byte
	if _, err := io.ReadFull(f, b[:]); err != nil {
		return truncated
	}
	n := int64(binary.LittleEndian.Uint32(b[:]))
	if n > MaxStateBytes || n > size-int64(len(magic))-4 {
		return truncated
	}
	js := make([]byte, n)
	if _, err := io.ReadFull(f, js); err != nil {
		return truncated
	}
	if err := json.Unmarshal(js, state); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	return nil
}

// Run is what CheckNoUnfinished needs to know of the run whose checkpoint
// is in the way.
type Run struct {
	// Finished is set when the run did all its work: its checkpoint may go.
	Finished bool
	// Epochs are the epochs the run trained (logged when its checkpoint is
	// replaced).
	Epochs int
	// Stopped says where an unfinished run stopped, as in "holds a run
	// stopped after epoch 3 of 10 epochs".
	Stopped string
}

// CheckNoUnfinished refuses to start a run that writes its checkpoint to
// path when path holds the checkpoint of a run that did not finish (an
// interrupted one), unless the run resumes from that very file (resume): it
// would be overwritten by the run's first checkpoint. status reads the run
// of the checkpoint at path. A finished run's checkpoint is replaced, with a
// note in log; a file status cannot read is refused too.
func CheckNoUnfinished(path, resume string, log *slog.Logger, status func(path string) (Run, error)) error {
	if resume != "" && outpath.SamePath(path, resume) {
		return nil
	}
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	run, err := status(path)
	if err != nil {
		return fmt.Errorf("%w: %s is in the place of this run's checkpoint and cannot be read as one (%w); "+
			"move it away or remove it, or choose another --out or --checkpoint-dir", ErrUnfinished, path, err)
	}
	if run.Finished {
		log.Info("replacing the checkpoint of a finished run", "file", path, "epochs", run.Epochs)
		return nil
	}
	return fmt.Errorf("%w: %s holds a run %s; continue it with --resume %s, or remove the file to start over",
		ErrUnfinished, path, run.Stopped, path)
}

// Diff lists the settings whose value in was (a checkpoint's) is not the
// one in now, as "key was (now now)", sorted by key; "" when was is nil (a
// checkpoint that does not record them) or nothing differs.
func Diff(was, now map[string]string) string {
	if was == nil {
		return ""
	}
	var diffs []string
	for k, v := range now {
		if w, ok := was[k]; ok && w != v {
			diffs = append(diffs, fmt.Sprintf("%s %s (now %s)", k, w, v))
		} else if !ok {
			diffs = append(diffs, fmt.Sprintf("%s not recorded (now %s)", k, v))
		}
	}
	slices.Sort(diffs)
	return strings.Join(diffs, ", ")
}
