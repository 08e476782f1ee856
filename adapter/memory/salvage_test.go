package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// damagedDir returns a memory directory holding one snapshot (words and
// document frequencies) and one log after it with more records, and the
// export of its state.
func damagedDir(t *testing.T) (dir, want string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "mem")
	m := mustOpen(t, dir, quietOptions())
	fill(t, m, 10, 3)
	countPassages(t, m, "the word0 one", "the word1 two")
	if err := m.Snapshot(); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		remember(t, m, fmt.Sprintf("late%d", i), fmt.Sprintf("a late sentence %d", i))
	}
	countPassages(t, m, "the late0 three")
	want = export(t, m)
	m.abandon() // a crash: the log after the snapshot stays as it is
	return dir, want
}

func onlyFile(t *testing.T, dir, pattern string) string {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(dir, pattern))
	if len(matches) != 1 {
		t.Fatalf("%s: %v", pattern, matches)
	}
	return matches[0]
}

// TestHeaderBitFlips flips every bit of every header byte of the log and of
// the snapshot: Open succeeds every time, loses no intact record, says so
// (Stats.Damaged) unless the bit is one Open ignores, and after Close the
// state is on disk without the damaged file (moved aside, never rewritten).
func TestHeaderBitFlips(t *testing.T) {
	src, want := damagedDir(t)
	for _, kind := range []string{"log-*.amm", "snapshot-*.amm"} {
		orig := onlyFile(t, src, kind)
		data, err := os.ReadFile(orig)
		if err != nil {
			t.Fatal(err)
		}
		for i := range headerSize {
			for bit := range 8 {
				name := fmt.Sprintf("%s byte %d bit %d", kind[:3], i, bit)
				d := filepath.Join(t.TempDir(), "m")
				copyDir(t, src, d)
				flipped := slices.Clone(data)
				flipped[i] ^= 1 << bit
				p := filepath.Join(d, filepath.Base(orig))
				if err := os.WriteFile(p, flipped, 0o600); err != nil {
					t.Fatal(err)
				}
				// memory check / memory stats: read-only, nothing changes.
				ro := quietOptions()
				ro.ReadOnly = true
				r, err := Open(d, ro)
				if err != nil {
					t.Fatalf("%s: read-only Open: %v", name, err)
				}
				if got := export(t, r); got != want {
					t.Fatalf("%s: read-only state differs:\n%s\nwant\n%s", name, got, want)
				}
				damaged := len(r.Stats().Damaged) > 0
				r.Close()
				if after, _ := os.ReadFile(p); string(after) != string(flipped) {
					t.Fatalf("%s: a read-only Open changed the file", name)
				}
				if i < 10 && !damaged {
					t.Errorf("%s: damage not reported", name)
				}
				m, err := Open(d, quietOptions())
				if err != nil {
					t.Fatalf("%s: Open: %v", name, err)
				}
				if got := export(t, m); got != want {
					t.Fatalf("%s: state differs:\n%s\nwant\n%s", name, got, want)
				}
				if damaged {
					if _, err := os.Stat(p + damagedSuffix); err != nil {
						t.Errorf("%s: damaged file not moved aside: %v", name, err)
					}
				}
				remember(t, m, "after", "written after the damage")
				if err := m.Close(); err != nil {
					t.Fatalf("%s: Close: %v", name, err)
				}
				m = mustOpen(t, d, quietOptions())
				if len(m.Stats().Damaged) != 0 {
					t.Errorf("%s: still damaged after the salvage: %+v", name, m.Stats().Damaged)
				}
				if c, _ := m.Contexts(nil, "after"); len(c) != 1 {
					t.Errorf("%s: the write after the salvage is lost", name)
				}
				m.Close()
			}
		}
	}
}

// TestDamageInTheMiddle: a corrupt record in the middle of a log loses that
// record only; every intact record after it is read, and the file moves aside.
func TestDamageInTheMiddle(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mem")
	m := mustOpen(t, dir, quietOptions())
	for i := range 10 {
		remember(t, m, fmt.Sprintf("word%d", i), fmt.Sprintf("the sentence of word%d", i))
	}
	m.abandon()
	p := logFile(t, dir)
	b, _ := os.ReadFile(p)
	at := strings.Index(string(b), "the sentence of word3")
	b[at] ^= 0x20 // inside the payload: the record's checksum fails
	os.WriteFile(p, b, 0o600)
	var wc warnCapture
	m, err := Open(dir, wc.options())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		c, _ := m.Contexts(nil, fmt.Sprintf("word%d", i))
		if (len(c) == 1) != (i != 3) {
			t.Errorf("word%d: %q", i, c)
		}
	}
	st := m.Stats()
	if len(st.Damaged) != 1 || st.Damaged[0].Salvaged != 9 || st.Damaged[0].SkippedBytes == 0 {
		t.Errorf("damage report %+v", st.Damaged)
	}
	if !strings.Contains(wc.buf.String(), "level=ERROR") {
		t.Errorf("damage not logged as an error: %s", wc.buf.String())
	}
	m.Close()
	if _, err := os.Stat(p + damagedSuffix); err != nil {
		t.Error("not moved aside")
	}
}
