package command

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memory/weaviatemem"
	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/server"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/adapter/weaviateapi"
	"github.com/text2vec-am/text2vec-am/adapter/witness"
	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/simd"
)

// runServe is `text2vec-am serve`: it reads the flags and the environment
// into a serveConfig (parseServe) and hands it to serve.
func runServe(ctx context.Context, env cli.Env) error {
	c, err := parseServe(env, os.LookupEnv)
	if err != nil {
		return err
	}
	return serve(ctx, c)
}

// serveFlags are the flags of `serve`.
type serveFlags struct {
	vf                                          vectorizerFlags
	mf                                          memoryFlags
	lim                                         server.Limits
	addr, memMode, explain, logLevel, logFormat string
	authTokenFile                               string
	drain                                       time.Duration
	wf                                          weaviateFlags
	wit                                         witnessFlags
}

func (f *serveFlags) register(fs *flag.FlagSet) {
	f.vf.register(fs)
	f.mf.register(fs, memoryServe)
	f.wf.register(fs)
	f.wit.register(fs)
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8880", "listen `address` (beyond loopback, /vectors answers anyone who reaches it; see --auth-token-file)")
	fs.StringVar(&f.memMode, "memory", "on", "`on`: passages teach the memory; off: the memory of --memory-dir "+
		"(a directory that exists; none without the flag) is read, never written")
	lim := &f.lim
	*lim = server.DefaultLimits()
	fs.Int64Var(&lim.MaxBodyBytes, "max-body-bytes", lim.MaxBodyBytes, "largest request body")
	fs.IntVar(&lim.MaxTextBytes, "max-text-bytes", lim.MaxTextBytes, "largest text")
	fs.IntVar(&lim.MaxWords, "max-words", lim.MaxWords, "most words per text")
	fs.IntVar(&lim.MaxBatch, "max-batch", lim.MaxBatch, "most texts per /vectors/batch or /v1/embeddings request (/passage/v1/embeddings too)")
	fs.IntVar(&lim.MaxConcurrent, "max-concurrent", lim.MaxConcurrent, "vectorizing requests served at once (4 × GOMAXPROCS, the CPUs Go runs on, unless set)")
	fs.DurationVar(&lim.QueueWait, "queue-wait", lim.QueueWait, "how long a request waits for a slot, or for room in --max-body-buffer, before 503 + Retry-After")
	fs.Int64Var(&lim.MaxBodyBuffer, "max-body-buffer", lim.MaxBodyBuffer,
		"bytes of request bodies held at once, counted as they arrive, and of answers being written "+
			"(more: 503 after --queue-wait; one answer is always written)")
	fs.DurationVar(&lim.BodyTimeout, "body-timeout", lim.BodyTimeout,
		"how long a client may take to send a request body (read before it waits for a slot; then 408), "+
			"and to read an answer, plus as much per --max-body-bytes of answer")
	fs.DurationVar(&lim.RequestTimeout, "request-timeout", lim.RequestTimeout, "how long one request may work; then its work stops and it gets 503")
	fs.DurationVar(&lim.ReadyDelay, "ready-delay", lim.ReadyDelay, "on shutdown, how long /.well-known/ready answers 503 before the listener closes")
	fs.StringVar(&f.authTokenFile, "auth-token-file", "", "`file` holding the bearer token /explain "+
		"and /passage/v1/embeddings need; without one /explain answers only on a loopback --addr, /passage/v1/embeddings never")
	fs.StringVar(&f.explain, "explain", "on", "`on|off`: /explain returns remembered contexts verbatim to anyone who can query; off answers 403")
	fs.IntVar(&lim.Explain.MaxWords, "explain-max-words", lim.Explain.MaxWords, fmt.Sprintf("/explain: most distinct words listed (0 means %d)", lim.Explain.MaxWords))
	fs.IntVar(&lim.Explain.MaxBytes, "explain-max-bytes", lim.Explain.MaxBytes,
		fmt.Sprintf("/explain: byte budget of the listed words and contexts (0 means %d)", lim.Explain.MaxBytes))
	fs.DurationVar(&f.drain, "shutdown-timeout", 30*time.Second, "how long shutdown waits for requests in flight")
	fs.StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	fs.StringVar(&f.logFormat, "log-format", "text", "log format: text or json")
}

// serveConfig is what `serve` runs with, checked.
type serveConfig struct {
	addr      string
	lim       server.Limits
	drain     time.Duration
	vf        vectorizerFlags // the model to load
	vopts     vectorizer.Options
	memoryDir string
	mopts     memory.Options
	weaviate  *weaviatemem.Options // the memory kept in Weaviate (nil: a memory of this process)
	witness   *witness.Options     // the witness of the memory directory (nil: none)
	log       *slog.Logger
}

// config checks the flags and builds the logger (writing to stderr).
func (f *serveFlags) config(stderr io.Writer) (serveConfig, error) {
	log, err := newLogger(stderr, f.logLevel, f.logFormat)
	if err != nil {
		return serveConfig{}, err
	}
	simd.LogUnavailable(log)
	c := serveConfig{addr: f.addr, lim: f.lim, drain: f.drain, vf: f.vf, memoryDir: f.mf.dir, log: log}
	switch f.explain {
	case "on":
	case "off":
		c.lim.NoExplain = true
	default:
		return c, cli.UsageError("--explain %q: want on or off", f.explain)
	}
	if f.authTokenFile != "" {
		if c.lim.AuthToken, err = readToken(f.authTokenFile); err != nil {
			return c, err
		}
	}
	c.lim.Exposed = server.BeyondLoopback(f.addr)
	if err := c.lim.Validate(); err != nil {
		return c, cli.UsageError("%w", err)
	}
	if f.drain <= 0 {
		return c, cli.UsageError("--shutdown-timeout %v: want > 0", f.drain)
	}
	if c.vopts, err = f.vf.options(); err != nil {
		return c, err
	}
	var readOnly bool
	switch f.memMode {
	case "on":
	case "off":
		readOnly = true
	default:
		return c, cli.UsageError("--memory %q: want on or off", f.memMode)
	}
	if c.mopts, err = f.mf.options(log, readOnly); err != nil {
		return c, err
	}
	if c.weaviate, err = f.wf.options(c.mopts, f.mf.dir, log); err != nil {
		return c, err
	}
	if c.witness, err = f.wit.options(f.mf.dir, c.weaviate != nil,
		c.vopts.Weighting == vectorizer.WeightSIFCollection, log); err != nil {
		return c, err
	}
	if c.weaviate != nil {
		c.weaviate.AcceptDropped = f.wit.reset
	}
	// A directory --memory off reads must exist: a mistyped one would serve
	// vectors without the memory, silently. Checked here, so that an error
	// names the environment variable that gave the path.
	if readOnly && f.mf.dir != "" {
		st, err := os.Stat(f.mf.dir)
		if err == nil && !st.IsDir() {
			err = errors.New("not a directory")
		}
		if err != nil {
			return c, fmt.Errorf("--memory-dir %s: --memory off reads an existing memory and never creates one: %w",
				f.mf.dir, err)
		}
	}
	return c, nil
}

// serve loads the model, opens the memory and serves on c.addr until ctx
// is cancelled.
func serve(ctx context.Context, c serveConfig) error {
	m, name, err := c.vf.loadModel()
	if err != nil {
		return err
	}
	c.log.Info("model loaded", "model", name, "dim", m.Dim, "simd", simd.SetsString())
	v, store, err := openMemory(m, name, c)
	if err != nil {
		return err
	}
	srv, err := server.NewServer(v, store, name, c.lim, c.log)
	if err != nil {
		store.Close()
		return err
	}
	server.WarnExposed(c.log, c.addr, c.lim)
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		store.Close()
		return fmt.Errorf("listen on %s: %w", c.addr, err)
	}
	return srv.Serve(ctx, ln, c.drain)
}

// openMemory opens the context memory of c, claimed for m loaded as name,
// and returns the vectorizer of m the server vectorizes with and the store.
func openMemory(m *model.Model, name string, c serveConfig) (*vectorizer.Vectorizer, memstore.Store, error) {
	if c.weaviate != nil {
		store, err := weaviatemem.Open(*c.weaviate, "")
		if err != nil {
			return nil, nil, err
		}
		c.log.Info("context memory kept in Weaviate", "url", weaviateapi.Redact(c.weaviate.URL), "class", c.weaviate.Class,
			"replicas", c.weaviate.Replicas, "read_only", c.weaviate.ReadOnly)
		v, err := vectorizer.New(m, nil, c.vopts)
		if err != nil {
			store.Close()
			return nil, nil, err
		}
		return v, store, nil
	}
	// Always a memory: with --memory off and no directory an empty read-only
	// one, so that passages count nowhere (sif-collection keeps its counts in
	// the memory, and "off" writes nothing; config checked that a directory
	// given exists).
	mem, err := memory.Open(c.memoryDir, c.mopts)
	if err != nil {
		return nil, nil, err
	}
	claimMemory(mem, m, name, c.log)
	if c.memoryDir == "" && !c.mopts.ReadOnly {
		c.log.Warn("no --memory-dir: the context memory (contexts and sif-collection counts) lives in RAM and is lost at exit")
	}
	v, err := vectorizer.New(m, mem, c.vopts)
	if err != nil {
		mem.Close()
		return nil, nil, err
	}
	if c.witness == nil {
		return v, memstore.NewLocal(mem), nil
	}
	w, err := witness.Start(*c.witness, mem, c.memoryDir)
	if err != nil {
		mem.Close()
		return nil, nil, err
	}
	c.log.Info("context memory witnessed by Weaviate", "url", c.witness.URL, "name", c.witness.Name)
	return v, w.Guard(memstore.NewLocal(mem)), nil
}
