// Package witness keeps in Weaviate what must outlive a context memory:
// the passage count of a server's memory directory, so that a server
// started on a lost, re-created or older directory refuses to vectorize
// with it instead of silently giving vectors that disagree with the ones
// Weaviate stores.
//
// The count is the passages the memory counted for the sif-collection
// weighting (memory.Stats.Passages), which only grows while the memory is
// used. The witness is one object of the collection Class in Weaviate (no
// vectorizer), its id drawn from the memory's name. A Witness reads it in
// the background when it starts, retrying until Weaviate answers: a memory
// that holds at least the passages recorded there is accepted, and from then
// on (unless it is read-only) its count is recorded every Options.Every,
// after the memory's log is fsynced so that a record never counts a passage
// a crash could lose, and when it closes. A memory that holds fewer is
// refused (ErrBehind) until a server starts with Options.Reset.
//
// The same collection records that a memory kept in Weaviate had its
// collection created (CollectionID; package weaviatemem reads and writes it
// with Read and Write), so that a deleted one is not re-created empty.
package witness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/weaviateapi"
)

// Class is the collection in Weaviate that holds the witnesses.
const Class = "Text2vecAmWitness"

// DefaultName names the memory of a server started without one;
// DefaultEvery is how often its count is recorded by default.
const (
	DefaultName  = "default"
	DefaultEvery = 10 * time.Second
)

// callTimeout bounds every call to Weaviate, closeTimeout the last record
// (a shutdown must not wait long for it); maxAnswerBytes bounds an answer.
const (
	callTimeout    = 30 * time.Second
	closeTimeout   = 5 * time.Second
	maxAnswerBytes = 64 << 10
)

// ErrPending wraps the error of a memory whose witness has not been read
// yet (and memstore.ErrUnavailable); ErrBehind the error of a memory that
// holds fewer passages than its witness recorded (and memstore.ErrRefused
// and memstore.ErrUnavailable).
var (
	ErrPending = errors.New("the context memory's witness in Weaviate is not read yet")
	ErrBehind  = errors.New("the context memory holds fewer passages than its witness in Weaviate recorded")
)

// Options configure a Witness.
type Options struct {
	// URL is Weaviate's base URL (http or https, no credentials); APIKey its
	// API key ("" for none).
	URL, APIKey string
	// Name names the memory among those Weaviate witnesses ("" for
	// DefaultName): servers with memories of their own need names of their own.
	Name string
	// Reset accepts the memory whatever its witness recorded.
	Reset bool
	// Every is how often the count is recorded (0: DefaultEvery).
	Every time.Duration
	// Logger receives what the witness finds (nil: slog.Default()).
	Logger *slog.Logger
}

// Memory is what a Witness reads of the memory: memory.Memory.
type Memory interface {
	Stats() memory.Stats
	Sync() error
	ReadOnly() bool
}

// Witness checks a memory against its witness in Weaviate and keeps the
// witness up to date. Its methods are safe for concurrent use.
type Witness struct {
	o    Options
	base string
	id   string
	mem  Memory
	dir  string // the memory's directory, for the log
	http *http.Client

	mu       sync.Mutex
	err      error // nil once accepted; ErrPending until read; ErrBehind when refused
	recorded int64 // the count the witness holds (-1: none)
	weaviate bool  // the URL answered as Weaviate does

	checked   chan struct{} // closed once the witness is read
	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// Check checks o and fills in its defaults.
func (o *Options) Check() error {
	u, err := url.Parse(strings.TrimSpace(o.URL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("witness URL %q: want http://host:port or https://host:port, without credentials",
			weaviateapi.Redact(o.URL))
	}
	o.URL = strings.TrimRight(u.String(), "/")
	if o.Name == "" {
		o.Name = DefaultName
	}
	if len(o.Name) > 256 || !utf8.ValidString(o.Name) || strings.ContainsFunc(o.Name, isControl) {
		return fmt.Errorf("witness name %q: want at most 256 bytes of UTF-8 without control characters", o.Name)
	}
	if o.Every < 0 {
		return fmt.Errorf("witness period %v: want ≥ 0 (0: the default %v)", o.Every, DefaultEvery)
	}
	if o.Every == 0 {
		o.Every = DefaultEvery
	}
	if err := weaviateapi.CheckAPIKey(o.APIKey); err != nil {
		return fmt.Errorf("witness API key: %w", err)
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// idSpace is the UUID namespace of the witnesses' ids.
var idSpace = uuid.MustParse("6f1d1a52-3c43-4a43-9a4e-7e2d3b1f0c55")

// ID is the id of the witness of the memory named name.
func ID(name string) string { return uuid.NewSHA1(idSpace, []byte("memory\x00"+name)).String() }

// CollectionID is the id of the witness that a memory kept in Weaviate's
// collection class was created (package weaviatemem): its count is 0.
func CollectionID(class string) string {
	return uuid.NewSHA1(idSpace, []byte("collection\x00"+class)).String()
}

// Start checks o and starts reading the witness of mem, whose directory is
// dir, in the background.
func Start(o Options, mem Memory, dir string) (*Witness, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	w := &Witness{o: o, base: o.URL, id: ID(o.Name), mem: mem, dir: dir, recorded: -1,
		http:    &http.Client{Transport: limitedBody{http.DefaultTransport}},
		checked: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	w.err = w.pendingErr("")
	go w.run()
	return w, nil
}

// Err returns nil when the memory was accepted, else an error wrapping
// ErrPending or ErrBehind (and memstore.ErrUnavailable).
func (w *Witness) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Wait waits until the witness is read (or ctx ends) and returns Err.
func (w *Witness) Wait(ctx context.Context) error {
	select {
	case <-w.checked:
	case <-ctx.Done():
	case <-w.done:
	}
	return w.Err()
}

// Close stops the background work and, if the memory was accepted and is
// writable, records its count a last time (waiting 5 s at most). The memory
// must still be open. Later calls return the first call's result.
func (w *Witness) Close() error {
	w.closeOnce.Do(func() {
		close(w.stop)
		<-w.done
		if w.Err() != nil || w.mem.ReadOnly() {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		defer cancel()
		if err := w.record(ctx); err != nil {
			w.closeErr = fmt.Errorf("record the context memory's count in its witness: %w", err)
		}
	})
	return w.closeErr
}

// pendingErr is the error of a witness not read yet; reason is why ("": none yet).
func (w *Witness) pendingErr(reason string) error {
	if reason != "" {
		reason = ": " + reason
	}
	return fmt.Errorf("%w: %w (Weaviate at %s%s)", memstore.ErrUnavailable, ErrPending, w.base, reason)
}

// limitedBody bounds the answers a witness reads to maxAnswerBytes (a
// longer one fails to decode).
type limitedBody struct{ rt http.RoundTripper }

func (l limitedBody) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := l.rt.RoundTrip(r)
	if err == nil {
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.LimitReader(resp.Body, maxAnswerBytes), resp.Body}
	}
	return resp, err
}
