package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestLowerCapsLogAfterSnapshot: a memory whose log holds changes
// after its snapshot (a process that stopped without a final snapshot), reopened
// with a lower MaxWords, keeps its most recently changed word with every
// context it had, and counts as evicted only the words it dropped.
func TestLowerCapsLogAfterSnapshot(t *testing.T) {
	src := filepath.Join(t.TempDir(), "mem")
	m := mustOpen(t, src, quietOptions())
	for _, w := range []string{"alpha", "beta", "gamma"} {
		for i := range 5 {
			if err := m.Remember([]Observation{{Word: w, Context: fmt.Sprintf("%s seen %d", w, i)}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := m.Snapshot(); err != nil {
		t.Fatal(err)
	}
	if err := m.Remember([]Observation{{Word: "alpha", Context: "alpha seen again"}}); err != nil {
		t.Fatal(err)
	}
	if err := m.Sync(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "copy") // the files as a process killed now leaves them
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	m.Close()

	low := quietOptions()
	low.MaxWords = 1
	m = mustOpen(t, dir, low)
	defer m.Close()
	got, _ := m.Contexts(nil, "alpha")
	st := m.Stats()
	if len(got) != 6 || st.Words != 1 {
		t.Errorf("alpha, the most recently changed word, has %d contexts %q (%d words), want all 6", len(got), got, st.Words)
	}
	if st.Evicted != 2 || st.EvictedContexts != 10 {
		t.Errorf("Stats.Evicted %d, EvictedContexts %d: want beta and gamma, 2 words and 10 contexts",
			st.Evicted, st.EvictedContexts)
	}
}
