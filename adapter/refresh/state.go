package refresh

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"

	"github.com/text2vec-am/text2vec-am/internal/atomicfile"
	"github.com/text2vec-am/text2vec-am/model"
)

// state is what a State file records: where the cursor stands and the
// counts so far.
type state struct {
	Class   string   `json:"class"`
	Targets []string `json:"targets"`
	After   string   `json:"after"` // the last object id written (the cursor)
	// Pass is the pass over the collection (0 first); PassRead and
	// PassRepeated count this pass's objects read and listed again.
	Pass         int   `json:"pass"`
	PassRead     int   `json:"pass_read"`
	PassRepeated int   `json:"pass_repeated"`
	Stats        Stats `json:"stats"`
	Done         bool  `json:"done"`
}

// maxStateBytes bounds a state file: it holds a class, the vector names, a
// cursor id and counts, a few hundred bytes.
const maxStateBytes = 1 << 20

// ErrBadState marks a state file refresh cannot have written: larger than
// maxStateBytes, or with a count below 0 or above what the others allow.
var ErrBadState = errors.New("not a state refresh writes")

// loadState reads path (a fresh state when path is "", missing, or records
// a finished refresh). A state of another class or other targets is an
// error rather than a silent restart, and so is a path that is not a regular
// file (model.ErrNotRegular: a FIFO would block, a device never end) or a
// state refresh cannot have written (ErrBadState).
func loadState(path, class string, targets []Target) (*state, error) {
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = t.Name
	}
	fresh := &state{Class: class, Targets: names}
	if path == "" {
		return fresh, nil
	}
	data, err := readStateFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fresh, nil
	}
	if err != nil {
		return nil, fmt.Errorf("state file: %w", err)
	}
	var st state
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("state file %s: %w (delete it to start over)", path, err)
	}
	if err := st.check(); err != nil {
		return nil, fmt.Errorf("state file %s: %w (delete it to start over)", path, err)
	}
	if st.Class != class || !slices.Equal(st.Targets, names) {
		return nil, fmt.Errorf("state file %s records class %s, vectors %q; this run is class %s, vectors %q (use another --state, or delete it)",
			path, st.Class, st.Targets, class, names)
	}
	if st.Done {
		return fresh, nil
	}
	return &st, nil
}

// readStateFile reads path: a regular file (model.OpenRegular, opened
// without blocking) of at most maxStateBytes.
func readStateFile(path string) ([]byte, error) {
	f, _, err := model.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxStateBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxStateBytes {
		return nil, fmt.Errorf("%s: %w: larger than %d bytes", path, ErrBadState, maxStateBytes)
	}
	return data, nil
}

// check refuses counts refresh never records (ErrBadState), naming the
// field: a count below 0, a pass at or past maxPasses, passes done beyond
// the pass under way, this pass's counts above the totals, or more objects
// processed than read.
func (s *state) check() error {
	st := s.Stats
	for _, c := range []struct {
		field string
		v     int
	}{{"pass", s.Pass}, {"pass_read", s.PassRead}, {"pass_repeated", s.PassRepeated}, {"stats.read", st.Read},
		{"stats.updated", st.Updated}, {"stats.unchanged", st.Unchanged}, {"stats.empty", st.Empty},
		{"stats.failed", st.Failed}, {"stats.repeated", st.Repeated}, {"stats.passes", st.Passes}} {
		if c.v < 0 {
			return fmt.Errorf("%w: %s is %d, below 0", ErrBadState, c.field, c.v)
		}
	}
	switch {
	case s.Pass >= maxPasses:
		return fmt.Errorf("%w: pass is %d, refresh makes at most %d passes (0 to %d)", ErrBadState, s.Pass, maxPasses, maxPasses-1)
	case st.Passes > s.Pass+1:
		return fmt.Errorf("%w: stats.passes is %d, more than the %d of pass %d", ErrBadState, st.Passes, s.Pass+1, s.Pass)
	case s.PassRead > st.Read:
		return fmt.Errorf("%w: pass_read is %d, more than stats.read %d", ErrBadState, s.PassRead, st.Read)
	case s.PassRepeated > st.Repeated:
		return fmt.Errorf("%w: pass_repeated is %d, more than stats.repeated %d", ErrBadState, s.PassRepeated, st.Repeated)
	}
	rest := st.Read // each object read is updated, unchanged, empty or failed
	for _, v := range []int{st.Updated, st.Unchanged, st.Empty, st.Failed} {
		if v > rest {
			return fmt.Errorf("%w: stats.updated, unchanged, empty and failed (%d, %d, %d, %d) add up to more than stats.read %d",
				ErrBadState, st.Updated, st.Unchanged, st.Empty, st.Failed, st.Read)
		}
		rest -= v
	}
	return nil
}

// save writes the state atomically (atomicfile: a temporary file renamed over
// path), mode 0600.
func (s *state) save(path string) error {
	if path == "" {
		return nil
	}
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("state: %w", err)
	}
	if err := atomicfile.WriteFile(path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("state file: %w", err)
	}
	return nil
}
