package adapter

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/defaultmodel"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/simd"
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
	fs.StringVar(&f.sync, "memory-sync", d.Sync.String(), "fsync the memory log `always` (before answering), every --memory-sync-every (interval), or never (only at snapshots)")
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
	lim                                         Limits
	addr, memMode, explain, logLevel, logFormat string
	authTokenFile                               string
	drain                                       time.Duration
}

func (f *serveFlags) register(fs *flag.FlagSet) {
	f.vf.register(fs)
	f.mf.register(fs)
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8880", "listen `address` (beyond loopback, /vectors answers anyone who reaches it; see --auth-token-file)")
	fs.StringVar(&f.memMode, "memory", "on", "`on`: passages teach the memory; off: the memory (if --memory-dir exists) is read, never written")
	lim := &f.lim
	*lim = DefaultLimits()
	fs.Int64Var(&lim.MaxBodyBytes, "max-body-bytes", lim.MaxBodyBytes, "largest request body")
	fs.IntVar(&lim.MaxTextBytes, "max-text-bytes", lim.MaxTextBytes, "largest text")
	fs.IntVar(&lim.MaxWords, "max-words", lim.MaxWords, "most words per text")
	fs.IntVar(&lim.MaxBatch, "max-batch", lim.MaxBatch, "most texts per /vectors/batch request")
	fs.IntVar(&lim.MaxConcurrent, "max-concurrent", lim.MaxConcurrent, "vectorizing requests served at once")
	fs.DurationVar(&lim.QueueWait, "queue-wait", lim.QueueWait, "how long a request waits for a slot before 503 + Retry-After")
	fs.Int64Var(&lim.MaxBodyBuffer, "max-body-buffer", lim.MaxBodyBuffer, "bytes of request bodies held at once, counted as they arrive (more: 503)")
	fs.DurationVar(&lim.BodyTimeout, "body-timeout", lim.BodyTimeout, "how long a client may take to send a request body (read before it waits for a slot; then 408)")
	fs.DurationVar(&lim.RequestTimeout, "request-timeout", lim.RequestTimeout, "how long one request may work; then its work stops and it gets 503")
	fs.IntVar(&lim.MaxCollections, "max-collections", lim.MaxCollections, "memory API: most collections whose passage counts are kept (each bounded like the memory's own counts)")
	fs.DurationVar(&lim.ReadyDelay, "ready-delay", lim.ReadyDelay, "on shutdown, how long /.well-known/ready answers 503 before the listener closes")
	fs.StringVar(&f.authTokenFile, "auth-token-file", "", "`file` holding the bearer token /explain and "+
		"the memory API need; without one they answer only on a loopback --addr")
	fs.StringVar(&f.explain, "explain", "on", "`on|off`: /explain returns remembered contexts verbatim to anyone who can query; off answers 403")
	fs.IntVar(&lim.Explain.MaxWords, "explain-max-words", lim.Explain.MaxWords, "/explain: most distinct words listed")
	fs.IntVar(&lim.Explain.MaxBytes, "explain-max-bytes", lim.Explain.MaxBytes, "/explain: byte budget of the listed words and contexts")
	fs.DurationVar(&f.drain, "shutdown-timeout", 30*time.Second, "how long shutdown waits for requests in flight")
	fs.StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	fs.StringVar(&f.logFormat, "log-format", "text", "log format: text or json")
}

// serveConfig is what `serve` runs with, checked.
type serveConfig struct {
	addr      string
	lim       Limits
	drain     time.Duration
	vf        vectorizerFlags // the model to load
	vopts     vectorizer.Options
	memoryDir string
	mopts     memory.Options
	log       *slog.Logger
}

// config checks the flags and builds the logger (writing to stderr).
func (f *serveFlags) config(stderr io.Writer) (serveConfig, error) {
	log, err := newLogger(stderr, f.logLevel, f.logFormat)
	if err != nil {
		return serveConfig{}, err
	}
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
	c.lim.Exposed = beyondLoopback(f.addr)
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
	// Always a memory: with --memory off and no directory an empty read-only
	// one, so that passages count nowhere (sif-collection keeps its counts in
	// the memory, and "off" writes nothing).
	mem, err := memory.Open(c.memoryDir, c.mopts)
	if err != nil {
		return err
	}
	if c.memoryDir == "" && !c.mopts.ReadOnly {
		c.log.Warn("no --memory-dir: the context memory (contexts and sif-collection counts) lives in RAM and is lost at exit")
	}
	v, err := vectorizer.New(m, mem, c.vopts)
	if err != nil {
		mem.Close()
		return err
	}
	srv, err := NewServer(v, mem, name, c.lim, c.log)
	if err != nil {
		mem.Close()
		return err
	}
	warnExposed(c.log, c.addr, c.lim)
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		mem.Close()
		return fmt.Errorf("listen on %s: %w", c.addr, err)
	}
	return srv.Serve(ctx, ln, c.drain)
}

// memoryCommand is "memory": a group of subcommands over one --memory-dir.
func memoryCommand() cli.Command {
	sub := func(name, summary string) cli.Command {
		return cli.Command{Name: name, Summary: summary, Run: func(ctx context.Context, env cli.Env) error {
			return runMemory(ctx, env, name)
		}}
	}
	return cli.Group("memory", "inspect, warm, rebuild or reset the context memory: memory warm FILES…|rebuild|stats|check|export|clear", "subcommand",
		"Every subcommand takes --memory-dir DIR (rebuild: or --module-memory DIR or --memory-url URL). "+
			"Stop the server first for warm, rebuild and clear (the directory is locked while it runs).",
		[]cli.Command{
			sub("warm", "teach the memory from text files (FILES…, plain or gzip; one passage per line): the contexts of rare words and, for sif-collection, the document frequencies (each line counts once)"),
			{Name: "rebuild", Summary: "recompute a collection's memory from its objects in Weaviate " +
				"(--class; into --memory-dir, --module-memory or --memory-url); then run refresh", Run: runRebuild},
			sub("stats", "print a JSON summary (with any damaged file Open salvaged)"),
			sub("check", "report the directory's health as JSON and change nothing; exit status 1 if damaged"),
			sub("export", "print every word with its contexts as JSON lines"),
			sub("clear", "forget everything (needs --yes)"),
		})
}

// runMemory runs "memory sub" with env.Args after the subcommand's name.
func runMemory(ctx context.Context, env cli.Env, sub string) error {
	args := env.Args
	fs := cli.NewFlagSet("memory "+sub, env)
	var mf memoryFlags
	mf.register(fs)
	var vf vectorizerFlags
	yes := fs.Bool("yes", false, "clear: really forget everything")
	switch sub {
	case "warm":
		vf.register(fs)
	case "stats", "check", "export", "clear":
	default:
		return cli.UsageError("unknown memory subcommand %q: want warm, stats, check, export or clear", sub)
	}
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if mf.dir == "" {
		return cli.UsageError("memory %s: --memory-dir is required", sub)
	}
	if sub != "warm" && fs.NArg() > 0 {
		return cli.UsageError("memory %s takes no arguments, got %q", sub, fs.Args())
	}
	log := slog.New(slog.NewTextHandler(env.Stderr, nil))
	switch sub {
	case "check":
		return checkMemory(env, &mf, log)
	case "stats", "export":
		return readMemory(env, sub, &mf, log)
	case "clear":
		if !*yes {
			return cli.UsageError("memory clear forgets every remembered context; add --yes")
		}
		return clearMemory(env, &mf, log)
	}
	return warm(ctx, env, fs.Args(), &mf, &vf, log)
}

// readMemory runs memory stats (JSON on stdout) or memory export.
func readMemory(env cli.Env, sub string, mf *memoryFlags, log *slog.Logger) error {
	o, err := mf.options(log, true)
	if err != nil {
		return err
	}
	if _, err := os.Stat(mf.dir); err != nil {
		return fmt.Errorf("memory %s: %w", sub, err)
	}
	mem, err := memory.Open(mf.dir, o)
	if err != nil {
		return err
	}
	defer mem.Close()
	if sub == "export" {
		w := bufio.NewWriter(env.Stdout)
		if err := mem.Export(w); err != nil {
			return err
		}
		return w.Flush()
	}
	out := memoryStats{Stats: mem.Stats()}
	out.Collections, out.CollectionProblems = collectionSummaries(mf.dir, o)
	return printReport(env.Stdout, "stats", mf.dir, out, out.CollectionProblems)
}

// printReport prints report as indented JSON and then fails, naming them, if
// problems lists collections whose counts could not be read: what could be
// read is printed, the exit status says it is not all (as ls does).
func printReport(w io.Writer, sub, dir string, report any, problems []string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(report); err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("memory %s: %s: cannot read the passage counts of every collection: %s", sub, dir, strings.Join(problems, "; "))
	}
	return nil
}

// clearMemory runs memory clear: the memory and its collections' counts.
func clearMemory(env cli.Env, mf *memoryFlags, log *slog.Logger) error {
	o, err := mf.options(log, false)
	if err != nil {
		return err
	}
	mem, err := memory.Open(mf.dir, o)
	if err != nil {
		return err
	}
	if err := mem.Clear(); err != nil {
		mem.Close()
		return err
	}
	colls := memory.NewCollections(mf.dir, o, memory.MaxCollections) // their counts too (the memory's lock is held)
	if err := errors.Join(colls.Clear(), colls.Close()); err != nil {
		mem.Close()
		return err
	}
	fmt.Fprintf(env.Stdout, "cleared the context memory in %s\n", mf.dir)
	return mem.Close()
}

func warm(ctx context.Context, env cli.Env, files []string, mf *memoryFlags, vf *vectorizerFlags, log *slog.Logger) error {
	if len(files) == 0 {
		return cli.UsageError("memory warm needs at least one text file")
	}
	vopts, err := vf.options()
	if err != nil {
		return err
	}
	o, err := mf.options(log, false)
	if err != nil {
		return err
	}
	if mf.sync == memory.DefaultOptions().Sync.String() {
		o.Sync = memory.SyncNever // Close fsyncs and snapshots at the end
	}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("memory warm: %w", err)
		}
	}
	m, _, err := vf.loadModel()
	if err != nil {
		return err
	}
	mem, err := memory.Open(mf.dir, o)
	if err != nil {
		return err
	}
	v, err := vectorizer.New(m, mem, vopts)
	if err != nil {
		mem.Close()
		return err
	}
	var offered, lines int64
	for _, f := range files {
		n, l, err := warmFile(ctx, v, vopts, f)
		offered += n
		lines += l
		if err != nil {
			mem.Close()
			return err
		}
	}
	if err := mem.Close(); err != nil {
		return err
	}
	st := mem.Stats()
	fmt.Fprintf(env.Stdout, "read %d lines, offered %d contexts; the memory holds %d words, %d contexts, document frequencies of %d words over %d passages\n",
		lines, offered, st.Words, st.Contexts, st.DocFreqWords, st.Passages)
	if vopts.Weighting != vectorizer.WeightSIFCollection {
		fmt.Fprintf(env.Stdout, "(--weighting %s: passages were not counted for sif-collection)\n", vopts.Weighting)
	}
	if st.DocFreqRejected > 0 {
		fmt.Fprintf(env.Stdout, "%d new words were not counted (--memory-max-df-words %d reached, or too long or invalid)\n",
			st.DocFreqRejected, o.MaxDocFreqWords)
	}
	return nil
}

// warmFile teaches the memory every line of one file; each line is one passage.
func warmFile(ctx context.Context, v *vectorizer.Vectorizer, o vectorizer.Options, path string) (offered, lines int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, fmt.Errorf("memory warm: %w", err)
	}
	defer f.Close()
	r, closeZ, err := model.MaybeGunzip(f, 1<<20)
	if err != nil {
		return 0, 0, fmt.Errorf("memory warm %s: %w", path, err)
	}
	defer closeZ()
	// Lines longer than the buffer are taught in 1 MiB pieces, which are not
	// passages of their own: the line is counted once, with the distinct
	// words of all its pieces.
	br := bufio.NewReaderSize(r, 1<<20)
	var long *longLine
	for {
		if lines%1024 == 0 && ctx.Err() != nil {
			return offered, lines, ctx.Err()
		}
		line, rerr := br.ReadSlice('\n')
		full := !errors.Is(rerr, bufio.ErrBufferFull) // the line ends in this piece
		if !full && long == nil {
			long = newLongLine(o)
		}
		if len(line) > 0 {
			text := strings.ToValidUTF8(string(line), "\uFFFD")
			lo := o
			if long != nil {
				lo = long.opts
				long.add(v, text)
			}
			n, err := v.Learn(text, lo)
			if err != nil {
				return offered, lines, fmt.Errorf("memory warm %s:%d: %w", path, lines+1, err)
			}
			offered += int64(n)
		}
		if full && (len(line) > 0 || long != nil) {
			lines++
		}
		if full && long != nil {
			if err := long.count(v, o); err != nil {
				return offered, lines, fmt.Errorf("memory warm %s:%d: %w", path, lines, err)
			}
			long = nil
		}
		switch {
		case rerr == nil, errors.Is(rerr, bufio.ErrBufferFull):
		case errors.Is(rerr, io.EOF):
			return offered, lines, nil
		default:
			return offered, lines, fmt.Errorf("memory warm %s:%d: %w", path, lines+1, rerr)
		}
	}
}

// longLine gathers the words of a line that memory warm reads in pieces.
type longLine struct {
	opts  vectorizer.Options // teach the pieces without counting them
	words map[string]struct{}
	toks  []string
}

func newLongLine(o vectorizer.Options) *longLine {
	l := &longLine{opts: o, words: make(map[string]struct{})}
	if o.Weighting == vectorizer.WeightSIFCollection {
		l.opts.Weighting = vectorizer.WeightSIF // counts only under sif-collection
	}
	return l
}

func (l *longLine) add(v *vectorizer.Vectorizer, text string) {
	l.toks = v.Model().Tokenizer.AppendTokens(l.toks[:0], text)
	for _, t := range l.toks {
		l.words[t] = struct{}{}
	}
}

// count counts the whole line as one passage when o counts passages: its
// distinct words, which the tokenizer splits back into themselves.
func (l *longLine) count(v *vectorizer.Vectorizer, o vectorizer.Options) error {
	if o.Weighting != vectorizer.WeightSIFCollection || len(l.words) == 0 {
		return nil
	}
	words := make([]string, 0, len(l.words))
	for w := range l.words {
		words = append(words, w)
	}
	return v.Observe(strings.Join(words, " "))
}

func runHealthcheck(ctx context.Context, env cli.Env) error {
	fs := cli.NewFlagSet("healthcheck", env)
	url := fs.String("url", "http://127.0.0.1:8880/.well-known/ready", "`URL` to GET; any 2xx answer is healthy")
	timeout := fs.Duration("timeout", 2*time.Second, "how long to wait for the answer")
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.UsageError("unexpected arguments %q", fs.Args())
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, *url, nil)
	if err != nil {
		return cli.UsageError("--url %q: %w", *url, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("healthcheck %s: status %d", *url, resp.StatusCode)
	}
	return nil
}

// memoryHealth is what memory check prints.
type memoryHealth struct {
	Dir         string                       `json:"dir"`
	Healthy     bool                         `json:"healthy"`
	Files       []memoryFile                 `json:"files"`
	Damaged     []memory.Damage              `json:"damaged"`
	Words       int                          `json:"words"`
	Contexts    int                          `json:"contexts"`
	Passages    int64                        `json:"passages"`
	Collections map[string]collectionSummary `json:"collections,omitempty"`
	// CollectionProblems names what under collections/ could not be read.
	CollectionProblems []string `json:"collection_problems,omitempty"`
}

type memoryFile struct {
	Name  string `json:"name"`
	Bytes int64  `json:"bytes"`
}

// memoryStats is what memory stats prints: the memory's Stats and the
// passage counts of each collection kept beside it.
type memoryStats struct {
	memory.Stats
	Collections        map[string]collectionSummary `json:"collections,omitempty"`
	CollectionProblems []string                     `json:"collection_problems,omitempty"`
}

// collectionSummary is one collection's passage counts (memory.Collections)
// as memory stats and memory check print them. Damaged files are named
// relative to the memory directory.
type collectionSummary struct {
	Passages        int64           `json:"passages"`
	DocFreqWords    int             `json:"df_words"`
	DocFreqRejected int64           `json:"df_rejected"`
	Damaged         []memory.Damage `json:"damaged,omitempty"`
	dir             string          // the collection's directory
}

// collectionSummaries reads, read-only, the passage counts of every
// collection kept beside the memory in dir; problems names, one a line, what
// could not be read (collections/ itself, or a collection's directory).
func collectionSummaries(dir string, o memory.Options) (_ map[string]collectionSummary, problems []string) {
	all, err := memory.CollectionStats(dir, o)
	if err != nil {
		problems = strings.Split(err.Error(), "\n")
	}
	if len(all) == 0 {
		return nil, problems
	}
	out := make(map[string]collectionSummary, len(all))
	for name, st := range all {
		cs := collectionSummary{Passages: st.Passages, DocFreqWords: st.DocFreqWords, DocFreqRejected: st.DocFreqRejected, dir: st.Dir}
		rel, _ := filepath.Rel(dir, st.Dir)
		for _, d := range st.Damaged {
			d.File = filepath.Join(rel, d.File)
			cs.Damaged = append(cs.Damaged, d)
		}
		out[name] = cs
	}
	return out, problems
}

// checkMemory reads a memory directory read-only (salvaging in RAM what a
// writable Open would salvage), with the passage counts of its collections,
// and reports its health; it changes nothing.
func checkMemory(env cli.Env, mf *memoryFlags, log *slog.Logger) error {
	o, err := mf.options(log, true)
	if err != nil {
		return err
	}
	h := memoryHealth{Dir: mf.dir, Files: []memoryFile{}, Damaged: []memory.Damage{}}
	if h.Files, err = listMemoryFiles(h.Files, mf.dir, ""); err != nil {
		return fmt.Errorf("memory check: %w", err)
	}
	mem, err := memory.Open(mf.dir, o)
	if err != nil {
		return err
	}
	st := mem.Stats()
	mem.Close()
	h.Damaged = append(h.Damaged, st.Damaged...)
	h.Words, h.Contexts, h.Passages = st.Words, st.Contexts, st.Passages
	h.Collections, h.CollectionProblems = collectionSummaries(mf.dir, o)
	for _, name := range slices.Sorted(maps.Keys(h.Collections)) {
		cs := h.Collections[name]
		h.Damaged = append(h.Damaged, cs.Damaged...)
		rel, _ := filepath.Rel(mf.dir, cs.dir)
		if h.Files, err = listMemoryFiles(h.Files, cs.dir, rel); err != nil {
			h.CollectionProblems = append(h.CollectionProblems, err.Error())
		}
	}
	h.Healthy = len(h.Damaged) == 0 && len(h.CollectionProblems) == 0
	for _, f := range h.Files {
		if strings.Contains(f.Name, ".damaged") {
			h.Healthy = false // moved aside earlier: an operator should look at it
		}
	}
	if err := printReport(env.Stdout, "check", mf.dir, h, h.CollectionProblems); err != nil {
		return err
	}
	if !h.Healthy {
		return fmt.Errorf("memory check: %s is damaged (%d files salvaged in RAM; a writable open moves them aside)", mf.dir, len(h.Damaged))
	}
	return nil
}

// listMemoryFiles appends the regular files of dir to files, named under
// prefix.
func listMemoryFiles(files []memoryFile, dir, prefix string) ([]memoryFile, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return files, err
	}
	for _, e := range ents {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			files = append(files, memoryFile{Name: filepath.Join(prefix, e.Name()), Bytes: info.Size()})
		}
	}
	return files, nil
}
