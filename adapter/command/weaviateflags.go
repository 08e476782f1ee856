package command

import (
	"errors"
	"flag"
	"log/slog"
	"strings"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memory/weaviatemem"
	"github.com/text2vec-am/text2vec-am/cli"
)

// weaviateFlags are serve's flags of a context memory kept in Weaviate.
type weaviateFlags struct {
	url, class, apiKeyFile     string
	replicas                   int
	maxBytes                   int64
	refresh, lookback, timeout time.Duration
}

func (f *weaviateFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.url, "memory-weaviate", "", "`URL` of a Weaviate that keeps the context memory (e.g. http://weaviate:8080; "+
		"user:password@ is sent as basic authentication): serve keeps none of its own, so several replicas share it; not with --memory-dir")
	f.registerAccess(fs)
	f.registerReplicas(fs)
	fs.DurationVar(&f.refresh, "memory-weaviate-refresh", time.Second, "how often the server's copy of the memory asks --memory-weaviate for new objects")
	fs.DurationVar(&f.lookback, "memory-weaviate-lookback", 30*time.Second,
		"how far before the newest object read a refresh reads again (writes in flight, clocks that disagree)")
	fs.Int64Var(&f.maxBytes, "memory-weaviate-max-bytes", weaviatemem.DefaultMaxBytes,
		"bound on the RAM of the server's copy of --memory-weaviate, ≥ 1 MiB (its budget, passage counts and hashes "+
			"are scaled down to at most 7/8 of this, its cached AM vectors to 1/16; the keys of the objects it read, "+
			"about 9 bytes each, count in it)")
}

// registerAccess registers the flags that reach the memory in Weaviate
// besides its URL: the class, the API key and the timeout.
func (f *weaviateFlags) registerAccess(fs *flag.FlagSet) {
	fs.StringVar(&f.class, "memory-weaviate-class", weaviatemem.DefaultClass, "the collection that holds the memory in --memory-weaviate")
	fs.StringVar(&f.apiKeyFile, "memory-weaviate-api-key-file", "", "`file` holding the API key of --memory-weaviate")
	fs.DurationVar(&f.timeout, "memory-weaviate-timeout", 30*time.Second, "bound on every call to --memory-weaviate")
}

// registerReplicas registers --memory-weaviate-replicas.
func (f *weaviateFlags) registerReplicas(fs *flag.FlagSet) {
	fs.IntVar(&f.replicas, "memory-weaviate-replicas", 0, "replication factor the memory's collection is created with "+
		"when --memory-weaviate has none (writes are at consistency QUORUM); 0: one on each of Weaviate's nodes")
}

// checkReplicas checks --memory-weaviate-replicas (a usage error).
func (f *weaviateFlags) checkReplicas() error {
	if f.replicas < 0 {
		return cli.UsageError("--memory-weaviate-replicas %d: want 0 (one replica on each of Weaviate's nodes) or more",
			f.replicas)
	}
	return nil
}

// registerTarget registers the flags of a command that reaches the memory
// kept in Weaviate without keeping a copy of it: the URL (usage says what
// the command does with it) and the access flags.
func (f *weaviateFlags) registerTarget(fs *flag.FlagSet, usage string) {
	fs.StringVar(&f.url, "memory-weaviate", "", usage)
	f.registerAccess(fs)
}

// accessOptions returns the options that reach the memory kept in Weaviate
// (--memory-weaviate and the access flags), checked as DeleteMemory checks
// them: a usage error naming the flag.
func (f *weaviateFlags) accessOptions(log *slog.Logger) (weaviatemem.Options, error) {
	o := weaviatemem.Options{URL: f.url, Class: f.class, Timeout: f.timeout, Logger: log}
	if err := f.access(&o); err != nil {
		return o, err
	}
	return o, weaviateUsage(o.CheckAccess())
}

// access fills in o's API key from --memory-weaviate-api-key-file and checks
// the timeout (a usage error naming the flag); the caller checks o.
func (f *weaviateFlags) access(o *weaviatemem.Options) error {
	if f.apiKeyFile != "" {
		var err error
		if o.APIKey, err = readTokenFlag("--memory-weaviate-api-key-file", f.apiKeyFile); err != nil {
			return err
		}
	}
	if f.timeout <= 0 {
		return cli.UsageError("--memory-weaviate-timeout %v: want > 0", f.timeout)
	}
	return nil
}

// weaviateUsage is the usage error of err, an option of weaviatemem.Options
// out of range (nil: none), naming its flag.
func weaviateUsage(err error) error {
	if err != nil {
		return cli.UsageError("%s: %w", weaviateFlag(err), err)
	}
	return nil
}

// options returns the memory kept in Weaviate (nil without --memory-weaviate),
// its copies opened with mopts; dir is --memory-dir.
func (f *weaviateFlags) options(mopts memory.Options, dir string, log *slog.Logger) (*weaviatemem.Options, error) {
	if f.url == "" {
		return nil, nil
	}
	if dir != "" {
		return nil, cli.UsageError("--memory-weaviate and --memory-dir are both given: the memory is kept in Weaviate or in a directory")
	}
	o := &weaviatemem.Options{URL: f.url, Class: f.class, Replicas: f.replicas, Refresh: f.refresh, Lookback: f.lookback,
		Timeout: f.timeout, Memory: mopts, ReadOnly: mopts.ReadOnly, Logger: log, MaxBytes: f.maxBytes}
	if f.maxBytes < weaviatemem.MinMaxBytes {
		return nil, cli.UsageError("--memory-weaviate-max-bytes %d: want ≥ %d (1 MiB)", f.maxBytes, weaviatemem.MinMaxBytes)
	}
	if err := f.checkReplicas(); err != nil {
		return nil, err
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"refresh", f.refresh}, {"lookback", f.lookback}} {
		if d.v <= 0 {
			return nil, cli.UsageError("--memory-weaviate-%s %v: want > 0", d.name, d.v)
		}
	}
	if err := f.access(o); err != nil {
		return nil, err
	}
	if err := weaviateUsage(o.Check()); err != nil {
		return nil, err
	}
	return o, nil
}

// weaviateFlag names the flag of the option a weaviatemem.OptionError is about.
func weaviateFlag(err error) string {
	var oe *weaviatemem.OptionError
	if !errors.As(err, &oe) {
		return "--memory-weaviate"
	}
	switch oe.Option {
	case "Class", "Replicas", "Refresh", "Lookback", "Timeout":
		return "--memory-weaviate-" + strings.ToLower(oe.Option)
	case "APIKey":
		return "--memory-weaviate-api-key-file"
	case "MaxBytes":
		return "--memory-weaviate-max-bytes"
	case "Memory":
		return "--memory-max-* flags"
	}
	return "--memory-weaviate"
}
