package memory

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/text2vec-am/text2vec-am/internal/atomicfile"
	"github.com/text2vec-am/text2vec-am/model"
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

// maxModelRecord bounds the bytes read of a model record: a record is a
// model's name and 16 hex digits, and a larger file is not one.
const maxModelRecord = 64 << 10

// errModelRecord marks a model file that holds no record: not a regular file,
// larger than maxModelRecord, empty or torn (a crash before its data reached
// the disk). Open reports it as damaged; a writer's claim replaces it.
var errModelRecord = errors.New("not a model record")

// ClaimModel says that id, the model of the caller, writes the memory from
// now on, and returns the model the memory's directory records: id itself,
// recorded now when the directory records none or a damaged record (which is
// replaced, with a warning naming it), or another model's when another model
// wrote it. A memory in RAM records nothing, a read-only one writes nothing:
// both return id and Stats shows only what the directory records.
// Stats.ModelWarning then says whether the two differ; Clear records id,
// since the emptied memory holds nothing of another model (a Clear without a
// claim removes the record).
func (m *Memory) ClaimModel(id ModelID) (ModelID, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.model = id
	if m.dir == "" {
		return id, nil
	}
	rec, ok, err := readModel(m.dir)
	switch {
	case ok:
		m.recorded = rec
		return rec, nil
	case m.opts.ReadOnly:
		return id, err
	case errors.Is(err, errModelRecord):
		m.log.Warn("the context memory's model record is damaged: it is replaced by this model's",
			"file", filepath.Join(m.dir, modelFile), "err", err, "model", id.String())
	case err != nil:
		return id, err
	}
	if err := writeModel(m.dir, id); err != nil {
		return id, err
	}
	m.recorded = id
	m.modelReplaced(id)
	return id, nil
}

// modelReplaced (mu held) notes in the damage Open found that the model
// file now holds id's record.
func (m *Memory) modelReplaced(id ModelID) {
	for i := range m.damage {
		if d := &m.damage[i]; d.File == modelFile && d.MovedTo == "" {
			d.MovedTo = "(replaced by the record of model " + id.String() + ")"
		}
	}
}

// openModel reads the model the directory records, at Open; a model file
// that holds no record is reported as damaged (memory check), which a
// writer's claim repairs.
func (m *Memory) openModel() {
	rec, ok, err := readModel(m.dir)
	switch {
	case ok:
		m.recorded = rec
	case errors.Is(err, errModelRecord):
		m.damage = append(m.damage, Damage{File: modelFile, Problem: err.Error()})
		m.log.Warn("the context memory's model record is damaged: the next writer's claim replaces it",
			"file", filepath.Join(m.dir, modelFile), "err", err)
	case err != nil:
		m.log.Warn("the context memory's model is not known", "err", err)
	}
}

// readModel returns the model dir's model file records; ok is false when
// there is no such file. The file is opened without blocking and read only if
// it is a regular file (not a link) of at most maxModelRecord bytes; anything else, or a
// file that holds no record, is an errModelRecord naming the file.
func readModel(dir string) (id ModelID, ok bool, err error) {
	path := filepath.Join(dir, modelFile)
	f, err := openModelFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return id, false, nil
	case errors.Is(err, model.ErrNotRegular):
		return id, false, fmt.Errorf("%w: %w", errModelRecord, err)
	case err != nil:
		return id, false, fmt.Errorf("read the memory's model record: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxModelRecord+1))
	switch {
	case err != nil:
		return id, false, fmt.Errorf("read the memory's model record %s: %w", path, err)
	case len(data) > maxModelRecord:
		return id, false, fmt.Errorf("%s: %w: larger than %d bytes", path, errModelRecord, maxModelRecord)
	}
	if err := json.Unmarshal(data, &id); err != nil {
		return id, false, fmt.Errorf("%s: %w: %w", path, errModelRecord, err)
	}
	if id.Fingerprint == "" {
		return id, false, fmt.Errorf(`%s: %w: no "vocabulary"`, path, errModelRecord)
	}
	return id, true, nil
}

// openModelFile opens path as the memory opens its logs and snapshots: only
// a regular file, not a symbolic link (whatever it points to), opened
// without blocking (model.OpenRegular).
func openModelFile(path string) (*os.File, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w: it is %s", path, model.ErrNotRegular, model.FileKind(st.Mode()))
	}
	f, _, err := model.OpenRegular(path)
	return f, err
}

// writeModel records id in dir's model file, durably (atomicfile: a new
// temporary file, fsynced and renamed over it, the directory fsynced).
func writeModel(dir string, id ModelID) error {
	data, err := json.Marshal(id)
	if err != nil {
		return fmt.Errorf("encode the memory's model record: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, modelFile), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("record the memory's model: %w", err)
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
	if m.model.Fingerprint == "" || m.recorded.Fingerprint == "" || m.recorded.Fingerprint == m.model.Fingerprint {
		return ""
	}
	return fmt.Sprintf("the context memory was written with model %s and is used with model %s: "+
		"it holds contexts of the words the other model's vocabulary chose; "+
		"warm it again with this model, or clear it", m.recorded, m.model)
}
