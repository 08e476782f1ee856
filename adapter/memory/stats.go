package memory

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// Stats is a summary of the memory.
type Stats struct {
	// Words and Contexts count the words with contexts and the stored contexts.
	Words    int `json:"words"`
	Contexts int `json:"contexts"`
	// Passages counts the passages counted for document frequencies (CountPassage);
	// DocFreqWords the distinct words counted; DocFreqRejected the words not
	// counted since Open (MaxDocFreqWords reached, or an invalid word), each
	// once per passage it was not counted in: those of the files Open read
	// under caps lower than they were written with included, once per
	// passage of a log and once per snapshot.
	Passages        int64 `json:"passages"`
	DocFreqWords    int   `json:"df_words"`
	DocFreqRejected int64 `json:"df_rejected"`
	// ContextBytes is the total size of the stored contexts; BudgetBytes
	// what counts against MaxBytes (the contexts, the words and a fixed
	// overhead per word and per context).
	ContextBytes int64 `json:"context_bytes"`
	BudgetBytes  int64 `json:"budget_bytes"`
	// Evicted counts the words evicted since Open to keep within the budget
	// (MaxBytes, MaxWords), those evicted by Open itself to fit caps lower
	// than the memory was written with included (exactly as the final
	// state implies unless the files held more than 4 times the
	// caps: then a word evicted as they were read and changed again by a
	// later log may count twice); EvictedContexts counts
	// the contexts they held. Neither is kept on disk: a new Open starts
	// them at 0.
	Evicted         int64 `json:"evicted"`
	EvictedContexts int64 `json:"evicted_contexts"`
	// PassageHashes counts the content hashes of counted passages kept.
	PassageHashes int `json:"passage_hashes"`
	// Offered counts the valid observations offered since Open; Rejected
	// counts observations ignored: an invalid word or context, or one
	// larger than the budget.
	Offered  int64 `json:"offered"`
	Rejected int64 `json:"rejected"`
	// Records counts log records appended since Open (not kept on disk).
	Records int64 `json:"records"`
	// LogBytes and SnapshotBytes are the sizes of the current log and snapshot files.
	LogBytes      int64 `json:"log_bytes"`
	SnapshotBytes int64 `json:"snapshot_bytes"`
	// Generation is the current log generation.
	Generation uint64 `json:"generation"`
	// Dir is the directory ("" in RAM only); ReadOnly and Sync as opened.
	Dir      string `json:"dir"`
	ReadOnly bool   `json:"read_only"`
	Sync     string `json:"sync"`
	// Damaged lists the damaged files Open found and salvaged.
	Damaged []Damage `json:"damaged,omitempty"`
	// WriteError is why passages cannot be stored now ("" when they can).
	WriteError string `json:"write_error,omitempty"`
	// Model is the model the memory's directory records (ClaimModel; empty
	// when none claimed it); ModelWarning says that it is not the model
	// that claimed it since Open ("" when it is).
	Model        string `json:"model,omitempty"`
	ModelWarning string `json:"model_warning,omitempty"`
}

// Stats returns a summary of the memory.
func (m *Memory) Stats() Stats {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return Stats{
		Words:           len(m.words),
		Contexts:        m.nctx,
		Passages:        m.passages,
		DocFreqWords:    len(m.df),
		DocFreqRejected: m.dfRejected,
		ContextBytes:    m.bytes,
		BudgetBytes:     m.used,
		Evicted:         m.evicted,
		EvictedContexts: m.evictCtx,
		PassageHashes:   m.seen.len(),
		Offered:         m.offered,
		Rejected:        m.rejected,
		Records:         m.appended,
		LogBytes:        m.logSize,
		SnapshotBytes:   m.snapshotBytes.Load(),
		Generation:      m.gen,
		Dir:             m.dir,
		ReadOnly:        m.opts.ReadOnly,
		Sync:            m.opts.Sync.String(),
		Damaged:         slices.Clone(m.damage),
		WriteError:      errString(m.failed),
		Model:           m.recordedName(),
		ModelWarning:    m.modelWarning(),
	}
}

// recordedName (mu held) returns the recorded model as Stats shows it.
func (m *Memory) recordedName() string {
	if m.recorded.Fingerprint == "" {
		return ""
	}
	return m.recorded.String()
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// ExportedWord is one line of Export.
type ExportedWord struct {
	Word string `json:"word"`
	// Contexts are the kept ones, in ascending order of their hash.
	Contexts []string `json:"contexts"`
	// DocFreq is the number of counted passages that contain the word.
	DocFreq int64 `json:"df"`
}

// Export writes the memory as JSON lines (one ExportedWord per line) sorted
// by word: every word with contexts or a document frequency. The passage
// count is in Stats.
func (m *Memory) Export(w io.Writer) error {
	m.mu.RLock()
	all := make([]ExportedWord, 0, max(len(m.words), len(m.df)))
	for word, e := range m.words {
		var df int64
		if c := m.df[word]; c != nil {
			df = c.n
		}
		all = append(all, ExportedWord{Word: word, Contexts: slices.Clone(e.ctx), DocFreq: df})
	}
	for word, c := range m.df {
		if _, ok := m.words[word]; !ok {
			all = append(all, ExportedWord{Word: word, Contexts: []string{}, DocFreq: c.n})
		}
	}
	m.mu.RUnlock()
	slices.SortFunc(all, func(a, b ExportedWord) int { return cmp.Compare(a.Word, b.Word) })
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range all {
		if err := enc.Encode(&all[i]); err != nil {
			return fmt.Errorf("export context memory: %w", err)
		}
	}
	return nil
}
