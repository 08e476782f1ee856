package memory

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// renameGenerations renames the log and the snapshot of dir (one of each) to
// generation gen and returns their new paths.
func renameGenerations(t *testing.T, m *Memory, dir string, gen uint64) []string {
	t.Helper()
	var paths []string
	for kind, pattern := range map[byte]string{kindLog: "log-*.amm", kindSnapshot: "snapshot-*.amm"} {
		to := m.path(kind, gen)
		if err := os.Rename(onlyFile(t, dir, pattern), to); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, to)
	}
	return paths
}

// memoryAt returns a closed memory directory of one snapshot and one log,
// renamed to generation gen, and the export of its state.
func memoryAt(t *testing.T, gen uint64) (dir, want string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "mem")
	m := mustOpen(t, dir, quietOptions())
	fill(t, m, 10, 2)
	if err := m.Snapshot(); err != nil {
		t.Fatal(err)
	}
	remember(t, m, "late", "a late sentence")
	want = export(t, m)
	m.abandon()
	renameGenerations(t, m, dir, gen)
	return dir, want
}

// TestGenerationTooLargeRefused: a file of a generation the memory could not
// advance from (renamed to ffff…) stops Open, read-only too, with an error
// naming it; the files stay as they are.
func TestGenerationTooLargeRefused(t *testing.T) {
	for _, gen := range []uint64{1<<64 - 1, maxGeneration + 1} {
		dir, _ := memoryAt(t, gen)
		before, _ := filepath.Glob(filepath.Join(dir, "*.amm*"))
		for _, ro := range []bool{true, false} {
			o := quietOptions()
			o.ReadOnly = ro
			m, err := Open(dir, o)
			if err == nil {
				m.Close()
				t.Fatalf("generation %#x, read-only %v: Open succeeded", gen, ro)
			}
			msg := err.Error()
			if !errors.Is(err, errGeneration) || !strings.Contains(msg, dir) || !strings.Contains(msg, "rename") {
				t.Errorf("generation %#x, read-only %v: %v", gen, ro, err)
			}
		}
		after, _ := filepath.Glob(filepath.Join(dir, "*.amm*"))
		if strings.Join(after, " ") != strings.Join(before, " ") {
			t.Errorf("generation %#x: files %v, want %v", gen, after, before)
		}
	}
}

// TestGenerationNeverWraps: a memory at the largest generation opens, keeps
// what it is taught, and a snapshot or a Clear fails loudly rather than
// start a generation that wraps to 0 (which Open never reads, so the old
// snapshot would stay newest and every later record be lost).
func TestGenerationNeverWraps(t *testing.T) {
	dir, _ := memoryAt(t, maxGeneration)
	o := quietOptions()
	o.SnapshotEvery = 3
	m := mustOpen(t, dir, o)
	for i := range 12 {
		remember(t, m, "taught", strings.Repeat("x", i+1)+" a taught sentence")
	}
	if err := m.Snapshot(); !errors.Is(err, errGeneration) {
		t.Errorf("Snapshot at the largest generation: %v", err)
	}
	if err := m.Clear(); !errors.Is(err, errGeneration) {
		t.Errorf("Clear at the largest generation: %v", err)
	}
	want := export(t, m)
	if !strings.Contains(want, "taught") {
		t.Fatalf("the taught word is missing:\n%s", want)
	}
	m.Close()
	m = mustOpen(t, dir, o)
	defer m.Close()
	if got := export(t, m); got != want {
		t.Errorf("after reopening:\n%s\nwant\n%s", got, want)
	}
	if g := m.Stats().Generation; g != maxGeneration {
		t.Errorf("generation %#x, want %#x", g, uint64(maxGeneration))
	}
}
