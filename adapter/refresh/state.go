package refresh

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"github.com/text2vec-am/text2vec-am/internal/atomicfile"
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

// loadState reads path (a fresh state when path is "", missing, or records
// a finished refresh). A state of another class or other targets is an
// error rather than a silent restart.
func loadState(path, class string, targets []Target) (*state, error) {
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = t.Name
	}
	fresh := &state{Class: class, Targets: names}
	if path == "" {
		return fresh, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fresh, nil
	}
	if err != nil {
		return nil, fmt.Errorf("refresh: state file: %w", err)
	}
	var st state
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("refresh: state file %s: %w (delete it to start over)", path, err)
	}
	if st.Class != class || !slices.Equal(st.Targets, names) {
		return nil, fmt.Errorf("refresh: state file %s records class %s, vectors %q; this run is class %s, vectors %q (use another --state, or delete it)",
			path, st.Class, st.Targets, class, names)
	}
	if st.Done {
		return fresh, nil
	}
	return &st, nil
}

// save writes the state atomically (atomicfile: a temporary file renamed over
// path), mode 0600.
func (s *state) save(path string) error {
	if path == "" {
		return nil
	}
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("refresh: state: %w", err)
	}
	if err := atomicfile.WriteFile(path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("refresh: state file: %w", err)
	}
	return nil
}
