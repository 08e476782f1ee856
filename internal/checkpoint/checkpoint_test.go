package checkpoint

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

type testState struct {
	Name  string
	Count int
}

// writeTest writes a checkpoint of a state, a uint32, a uint64, bytes and
// floats (more than a chunk of them) at path, in a directory Write creates.
func writeTest(t testing.TB, path string, floats []float32) {
	t.Helper()
	err := Write(path, EmbeddingsMagic, testState{"run", 7}, func(w *Writer) {
		w.U32(0xdeadbeef)
		w.U64(1 << 40)
		w.U64(3)
		w.Write([]byte("abc"))
		w.Floats(floats)
		w.Floats(floats[:5])
	})
	if err != nil {
		t.Fatal(err)
	}
}

// What Write writes, Open and the Reader give back, the floats bit for bit;
// ReadHead reads the state alone.
func TestWriteAndRead(t *testing.T) {
	floats := make([]float32, chunk+123)
	for i := range floats {
		floats[i] = float32(i) * 0.37
	}
	floats[1] = float32(math.Copysign(0, -1))
	path := filepath.Join(t.TempDir(), "new", "x.ckpt")
	writeTest(t, path, floats)
	var st testState
	r, err := Open(path, EmbeddingsMagic, &st)
	if err != nil {
		t.Fatal(err)
	}
	a, b := r.U32(), r.U64()
	abc := r.Bytes(r.U64())
	got := make([]float32, len(floats))
	r.FloatsInto(got, "the floats")
	five := r.Floats()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if st != (testState{"run", 7}) || a != 0xdeadbeef || b != 1<<40 || string(abc) != "abc" {
		t.Errorf("read back %+v %x %x %q", st, a, b, abc)
	}
	if !slices.Equal(got, floats) || !math.Signbit(float64(got[1])) || !slices.Equal(five, floats[:5]) {
		t.Error("the floats read back differ")
	}
	var head testState
	if err := ReadHead(path, EmbeddingsMagic, &head); err != nil || head != st {
		t.Errorf("ReadHead: %+v, %v", head, err)
	}
}

// A damaged file is an error naming it, whatever the damage: truncated,
// a byte flipped, another trainer's checkpoint, a length beyond the file,
// values left unread, a read past the values.
func TestDamaged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.ckpt")
	writeTest(t, path, make([]float32, 100))
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	open := func(data []byte, magic string) error {
		p := filepath.Join(dir, "damaged")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var st testState
		r, err := Open(p, magic, &st)
		if err == nil {
			r.U32()
			r.U64()
			r.Bytes(r.U64())
			r.FloatsInto(make([]float32, 100), "the floats")
			r.FloatsInto(make([]float32, 4), "the five")
			err = r.Close()
		}
		if err == nil || !strings.Contains(err.Error(), "checkpoint "+p+": ") {
			t.Errorf("err = %v, want one naming %s", err, p)
			return errors.New("")
		}
		return err
	}
	for _, n := range []int{0, 7, 8, 15, 16, len(good) / 2, len(good) - 1} {
		open(good[:n], EmbeddingsMagic)
	}
	for _, at := range []int{1, 9, 14, len(good) / 2, len(good) - 1} {
		bad := bytes.Clone(good)
		bad[at] ^= 1
		err := open(bad, EmbeddingsMagic)
		if !strings.Contains(err.Error(), "checksum mismatch") && !strings.Contains(err.Error(), "bad magic") {
			t.Errorf("byte %d flipped: %v", at, err)
		}
	}
	if err := open(good, TrainMagic); !strings.Contains(err.Error(), "a checkpoint of text2vec-am train-embeddings, not of train") {
		t.Errorf("another trainer's checkpoint: %v", err)
	}
	if err := open(good, EmbeddingsMagic); !strings.Contains(err.Error(), "the five: 5 values, the run has 4") {
		t.Errorf("values of another length: %v", err)
	}
	if err := ReadHead(filepath.Join(dir, "damaged"), EmbeddingsMagic, &testState{}); err != nil {
		t.Errorf("ReadHead of a good head: %v", err)
	}
}

// CheckNoUnfinished lets a run start over nothing, over a finished run's
// checkpoint (logged) and over the checkpoint it resumes; it refuses an
// unfinished run's, naming where it stopped and both ways on, and a file
// that status cannot read.
func TestCheckNoUnfinished(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.ckpt")
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	run := Run{Stopped: "stopped in epoch 2 of 3"}
	status := func(string) (Run, error) { return run, nil }
	if err := CheckNoUnfinished(path, "", logger, status); err != nil {
		t.Errorf("no file: %v", err)
	}
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := CheckNoUnfinished(path, "", logger, status)
	for _, want := range []string{path + " holds a run stopped in epoch 2 of 3", "--resume " + path, "remove the file"} {
		if !errors.Is(err, ErrUnfinished) || !strings.Contains(err.Error(), want) {
			t.Errorf("unfinished: %v, want ErrUnfinished naming %q", err, want)
		}
	}
	if err := CheckNoUnfinished(path, filepath.Join(dir, ".", "x.ckpt"), logger, status); err != nil {
		t.Errorf("resuming the very file: %v", err)
	}
	run.Finished = true
	err = CheckNoUnfinished(path, "", logger, status)
	if err != nil || !strings.Contains(log.String(), "replacing the checkpoint of a finished run") {
		t.Errorf("finished: %v, log %q", err, log.String())
	}
	broken := func(string) (Run, error) { return Run{}, io.ErrUnexpectedEOF }
	if err := CheckNoUnfinished(path, "", logger, broken); !errors.Is(err, ErrUnfinished) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("unreadable: %v", err)
	}
}

// Diff names each setting that differs with both values, in key order, and
// those the checkpoint does not record; nothing for a checkpoint without
// settings.
func TestDiff(t *testing.T) {
	was := map[string]string{"--dim": "100", "--lr": "0.05", "--seed": "1"}
	now := map[string]string{"--dim": "200", "--lr": "0.05", "--seed": "2", "--epochs": "5"}
	want := "--dim 100 (now 200), --epochs not recorded (now 5), --seed 1 (now 2)"
	if got := Diff(was, now); got != want {
		t.Errorf("Diff = %q, want %q", got, want)
	}
	if got := Diff(nil, now); got != "" {
		t.Errorf("Diff without recorded settings = %q", got)
	}
}

// ReadResumeHead decodes a checkpoint's head, and each error names the file:
// missing, a directory, another command's checkpoint, a head cut short.
func TestReadResumeHead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.ckpt")
	writeTest(t, path, make([]float32, 10))
	var st testState
	if err := ReadResumeHead(path, EmbeddingsMagic, &st); err != nil || st != (testState{"run", 7}) {
		t.Fatalf("ReadResumeHead: %+v, %v", st, err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(dir, "short.ckpt")
	if err := os.WriteFile(short, good[:len(EmbeddingsMagic)+6], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, magic, want string }{
		{filepath.Join(dir, "missing.ckpt"), EmbeddingsMagic, "missing.ckpt"},
		{dir, EmbeddingsMagic, dir},
		{path, TrainMagic, path},
		{short, EmbeddingsMagic, short + ": truncated state"},
	} {
		err := ReadResumeHead(c.path, c.magic, &testState{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "checkpoint") {
			t.Errorf("ReadResumeHead(%s, %s) = %v, want an error starting with checkpoint and holding %q",
				c.path, c.magic, err, c.want)
		}
	}
}
