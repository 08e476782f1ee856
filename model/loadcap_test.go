package model

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/text2vec-am/text2vec-am/internal/testfiles"
)

// TestLoadFileSparseHuge: a sparse 30 GB weights file whose header declares
// exactly its size is refused before its payload is read when it exceeds
// the memory the process may use (here a 1 GiB Go memory limit).
func TestLoadFileSparseHuge(t *testing.T) {
	const size = 30 << 30
	path := filepath.Join(t.TempDir(), "huge.t2v")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	head := make([]byte, headerLen)
	copy(head, weightsMagic)
	binary.LittleEndian.PutUint32(head[8:], weightsVersion)
	binary.LittleEndian.PutUint64(head[12:], size-headerLen-4)
	f.Write(head)
	if err := f.Truncate(size); err != nil {
		f.Close()
		t.Skip(err)
	}
	f.Close()
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 30))
	_, err = LoadFile(path)
	if !errors.Is(err, ErrTooLargeToLoad) {
		t.Errorf("LoadFile: %v, want ErrTooLargeToLoad", err)
	}
}

func TestLoadCap(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(123 << 20))
	if c := loadCap(); c != 123<<20 {
		t.Errorf("loadCap under a 123 MiB limit: %d", c)
	}
	if err := checkLoadSize(123<<20 + 1); !errors.Is(err, ErrTooLargeToLoad) {
		t.Errorf("one byte over: %v", err)
	}
}

func TestIsWeightsFileNonRegular(t *testing.T) {
	isWeights := func(path string) error { _, err := IsWeightsFile(path); return err }
	testfiles.RefusesNonRegular(t, "IsWeightsFile", isWeights, func(f testfiles.File, err error) {
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("IsWeightsFile on a %s: %v, want ErrNotRegular", f.Kind, err)
		}
	})
}
