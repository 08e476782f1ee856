// Package command wires the flags of the adapter's commands to the packages
// that do the work: serve (package server over the context memory),
// memory warm|rebuild|stats|check|export|clear (package memory, rebuild)
// and healthcheck. Commands lists them for the text2vec-am binary.
package command

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/defaultmodel"
	"github.com/text2vec-am/text2vec-am/model"
)

// Commands returns the subcommands this package provides to the text2vec-am binary.
func Commands() []cli.Command {
	return []cli.Command{
		{Name: "serve", Summary: "serve vectors to a stock Weaviate (text2vec-transformers contract)", Run: runServe},
		memoryCommand(),
		{Name: "healthcheck", Summary: "exit 0 if a text2vec-am server answers ready (for container health checks)", Run: runHealthcheck},
	}
}

// vectorizerFlags are the flags shared by serve and memory warm: --model and
// the vectorizer's settings (vectorizer.RegisterFlags).
type vectorizerFlags struct {
	model string
	opts  vectorizer.Options
}

func (f *vectorizerFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.model, "model", "", "model weights `file` (serving bundle); empty or \"default\": the embedded default model")
	f.opts = vectorizer.DefaultOptions()
	vectorizer.RegisterFlags(fs, &f.opts)
}

func (f *vectorizerFlags) options() (vectorizer.Options, error) {
	if err := f.opts.Validate(); err != nil {
		return f.opts, cli.UsageError("%s", vectorizer.Describe(err, vectorizer.SurfaceFlag))
	}
	return f.opts, nil
}

// loadModel loads --model or the embedded default; it returns the model name for /meta.
func (f *vectorizerFlags) loadModel() (*model.Model, string, error) {
	m, err := defaultmodel.Open(f.model)
	if err != nil {
		return nil, "", err
	}
	if defaultmodel.IsDefault(f.model) {
		return m, defaultmodel.Name, nil
	}
	if m.Base == nil {
		return nil, "", fmt.Errorf("model %s holds %w", f.model, defaultmodel.ErrNotBundle)
	}
	return m, strings.TrimSuffix(filepath.Base(f.model), filepath.Ext(f.model)), nil
}

// memoryFlags configure the context memory.
type memoryFlags struct {
	dir         string
	sync        string
	syncEvery   time.Duration
	maxWords    int
	maxContexts int
	maxBytes    int64
	snapshot    int
	maxDFWords  int
}

// memoryUse says how a command uses --memory-dir, and so which memory flags
// it takes and what their help says.
type memoryUse uint8

const (
	memoryServe   memoryUse = iota // serve: a directory or RAM, read and written
	memoryWarm                     // memory warm: a directory taught, created if missing
	memoryRebuild                  // memory rebuild: serve's directory rebuilt, created if missing
	memoryRead                     // memory stats, check, export: an existing directory, read only
	memoryClear                    // memory clear: an existing directory emptied
)

// dirUsage is the help of --memory-dir for u.
func (u memoryUse) dirUsage() string {
	switch u {
	case memoryWarm:
		return "`directory` of the context memory to teach (required; created 0700 if missing)"
	case memoryRebuild:
		return "`directory` of serve's context memory to rebuild (created 0700 if missing)"
	case memoryRead:
		return "`directory` of an existing context memory (required), read and never written"
	case memoryClear:
		return "`directory` of the context memory to clear (required)"
	}
	return "`directory` of the persistent context memory (created 0700); empty: in RAM only, lost at exit"
}

// register registers the memory flags a command that uses the memory as u
// takes: --memory-dir, the caps the memory is read under unless u clears
// it, and the flags of its writes (fsync, snapshots) if u writes.
func (f *memoryFlags) register(fs *flag.FlagSet, u memoryUse) {
	d := memory.DefaultOptions()
	f.sync, f.syncEvery, f.snapshot = d.Sync.String(), d.SyncEvery, d.SnapshotEvery
	f.maxWords, f.maxContexts, f.maxBytes, f.maxDFWords = d.MaxWords, d.MaxContexts, d.MaxBytes, d.MaxDocFreqWords
	fs.StringVar(&f.dir, "memory-dir", "", u.dirUsage())
	if u == memoryClear {
		return
	}
	evicts := "evicted"
	if u == memoryRead {
		evicts = "evicted in RAM as it is read (give serve's value to see what serve holds)"
	}
	fs.IntVar(&f.maxWords, "memory-max-words", d.MaxWords,
		"words with contexts kept; past it the least recently changed are "+evicts)
	fs.IntVar(&f.maxContexts, "memory-max-contexts", d.MaxContexts, "contexts kept per word (the k smallest-hash contexts)")
	fs.Int64Var(&f.maxBytes, "memory-max-bytes", d.MaxBytes,
		"the memory's byte budget (contexts, words, table overheads); past it the least recently changed words are "+evicts)
	fs.IntVar(&f.maxDFWords, "memory-max-df-words", d.MaxDocFreqWords,
		"cap on distinct words whose document frequency (sif-collection) is counted; later new words weigh as unseen")
	if u == memoryRead {
		return
	}
	syncUsage := "fsync the memory log `always` (before answering), every --memory-sync-every (interval), or never " +
		"(only at snapshots, and before --memory-witness records a count)"
	if u != memoryServe { // a batch job: the memory is fsynced and snapshotted when it ends
		f.sync = memory.SyncNever.String()
		syncUsage = "fsync the memory log `always` (after every write), every --memory-sync-every (interval), " +
			"or never (only at snapshots and at the end)"
	}
	fs.StringVar(&f.sync, "memory-sync", f.sync, syncUsage)
	fs.DurationVar(&f.syncEvery, "memory-sync-every", d.SyncEvery, "fsync period of --memory-sync interval")
	fs.IntVar(&f.snapshot, "memory-snapshot-every", d.SnapshotEvery, "write a compacted snapshot after this many log records")
}

func (f *memoryFlags) options(log *slog.Logger, readOnly bool) (memory.Options, error) {
	o := memory.DefaultOptions()
	p, err := memory.ParseSyncPolicy(f.sync)
	if err != nil {
		return o, cli.UsageError("--memory-sync: %w", err)
	}
	o.Sync, o.SyncEvery, o.MaxWords, o.MaxContexts, o.MaxBytes, o.SnapshotEvery = p, f.syncEvery, f.maxWords, f.maxContexts, f.maxBytes, f.snapshot
	o.MaxDocFreqWords = f.maxDFWords
	o.ReadOnly = readOnly
	o.Logger = log
	if err := o.Validate(); err != nil {
		return o, cli.UsageError("%w (--memory-* flags)", err)
	}
	return o, nil
}

func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, cli.UsageError("--log-level %q: want debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, cli.UsageError("--log-format %q: want text or json", format)
}

// claimMemory records in mem's directory that the model m, loaded as name,
// writes it (memory.ClaimModel), and warns when another model wrote it.
func claimMemory(mem *memory.Memory, m *model.Model, name string, log *slog.Logger) {
	id := memory.ModelID{Name: name, Fingerprint: m.Base.VocabularyFingerprint()}
	rec, err := mem.ClaimModel(id)
	if err != nil {
		log.Warn("the context memory's model is not known", "err", err)
		return
	}
	if rec.Fingerprint != id.Fingerprint {
		log.Warn("the context memory was written with another model: it holds contexts of the words "+
			"that model's vocabulary chose; warm it again with this model, or clear it",
			"memory_model", rec.String(), "model", id.String(), "dir", mem.Stats().Dir)
	}
}
