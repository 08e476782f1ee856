package refresh

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoadState: whatever a --state file holds, loadState returns an error
// naming the file or a state of the run's class and targets whose counts
// pass check, which save writes back to a file that loads the same.
func FuzzLoadState(f *testing.F) {
	targets := []Target{{Name: "am"}, {Name: "other"}}
	st := &state{Class: "Doc", Targets: []string{"am", "other"}, After: "0b8c5c1e-0000-4000-8000-000000000001",
		Pass: 1, PassRead: 2, PassRepeated: 1, Stats: Stats{Read: 9, Updated: 4, Unchanged: 3, Empty: 1, Failed: 1,
			Repeated: 2, Passes: 2}}
	path := filepath.Join(f.TempDir(), "state.json")
	if err := st.save(path); err != nil {
		f.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"class":"Doc","targets":["am","other"],"done":true}`))
	f.Add([]byte(`{"class":"Doc","targets":["am","other"],"stats":{"read":-1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "state.json")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := loadState(p, "Doc", targets)
		if err != nil {
			if !strings.Contains(err.Error(), p) {
				t.Fatalf("err = %v, want it to name %s", err, p)
			}
			return
		}
		if got.Class != "Doc" || len(got.Targets) != 2 || got.check() != nil {
			t.Fatalf("loaded %+v", got)
		}
		if err := got.save(p); err != nil {
			t.Fatal(err)
		}
		again, err := loadState(p, "Doc", targets)
		if err != nil || again.After != got.After || again.Stats != got.Stats || again.Pass != got.Pass {
			t.Fatalf("saved %+v, loaded %+v, %v", got, again, err)
		}
	})
}
