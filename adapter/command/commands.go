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
		return nil, "", fmt.Errorf("model %s has no base embeddings: serve a serving bundle (trainer: --bundle)", f.model)
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

func (f *memoryFlags) register(fs *flag.FlagSet) {
	d := memory.DefaultOptions()
	fs.StringVar(&f.dir, "memory-dir", "", "`directory` of the persistent context memory (created 0700); empty: in RAM only, lost at exit")
	fs.StringVar(&f.sync, "memory-sync", d.Sync.String(), "fsync the memory log `always` (before answering), every --memory-sync-every (interval), or never "+
		"(only at snapshots, and before --memory-witness records a count)")
	fs.DurationVar(&f.syncEvery, "memory-sync-every", d.SyncEvery, "fsync period of --memory-sync interval")
	fs.IntVar(&f.maxWords, "memory-max-words", d.MaxWords, "words with contexts kept; past it the least recently changed are evicted")
	fs.IntVar(&f.maxContexts, "memory-max-contexts", d.MaxContexts, "contexts kept per word (the k smallest-hash contexts)")
	fs.Int64Var(&f.maxBytes, "memory-max-bytes", d.MaxBytes, "the memory's byte budget (contexts, words, table overheads); past it the least recently changed words are evicted")
	fs.IntVar(&f.snapshot, "memory-snapshot-every", d.SnapshotEvery, "write a compacted snapshot after this many log records")
	fs.IntVar(&f.maxDFWords, "memory-max-df-words", d.MaxDocFreqWords, "cap on distinct words whose document frequency (sif-collection) is counted; later new words weigh as unseen")
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
