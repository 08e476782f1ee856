// Package server is the HTTP inference server a stock Weaviate calls during
// import and search (`text2vec-am serve`, whose flags package command reads),
// speaking Weaviate v1.39.0's text2vec-transformers contract (also used by
// text2vec-model2vec): the endpoints, their authentication and admission, and
// the metrics.
//
// Endpoints:
//
//	GET  /.well-known/live    204 while the process runs
//	GET  /.well-known/ready   204 when serving, 503 while shutting down
//	GET  /meta                version, model name, dimensions, vocabulary sizes, memory size, limits
//	POST /vectors             {"text","config":{"task_type","pooling_strategy","dimensions",…}} → {"text","dims","vector"}
//	POST /vectors/batch       {"texts":[…],"config":{…}} → {"dims","vectors":[…],"errors":[…]}
//	POST /explain             {"text","config":{…}} → per word source, weight, α and ρ
//	POST /v1/embeddings       OpenAI's embeddings API (text2vec-openai): texts as queries
//	POST /passage/v1/embeddings  the same for imported objects: texts as passages, taught (bearer token)
//	POST /v2/embed            Cohere's embed API (text2vec-cohere): search_document texts as passages, taught
//	GET  /metrics             Prometheus metrics
//
// Every error is a JSON object {"error": "..."} with a 4xx or 5xx status, as
// Weaviate's client reads it; under /v1/ and /passage/v1/ it has OpenAI's
// shape, under /v2/ Cohere's.
package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/internal/admission"
	"github.com/text2vec-am/text2vec-am/internal/version"
	"github.com/text2vec-am/text2vec-am/simd"
)

// Limits bound what one request may ask for.
type Limits struct {
	// MaxBodyBytes bounds a request body.
	MaxBodyBytes int64
	// MaxTextBytes bounds one text.
	MaxTextBytes int
	// MaxWords bounds the words of one text.
	MaxWords int
	// MaxBatch bounds the texts of one /vectors/batch, /v1/embeddings or /v2/embed request
	// (Weaviate's text2vec-openai sends up to 2000).
	MaxBatch int
	// MaxConcurrent bounds the vectorizing requests in flight; more wait up
	// to QueueWait for a slot and are then answered 503 with Retry-After.
	// A request holds its slot while it is computed, not while its answer is
	// written.
	MaxConcurrent int
	// QueueWait is how long a request waits for a slot, or for room in
	// MaxBodyBuffer.
	QueueWait time.Duration
	// BodyTimeout bounds the reading of a request body, which happens before
	// the request waits for a slot (408 when it passes), and the writing of
	// an answer, after the slot is released: BodyTimeout, plus BodyTimeout per
	// MaxBodyBytes of answer (then the connection is closed).
	BodyTimeout time.Duration
	// MaxBodyBuffer bounds the bytes of request bodies held at once (being
	// received, waiting for a slot or being served), counted as they arrive,
	// and of answers being written; a body that would exceed it gets 503 +
	// Retry-After, and so does an answer unless no other is being written.
	MaxBodyBuffer int64
	// Patience is how far a client that sets the pace of its request (sends
	// its body, reads its answer) may fall behind before the request may be
	// cut to make room for another that finds MaxBodyBuffer full: the
	// furthest behind first, its connection is closed (a body: 408) and its
	// bytes given back. A body falls behind while it arrives slower than
	// MaxBodyBytes per BodyTimeout, the rate that brings the largest body in
	// time; an answer's progress is not seen: it is behind from the start.
	Patience time.Duration
	// RequestTimeout bounds the work of one request; the vectorizer stops
	// when it passes (503) or when the client leaves.
	RequestTimeout time.Duration
	// ReadyDelay is how long /.well-known/ready answers 503 on shutdown
	// before the listener closes (at most the drain time).
	ReadyDelay time.Duration
	// Explain bounds the /explain answers; NoExplain turns /explain off (403):
	// it returns remembered contexts verbatim to anyone who can query.
	Explain   vectorizer.ExplainLimits
	NoExplain bool
	// AuthToken, if set, is the bearer token /explain needs
	// (--auth-token-file); Exposed reports a listener reachable beyond
	// loopback, where without a token /explain is off (auth.go).
	AuthToken string
	Exposed   bool
}

// DefaultLimits returns 8 MiB bodies, 1 MiB texts, 100,000 words per text,
// 2,048 texts per batch, 4×GOMAXPROCS concurrent requests, a 1 s queue wait,
// 30 s to send a body, 1 s of patience with a slow client when room is
// needed, 60 s of work per request, 1 s of not-ready before
// the listener closes, and vectorizer.DefaultExplainLimits.
func DefaultLimits() Limits {
	return Limits{
		MaxBodyBytes:   8 << 20,
		MaxTextBytes:   1 << 20,
		MaxWords:       100_000,
		MaxBatch:       2048,
		MaxConcurrent:  4 * runtime.GOMAXPROCS(0),
		QueueWait:      time.Second,
		BodyTimeout:    30 * time.Second,
		MaxBodyBuffer:  256 << 20,
		Patience:       time.Second,
		RequestTimeout: 60 * time.Second,
		ReadyDelay:     time.Second,
		Explain:        vectorizer.DefaultExplainLimits(),
	}
}

// minBodyRate is the rate in bytes per second below which a body falls
// behind (Patience): MaxBodyBytes per BodyTimeout.
func (l Limits) minBodyRate() float64 {
	return float64(l.MaxBodyBytes) / l.BodyTimeout.Seconds()
}

// maxBodyBytesCap is the largest MaxBodyBytes, math.MaxInt64/4: a refused
// body is drained up to 4 × MaxBodyBytes, which must fit an int64.
const maxBodyBytesCap = 1<<61 - 1

// Validate reports the first limit out of range, naming its flag. An
// Explain limit of 0 means its default (vectorizer.DefaultExplainLimits).
func (l Limits) Validate() error {
	d := vectorizer.DefaultExplainLimits()
	switch {
	case l.MaxBodyBytes < 64:
		return fmt.Errorf("--max-body-bytes %d: want ≥ 64", l.MaxBodyBytes)
	case l.MaxBodyBytes > maxBodyBytesCap:
		return fmt.Errorf("--max-body-bytes %d: want ≤ %d (a refused body is drained up to 4 × it)", l.MaxBodyBytes, int64(maxBodyBytesCap))
	case l.MaxTextBytes < 1:
		return fmt.Errorf("--max-text-bytes %d: want ≥ 1", l.MaxTextBytes)
	case l.MaxWords < 1:
		return fmt.Errorf("--max-words %d: want ≥ 1", l.MaxWords)
	case l.MaxBatch < 1:
		return fmt.Errorf("--max-batch %d: want ≥ 1", l.MaxBatch)
	case l.MaxConcurrent < 1:
		return fmt.Errorf("--max-concurrent %d: want ≥ 1", l.MaxConcurrent)
	case l.QueueWait < 0:
		return fmt.Errorf("--queue-wait %v: want ≥ 0", l.QueueWait)
	case l.MaxBodyBuffer < l.MaxBodyBytes:
		return fmt.Errorf("--max-body-buffer %d: want ≥ --max-body-bytes (%d)", l.MaxBodyBuffer, l.MaxBodyBytes)
	case l.BodyTimeout <= 0:
		return fmt.Errorf("--body-timeout %v: want > 0", l.BodyTimeout)
	case l.Patience < 0:
		return fmt.Errorf("patience with slow clients %v: want ≥ 0", l.Patience)
	case l.RequestTimeout <= 0:
		return fmt.Errorf("--request-timeout %v: want > 0", l.RequestTimeout)
	case l.ReadyDelay < 0:
		return fmt.Errorf("--ready-delay %v: want ≥ 0", l.ReadyDelay)
	case l.Explain.MaxWords < 0:
		return fmt.Errorf("--explain-max-words %d: want ≥ 0 (0 means %d)", l.Explain.MaxWords, d.MaxWords)
	case l.Explain.MaxBytes < 0:
		return fmt.Errorf("--explain-max-bytes %d: want ≥ 0 (0 means %d)", l.Explain.MaxBytes, d.MaxBytes)
	}
	return nil
}

// Server serves a Vectorizer over HTTP.
type Server struct {
	vec       *vectorizer.Vectorizer
	store     memstore.Store // nil: no memory
	vz        memstore.Store // store, or a Local without a memory
	modelName string
	limits    Limits
	log       *slog.Logger
	slots     *admission.Slots  // Limits.MaxConcurrent, QueueWait
	budget    *admission.Budget // Limits.MaxBodyBuffer: bodies and answers held
	ready     atomic.Bool
	bufs      sync.Pool
	metrics   *metrics
	embedIDs  atomic.Uint64 // the "id" of /v2/embed answers
	handler   http.Handler
}

// NewServer returns a server for v. store is the context memory (nil: none):
// a memstore.Local must be the memory v was made over; the server closes it
// when Serve ends.
// modelName is reported by /meta.
func NewServer(v *vectorizer.Vectorizer, store memstore.Store, modelName string, limits Limits, log *slog.Logger) (*Server, error) {
	if err := limits.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.Default()
	}
	s := &Server{
		vec:       v,
		store:     store,
		vz:        store,
		modelName: modelName,
		limits:    limits,
		log:       log,
		slots:     admission.NewSlots(limits.MaxConcurrent, limits.QueueWait),
		budget:    admission.NewBudget(limits.MaxBodyBuffer, limits.Patience, limits.QueueWait, limits.minBodyRate()),
	}
	if store == nil {
		s.vz = memstore.NewLocal(nil)
	}
	s.bufs.New = func() any { return new(bytes.Buffer) }
	s.metrics = newMetrics(s)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/live", s.live)
	mux.HandleFunc("GET /.well-known/ready", s.readyz)
	mux.HandleFunc("GET /meta", s.meta)
	mux.HandleFunc("POST /vectors", s.limited(s.vectors))
	mux.HandleFunc("POST /vectors/{$}", s.limited(s.vectors)) // the Python inference containers accept both
	mux.HandleFunc("POST /vectors/batch", s.limited(s.batch))
	mux.HandleFunc("POST /explain", s.guarded(s.limited(s.explain)))
	mux.HandleFunc("POST /v1/embeddings", s.limitedAs(s.writeOpenAIError, s.embeddings(vectorizer.TaskQuery)))
	teach := s.limitedAs(s.writeOpenAIError, s.embeddings(vectorizer.TaskPassage))
	mux.HandleFunc("POST /passage/v1/embeddings", s.tokenOnly(teach))
	mux.HandleFunc("POST /v2/embed", s.limitedAs(s.writeCohereError, s.embedCohere))
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/", s.notFound)
	xo := http.NewCrossOriginProtection() // a web page must not teach the memory
	xo.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.errorWriterFor(r)(w, errorf(http.StatusForbidden, "cross-origin browser requests are refused"))
	}))
	s.handler = s.metrics.instrument(joinedSlashes(xo.Handler(mux)))
	s.ready.Store(true)
	return s, nil
}

// joinedSlashes serves a path that begins with several slashes as the path
// with one: Weaviate's text2vec-cohere appends "/v2/embed" to a base URL
// that may end in a slash, and http.ServeMux would answer "//v2/embed" with
// a redirect, which Weaviate's clients do not follow.
func joinedSlashes(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "//") {
			r.URL.Path = "/" + strings.TrimLeft(r.URL.Path, "/")
			if r.URL.RawPath != "" {
				r.URL.RawPath = "/" + strings.TrimLeft(r.URL.RawPath, "/")
			}
		}
		h.ServeHTTP(w, r)
	})
}

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// Registry returns the server's Prometheus registry.
func (s *Server) Registry() *prometheus.Registry { return s.metrics.reg }

// Serve serves on ln until ctx is cancelled, then stops accepting, reports
// not-ready, drains the requests in flight (at most drain long), and closes
// the memory (fsync and snapshot).
func (s *Server) Serve(ctx context.Context, ln net.Listener, drain time.Duration) error {
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      120 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	s.log.Info("serving", "addr", ln.Addr().String(), "model", s.modelName, "dim", s.vec.Dim())
	var serveErr error
	select {
	case err := <-errc:
		serveErr = fmt.Errorf("serving on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
		s.ready.Store(false)
		// Load balancers and probes see 503 before the listener closes.
		s.log.Info("shutting down: not ready", "ready_delay", min(s.limits.ReadyDelay, drain))
		time.Sleep(min(s.limits.ReadyDelay, drain))
		s.log.Info("shutting down: draining requests", "timeout", drain)
		sctx, cancel := context.WithTimeout(context.Background(), drain)
		if err := srv.Shutdown(sctx); err != nil {
			serveErr = fmt.Errorf("drain requests: %w", err)
			srv.Close()
		}
		cancel()
		<-errc
	}
	if s.store != nil {
		if err := s.store.Close(); err != nil {
			s.log.Error("flush context memory", "err", err)
			serveErr = errors.Join(serveErr, fmt.Errorf("flush context memory: %w", err))
		} else {
			st := s.store.Stats()
			s.log.Info("context memory flushed", "backend", st.Backend, "dir", st.Memory.Dir, "words", st.Memory.Words,
				"contexts", st.Memory.Contexts, "passages", st.Memory.Passages)
		}
	}
	return serveErr
}

func (s *Server) live(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }

func (s *Server) readyz(w http.ResponseWriter, _ *http.Request) {
	if !s.ready.Load() {
		s.writeError(w, errorf(http.StatusServiceUnavailable, "shutting down"))
		return
	}
	if s.store != nil {
		if err := s.store.Ready(); err != nil {
			he := internalError(err)
			e := errorf(http.StatusServiceUnavailable, "passages cannot be stored: %s", he.msg)
			e.retryAfter = he.retryAfter
			s.writeError(w, e)
			return
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

// answerFunc computes the answer to a request body: the JSON it returns is
// written by limitedAs, after the request's slot is released, with the
// headers the answerFunc set in hdr (an error is answered without them).
type answerFunc func(ctx context.Context, hdr http.Header, body *bytes.Buffer) ([]byte, error)

// limited reads the body (admit), then runs h holding one of the
// MaxConcurrent slots, under a context that ends with the client or after
// RequestTimeout, then releases the slot and writes h's answer (writeAnswer):
// a client slow to read its answer holds no slot. An error is written after
// the body's buffer and bytes are given back.
func (s *Server) limited(h answerFunc) http.HandlerFunc {
	return s.limitedAs(s.writeError, h)
}

// limitedAs is limited answering errors with writeErr.
func (s *Server) limitedAs(writeErr func(http.ResponseWriter, error), h answerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		buf := s.bufs.Get().(*bytes.Buffer)
		buf.Reset()
		held := s.budget.NewCharge()
		// free gives back the body's buffer and bytes. An error is written
		// after it: its writing, bounded only by the server's WriteTimeout,
		// is not cut to make room as an answer's is, so a client that does
		// not read it would hold the body that long (and a request cut, its
		// bytes past the maximum).
		free := func() {
			held.Release()
			if buf != nil && buf.Cap() <= 1<<20 {
				s.bufs.Put(buf)
			}
			buf = nil
		}
		defer free()
		fail := func(err error) {
			free()
			writeErr(w, err)
		}
		r.Body = held.Reader(r.Body)
		if err := s.admit(w, r, buf, held); err != nil {
			fail(err)
			return
		}
		slot, err := s.acquire(r.Context())
		if err != nil {
			if r.Context().Err() == nil {
				fail(err)
			}
			return
		}
		hdr := http.Header{} // the answer's own headers, sent only with it
		out, err := s.run(r.Context(), slot, hdr, buf, h)
		if err == nil {
			err = s.holdAnswer(held, int64(len(out)))
		}
		if err != nil {
			fail(err)
			return
		}
		maps.Copy(w.Header(), hdr)
		s.writeAnswer(w, out, held)
	}
}

// acquire takes one of the MaxConcurrent slots, waiting at most QueueWait
// (then a 503 with Retry-After) or until ctx ends (its error).
func (s *Server) acquire(ctx context.Context) (*admission.Slot, error) {
	slot, err := s.slots.Acquire(ctx)
	if errors.Is(err, admission.ErrBusy) {
		s.metrics.rejected.Inc()
		return nil, &httpError{status: http.StatusServiceUnavailable, retryAfter: 1,
			msg: fmt.Sprintf("server busy: %d requests in flight (--max-concurrent); retry later", s.limits.MaxConcurrent)}
	}
	return slot, err
}

// run runs h under a context that ends with ctx or after RequestTimeout and
// releases slot when h returns.
func (s *Server) run(ctx context.Context, slot *admission.Slot, hdr http.Header, body *bytes.Buffer,
	h answerFunc) ([]byte, error) {
	defer slot.Release()
	ctx, cancel := context.WithTimeout(ctx, s.limits.RequestTimeout)
	defer cancel()
	out, err := h(ctx, hdr, body)
	if err != nil {
		return nil, s.stopped(err)
	}
	return out, nil
}

// holdAnswer charges an answer of n bytes to held, beside the body, until
// the request ends. It is refused (bufferBusy) when the bytes held would
// exceed MaxBodyBuffer, unless no other answer is being written: one answer
// is always written, whatever its size, so what answers hold is at most
// MaxBodyBuffer or one answer.
func (s *Server) holdAnswer(held *admission.Charge, n int64) error {
	if err := held.Answer(n); err != nil {
		return s.bufferBusy()
	}
	return nil
}

// writeError answers err as {"error": "..."}.
func (s *Server) writeError(w http.ResponseWriter, err error) {
	he := s.answered(err)
	writeErrorBody(w, he, append(appendString([]byte(`{"error":`), he.msg), '}'))
}

// answered returns the httpError that answers err, logging what the client
// is not told.
func (s *Server) answered(err error) *httpError {
	var he *httpError
	if !errors.As(err, &he) {
		// Internal errors name files and directories: the log gets them, the client not.
		switch {
		case errors.Is(err, memstore.ErrRefused): // its store logged it once
		case errors.Is(err, memstore.ErrUnavailable):
			s.log.Warn("request failed", "err", err)
		default:
			s.log.Error("request failed", "err", err)
		}
		he = internalError(err)
	} else if he.status >= 500 && he.status != http.StatusServiceUnavailable {
		s.log.Error("request failed", "status", he.status, "err", he.msg)
	}
	return he
}

// writeErrorBody writes the error body of he with its status.
func writeErrorBody(w http.ResponseWriter, he *httpError, body []byte) {
	if he.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(he.retryAfter))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(he.status)
	w.Write(body)
}

func writeJSON(w http.ResponseWriter, body []byte) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	_, err := w.Write(body)
	return err
}

// requestConfig is the parsed "config" of a request.
type requestConfig struct {
	task taskSetting
	opts vectorizer.Options
}

type taskSetting struct {
	task vectorizer.Task
	set  bool
}

// configKeys are the keys a request's config takes: Weaviate's (task_type,
// pooling_strategy, dimensions), then the vectorizer's settings.
func configKeys() []string {
	return append([]string{"task_type", "pooling_strategy", "dimensions"}, vectorizer.Names(vectorizer.SurfaceRequest)...)
}

// parseConfig splits Weaviate's keys (task_type, pooling_strategy,
// dimensions) from the vectorizer's overrides; any other key is an error.
func (s *Server) parseConfig(cm requestConfigMap) (requestConfig, error) {
	rc := requestConfig{opts: s.vec.Options()}
	var rest map[string]any
	for k, v := range cm {
		switch k {
		case "task_type":
			str, ok := v.(string)
			if !ok {
				return rc, errorf(http.StatusBadRequest, "config key %q: want a string", k)
			}
			t, err := vectorizer.ParseTask(str)
			if err != nil {
				return rc, errorf(http.StatusBadRequest, "config key %q: %v", k, err)
			}
			rc.task = taskSetting{task: t, set: true}
		case "pooling_strategy":
			// Weaviate sends its transformer pooling setting ("masked_mean" by
			// default); word vectors are combined by "weighting" instead.
			if _, ok := v.(string); !ok && v != nil {
				return rc, errorf(http.StatusBadRequest, "config key %q: want a string", k)
			}
		case "dimensions":
			if v == nil {
				continue
			}
			n, ok := v.(json.Number)
			d, err := n.Int64()
			if !ok || err != nil {
				return rc, errorf(http.StatusBadRequest, "config key %q: want an integer", k)
			}
			if err := s.dimensionsError(fmt.Sprintf("config key %q", k), d); err != nil {
				return rc, err
			}
		default:
			if !slices.Contains(vectorizer.Names(vectorizer.SurfaceRequest), k) {
				return rc, &httpError{status: http.StatusBadRequest, err: vectorizer.ErrUnknownSetting,
					msg: fmt.Sprintf("unknown config key %q (known: %s)", k, strings.Join(configKeys(), ", "))}
			}
			if rest == nil {
				rest = make(map[string]any, len(cm))
			}
			rest[k] = v
		}
	}
	if rest != nil {
		o, err := rc.opts.WithOverrides(rest)
		if err != nil {
			return rc, errorf(http.StatusBadRequest, "%v", err)
		}
		rc.opts = o
	}
	return rc, nil
}

// checkText enforces the per-text limits; i < 0 for a single text.
func (s *Server) checkText(text string, i int) error {
	where := "text"
	if i >= 0 {
		where = fmt.Sprintf("texts[%d]", i)
	}
	return s.checkTextAt(text, where)
}

// checkTextAt is checkText for the text named where in its errors.
func (s *Server) checkTextAt(text, where string) error {
	if len(text) > s.limits.MaxTextBytes {
		return errorf(http.StatusRequestEntityTooLarge, "%s has %d bytes, more than the limit of %d (--max-text-bytes)", where, len(text), s.limits.MaxTextBytes)
	}
	// Every word takes at least one byte and a separator, so short texts
	// cannot exceed the word limit; count only when they might.
	if (len(text)+1)/2 > s.limits.MaxWords {
		// Counting builds no word; the vectorizer tokenizes the text once.
		if n := s.vec.Model().Tokenizer.CountWords(text, len(text)); n > s.limits.MaxWords {
			return errorf(http.StatusRequestEntityTooLarge, "%s has %d words, more than the limit of %d (--max-words)", where, n, s.limits.MaxWords)
		}
	}
	return nil
}

// vectorError maps a vectorizer error to an HTTP error.
func vectorError(err error, where string) error {
	if errors.Is(err, vectorizer.ErrNoWords) {
		return errorf(http.StatusUnprocessableEntity, "%s: %v", where, err)
	}
	if errors.Is(err, vectorizer.ErrTooManyAMWords) {
		return &httpError{status: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("%s: %v (--max-am-words)", where, err), err: err}
	}
	return fmt.Errorf("%s: %w", where, err)
}

// vecRequest is the body of /vectors: a textRequest, and the fields of the
// answer that Weaviate's transformers client sends back empty (dims 0,
// vector null, error ""), let through only so.
type vecRequest struct {
	Text   *string          `json:"text"`
	Config requestConfigMap `json:"config"`
	Dims   int              `json:"dims"`
	Vector []float32        `json:"vector"`
	Error  string           `json:"error"`
}

// echoedVecFields are the fields of /vectors' answer a request may hold, empty.
func echoedVecFields() []string { return []string{"dims", "vector", "error"} }

// checkEchoed refuses a request that fills a field of the answer.
func (r *vecRequest) checkEchoed() error {
	var field string
	switch {
	case r.Dims != 0:
		field = "dims"
	case len(r.Vector) != 0:
		field = "vector"
	case r.Error != "":
		field = "error"
	default:
		return nil
	}
	return answerFieldError(field, []string{"text", "config"})
}

// textRequest is what the bodies of /vectors and /explain share: one text and
// the per-request config.
type textRequest struct {
	Text   *string          `json:"text"`
	Config requestConfigMap `json:"config"`
}

// parseTextRequest checks a decoded single-text request: the text is present
// and within the limits, the config keys are known and valid.
func (s *Server) parseTextRequest(req textRequest) (string, requestConfig, error) {
	if req.Text == nil {
		return "", requestConfig{}, errorf(http.StatusBadRequest, "field \"text\" is required")
	}
	rc, err := s.parseConfig(req.Config)
	if err != nil {
		return "", requestConfig{}, err
	}
	if err := s.checkText(*req.Text, -1); err != nil {
		return "", requestConfig{}, err
	}
	return *req.Text, rc, nil
}

func (s *Server) vectors(ctx context.Context, _ http.Header, body *bytes.Buffer) ([]byte, error) {
	var req vecRequest
	if err := decodeEchoing(body.Bytes(), &req, []string{"text", "config"}, echoedVecFields()); err != nil {
		return nil, err
	}
	if err := req.checkEchoed(); err != nil {
		return nil, err
	}
	text, rc, err := s.parseTextRequest(textRequest{Text: req.Text, Config: req.Config})
	if err != nil {
		return nil, err
	}
	vecs, errs, err := s.vz.VectorizeBatch(ctx, s.vec, "", []string{text}, rc.task.task, rc.opts)
	if err != nil {
		return nil, err
	}
	vec := vecs[0]
	if err := errs[0]; err != nil {
		return nil, vectorError(err, "vectorize")
	}
	out := body.AvailableBuffer()[:0] // the request body is decoded; reuse its buffer
	out = append(out, `{"text":`...)
	out = appendString(out, text)
	out = append(out, `,"dims":`...)
	out = strconv.AppendInt(out, int64(len(vec)), 10)
	out = append(out, `,"vector":`...)
	out = appendVector(out, vec)
	out = append(out, '}')
	return out, nil
}

// batchRequest is the body of /vectors/batch.
type batchRequest struct {
	Texts  textList         `json:"texts"`
	Config requestConfigMap `json:"config"`
}

func (s *Server) batch(ctx context.Context, _ http.Header, body *bytes.Buffer) ([]byte, error) {
	req := batchRequest{Texts: textList{limit: s.limits.MaxBatch}}
	if err := decodeStrict(body.Bytes(), &req, "texts", "config"); err != nil {
		return nil, err
	}
	if !req.Texts.set {
		return nil, errorf(http.StatusBadRequest, "field \"texts\" is required")
	}
	rc, err := s.parseConfig(req.Config)
	if err != nil {
		return nil, err
	}
	for i, t := range req.Texts.texts {
		if err := s.checkText(t, i); err != nil {
			return nil, err
		}
	}
	vecs, errs, err := s.vz.VectorizeBatch(ctx, s.vec, "", req.Texts.texts, rc.task.task, rc.opts)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err // not a 200 with every text failed: the request was stopped
	}
	for _, e := range errs {
		if errors.Is(e, vectorizer.ErrTooManyAMWords) {
			s.metrics.amWordsRefused.Inc()
		}
	}
	out := body.AvailableBuffer()[:0]
	out = append(out, `{"dims":`...)
	out = strconv.AppendInt(out, int64(s.vec.Dim()), 10)
	out = append(out, `,"vectors":[`...)
	for i, v := range vecs {
		if i > 0 {
			out = append(out, ',')
		}
		if v == nil {
			out = append(out, "null"...)
		} else {
			out = appendVector(out, v)
		}
	}
	out = append(out, `],"errors":[`...)
	for i, e := range errs {
		if i > 0 {
			out = append(out, ',')
		}
		if e == nil {
			out = append(out, "null"...)
		} else {
			out = appendString(out, e.Error())
		}
	}
	out = append(out, "]}"...)
	return out, nil
}

func (s *Server) explain(ctx context.Context, _ http.Header, body *bytes.Buffer) ([]byte, error) {
	if s.limits.NoExplain {
		return nil, errorf(http.StatusForbidden, "/explain is turned off on this server (--explain off)")
	}
	var req textRequest
	if err := decodeStrict(body.Bytes(), &req, "text", "config"); err != nil {
		return nil, err
	}
	text, rc, err := s.parseTextRequest(req)
	if err != nil {
		return nil, err
	}
	if rc.task.set && rc.task.task == vectorizer.TaskPassage {
		return nil, errorf(http.StatusBadRequest,
			"config key \"task_type\": /explain never writes the memory, so it only takes \"query\"")
	}
	rv, err := s.vz.Reader(s.vec, "")
	if err != nil {
		return nil, err
	}
	ex, err := rv.ExplainContext(ctx, text, rc.opts, s.limits.Explain)
	if err != nil {
		return nil, vectorError(err, "explain")
	}
	out, err := json.Marshal(struct {
		Text string `json:"text"`
		Dims int    `json:"dims"`
		*vectorizer.Explanation
	}{text, len(ex.Vector), ex})
	if err != nil {
		return nil, fmt.Errorf("encode explanation: %w", err)
	}
	return out, nil
}

// metaResponse is the body of /meta; Weaviate shows it as the module's meta.
type metaResponse struct {
	Version string    `json:"version"` // version.String
	Model   metaModel `json:"model"`
	// Vectorizer holds every setting of the vectorizer's table by its request
	// key (vectorizer.Options.Values), and under "simd" the instruction set
	// running each SIMD kernel (simd.Sets).
	Vectorizer map[string]any `json:"vectorizer"`
	Memory     *metaMemory    `json:"memory"`
	Limits     metaLimits     `json:"limits"`
}

// metaLimits are the limits a client meets (the flags of the same names).
type metaLimits struct {
	MaxBodyBytes  int64 `json:"max_body_bytes"`
	MaxTextBytes  int   `json:"max_text_bytes"`
	MaxWords      int   `json:"max_words"`
	MaxBatch      int   `json:"max_batch"`
	MaxConcurrent int   `json:"max_concurrent"`
	MaxAMWords    int   `json:"max_am_words"` // AM words per text (--max-am-words)
	Explain       bool  `json:"explain"`      // whether /explain answers (--explain)
}

type metaModel struct {
	Name            string `json:"name"`
	Dimensions      int    `json:"dimensions"`
	Mode            string `json:"mode"`
	BaseVocabulary  int    `json:"base_vocabulary"`
	NgramVocabulary int    `json:"ngram_vocabulary"`
	HasCounts       bool   `json:"has_counts"`
}

type metaMemory struct {
	Backend  string `json:"backend"` // local or weaviate
	Words    int    `json:"words"`
	Contexts int    `json:"contexts"`
	Passages int64  `json:"passages"` // counted for sif-collection
	Bytes    int64  `json:"bytes"`
	// Evicted counts the words evicted since the server started, to keep
	// within --memory-max-words and --memory-max-bytes.
	Evicted  int64  `json:"evicted"`
	ReadOnly bool   `json:"read_only"`
	Persist  bool   `json:"persistent"`
	Sync     string `json:"sync"`
	// Weaviate describes a memory kept in Weaviate (backend weaviate).
	Weaviate *memstore.RemoteStats `json:"weaviate,omitempty"`
	// Model is the model the memory's directory records; ModelWarning says
	// that the server's model is another (memory.Stats).
	Model        string `json:"model,omitempty"`
	ModelWarning string `json:"model_warning,omitempty"`
}

// simdSets returns simd.Sets as a map from kernel to set.
func simdSets() map[string]string {
	sets := map[string]string{}
	for _, k := range simd.Sets() {
		sets[k.Kernel] = k.Set
	}
	return sets
}

func (s *Server) meta(w http.ResponseWriter, _ *http.Request) {
	m := s.vec.Model()
	o := s.vec.Options()
	resp := metaResponse{
		Version: version.String(),
		Model: metaModel{
			Name:            s.modelName,
			Dimensions:      m.Dim,
			Mode:            m.Mode.String(),
			BaseVocabulary:  m.Base.Len(),
			NgramVocabulary: m.Vocab.Len(),
			HasCounts:       m.Base.Counts != nil,
		},
		Vectorizer: o.Values(vectorizer.SurfaceRequest),
		Limits: metaLimits{MaxBodyBytes: s.limits.MaxBodyBytes, MaxTextBytes: s.limits.MaxTextBytes,
			MaxWords: s.limits.MaxWords, MaxBatch: s.limits.MaxBatch, MaxConcurrent: s.limits.MaxConcurrent,
			MaxAMWords: o.AMWordsLimit(), Explain: !s.limits.NoExplain},
	}
	resp.Vectorizer["simd"] = simdSets()
	if s.store != nil {
		ss := s.store.Stats()
		st := ss.Memory
		resp.Memory = &metaMemory{Backend: ss.Backend, Words: st.Words, Contexts: st.Contexts, Passages: st.Passages,
			Bytes: st.ContextBytes, Evicted: st.Evicted, ReadOnly: st.ReadOnly, Persist: st.Dir != "" || ss.Remote != nil, Sync: st.Sync,
			Weaviate: ss.Remote, Model: st.Model, ModelWarning: st.ModelWarning}
	}
	out, err := json.Marshal(resp)
	if err != nil {
		s.writeError(w, fmt.Errorf("encode meta: %w", err))
		return
	}
	writeJSON(w, out)
}
