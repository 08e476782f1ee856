package memory

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaimModel: a memory without a model record opens as before and
// records the first model that claims it; a later claim with another model
// returns the recorded one and Stats warns naming both, also after a
// reopen; a read-only claim writes nothing; Clear records the claiming
// model; a damaged record is reported naming the file and replaced by
// the next claim.
func TestClaimModel(t *testing.T) {
	dir := t.TempDir()
	a := ModelID{Name: "a", Fingerprint: "00000000000000aa"}
	b := ModelID{Name: "b", Fingerprint: "00000000000000bb"}
	m := mustOpen(t, dir, quietOptions())
	if err := m.Remember([]Observation{{Word: "zq", Context: "the zq daemon"}}); err != nil {
		t.Fatal(err)
	}
	if st := m.Stats(); st.Model != "" || st.ModelWarning != "" {
		t.Errorf("unclaimed memory: model %q, warning %q", st.Model, st.ModelWarning)
	}
	if rec, err := m.ClaimModel(a); err != nil || rec != a {
		t.Fatalf("first claim: %v, %v; want %v", rec, err, a)
	}
	m.Close()

	ro := quietOptions()
	ro.ReadOnly = true
	r := mustOpen(t, dir, ro)
	if st := r.Stats(); st.Model != a.String() || st.ModelWarning != "" {
		t.Errorf("read-only open: model %q, warning %q; want %q and none", st.Model, st.ModelWarning, a)
	}
	r.Close()

	m = mustOpen(t, dir, quietOptions())
	if rec, err := m.ClaimModel(b); err != nil || rec != a {
		t.Errorf("claim by another model: %v, %v; want the recorded %v", rec, err, a)
	}
	w := m.Stats().ModelWarning
	if !strings.Contains(w, a.String()) || !strings.Contains(w, b.String()) {
		t.Errorf("warning %q does not name both models", w)
	}
	if err := m.Clear(); err != nil {
		t.Fatal(err)
	}
	if st := m.Stats(); st.Model != b.String() || st.ModelWarning != "" {
		t.Errorf("after Clear: model %q, warning %q; want %q and none", st.Model, st.ModelWarning, b)
	}
	m.Close()
	m = mustOpen(t, dir, quietOptions())
	if rec, err := m.ClaimModel(b); err != nil || rec != b || m.Stats().ModelWarning != "" {
		t.Errorf("claim after Clear: %v, %v, warning %q; want %v", rec, err, m.Stats().ModelWarning, b)
	}
	m.Close()

	path := filepath.Join(dir, modelFile)
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	m = mustOpen(t, dir, quietOptions())
	defer m.Close()
	if d := m.Stats().Damaged; len(d) != 1 || d[0].File != modelFile || !strings.Contains(d[0].Problem, path) {
		t.Errorf("damaged record: Stats.Damaged %+v, want %s named", d, path)
	}
	if rec, err := m.ClaimModel(a); err != nil || rec != a {
		t.Errorf("claim over a damaged record: %v, %v; want %v recorded", rec, err, a)
	}
	if d := m.Stats().Damaged; len(d) != 1 || !strings.Contains(d[0].MovedTo, a.String()) {
		t.Errorf("damaged record after the claim: Stats.Damaged %+v, want it replaced by %v", d, a)
	}
}

// TestClaimModelReadOnly: a read-only memory without a record gets none,
// and its Stats show none (serve --memory off's /meta).
func TestClaimModelReadOnly(t *testing.T) {
	dir := t.TempDir()
	mustOpen(t, dir, quietOptions()).Close()
	ro := quietOptions()
	ro.ReadOnly = true
	r := mustOpen(t, dir, ro)
	defer r.Close()
	a := ModelID{Name: "a", Fingerprint: "00000000000000aa"}
	if rec, err := r.ClaimModel(a); err != nil || rec != a {
		t.Errorf("read-only claim: %v, %v", rec, err)
	}
	if _, err := os.Stat(filepath.Join(dir, modelFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a read-only claim wrote the record (%v)", err)
	}
	if st := r.Stats(); st.Model != "" {
		t.Errorf("Stats.Model %q, but the directory records no model", st.Model)
	}
}

// TestClearWithoutClaim: Clear of a memory no model claimed (memory clear)
// removes the record, so the next writer records its own model.
func TestClearWithoutClaim(t *testing.T) {
	dir := t.TempDir()
	m := mustOpen(t, dir, quietOptions())
	if _, err := m.ClaimModel(ModelID{Name: "a", Fingerprint: "00000000000000aa"}); err != nil {
		t.Fatal(err)
	}
	m.Close()
	m = mustOpen(t, dir, quietOptions())
	if err := m.Clear(); err != nil {
		t.Fatal(err)
	}
	m.Close()
	if _, err := os.Stat(filepath.Join(dir, modelFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the record is left after Clear (%v)", err)
	}
	m = mustOpen(t, dir, quietOptions())
	defer m.Close()
	b := ModelID{Name: "b", Fingerprint: "00000000000000bb"}
	if rec, err := m.ClaimModel(b); err != nil || rec != b || m.Stats().ModelWarning != "" {
		t.Errorf("claim after Clear: %v, %v, warning %q; want %v", rec, err, m.Stats().ModelWarning, b)
	}
}
