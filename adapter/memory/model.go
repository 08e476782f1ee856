package memory

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// modelFile is the file in a memory's directory that names the model the
// memory is written with. It sits beside the log and snapshot files, whose
// format does not change: a memory without it opens as before, and the first
// writer that claims it (ClaimModel) records its model. Open reads it, so
// that Stats names the model of any memory that has one.
const modelFile = "model.json"

// ModelID names a model: its name (as serve's /meta reports it) and a
// fingerprint of its base vocabulary and counts, which decide the words a
// memory keeps contexts for.
type ModelID struct {
	Name        string `json:"name"`
	Fingerprint string `json:"vocabulary"`
}

// String returns "NAME (vocabulary FINGERPRINT)".
func (id ModelID) String() string {
	return fmt.Sprintf("%s (vocabulary %s)", id.Name, id.Fingerprint)
}

// ClaimModel says that id, the model of the caller, writes the memory from
// now on, and returns the model the memory's directory records: id itself,
// recorded now when the directory records none (and the memory is not read
// only), or another model's when another model wrote it. A memory in RAM
// records nothing and returns id. Stats.ModelWarning then says whether the
// two differ; Clear records id, since the emptied memory holds nothing of
// another model (a Clear without a claim removes the record).
func (m *Memory) ClaimModel(id ModelID) (ModelID, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.model, m.recorded = id, id
	if m.dir == "" {
		return id, nil
	}
	rec, ok, err := readModel(m.dir)
	switch {
	case err != nil:
		return id, err
	case ok:
		m.recorded = rec
		return rec, nil
	case m.opts.ReadOnly:
		return id, nil
	}
	return id, writeModel(m.dir, id)
}

// readModel returns the model dir's model file records; ok is false when
// there is no such file.
func readModel(dir string) (id ModelID, ok bool, err error) {
	path := filepath.Join(dir, modelFile)
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return id, false, nil
	case err != nil:
		return id, false, fmt.Errorf("read the memory's model record: %w", err)
	}
	if err := json.Unmarshal(data, &id); err != nil {
		return id, false, fmt.Errorf("the memory's model record %s is damaged: %w", path, err)
	}
	if id.Fingerprint == "" {
		return id, false, fmt.Errorf(`the memory's model record %s is damaged: no "vocabulary"`, path)
	}
	return id, true, nil
}

// writeModel records id in dir's model file (a temporary file renamed over it).
func writeModel(dir string, id ModelID) error {
	data, err := json.Marshal(id)
	if err != nil {
		return fmt.Errorf("encode the memory's model record: %w", err)
	}
	path := filepath.Join(dir, modelFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("write the memory's model record: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write the memory's model record: %w", err)
	}
	return nil
}

// recordClear records in dir that the memory, just cleared, is written with
// the model id from now on, or with none known (id zero: its record is
// removed, and the next claim records its model).
func recordClear(dir string, id ModelID) error {
	if id.Fingerprint != "" {
		return writeModel(dir, id)
	}
	if err := os.Remove(filepath.Join(dir, modelFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the memory's model record: %w", err)
	}
	return nil
}

// modelWarning (mu held) says that the memory was written with another
// model than the one that claimed it, or "".
func (m *Memory) modelWarning() string {
	if m.model.Fingerprint == "" || m.recorded.Fingerprint == m.model.Fingerprint {
		return ""
	}
	return fmt.Sprintf("the context memory was written with model %s and is used with model %s: "+
		"it holds contexts of the words the other model's vocabulary chose; "+
		"warm it again with this model, or clear it", m.recorded, m.model)
}
