package witness

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memstore"
	"github.com/text2vec-am/text2vec-am/adapter/weaviateapi"
)

// BehindError is the error of a memory that holds fewer passages than its
// witness recorded; it wraps ErrBehind, memstore.ErrRefused and
// memstore.ErrUnavailable. Its message names no file: servers answer it to
// their clients.
type BehindError struct {
	Name     string // the memory's name
	Holds    int64  // the passages the memory holds
	Recorded int64  // the passages its witness recorded
	URL      string // Weaviate's URL
}

func (e *BehindError) Error() string {
	return fmt.Sprintf("%v: memory %q holds %d passages, its witness in Weaviate at %s recorded %d: the memory was lost, "+
		"re-created or restored from an older copy, and its vectors would disagree with those stored "+
		"(the server's log says how to mend it)", ErrBehind, e.Name, e.Holds, e.URL, e.Recorded)
}

// Is makes errors.Is find ErrBehind, memstore.ErrRefused and memstore.ErrUnavailable.
func (e *BehindError) Is(target error) bool {
	return target == ErrBehind || target == memstore.ErrRefused || target == memstore.ErrUnavailable
}

// run reads the witness, retrying until Weaviate answers, then, for a
// writable memory it accepted, records the memory's count every o.Every
// until Close.
func (w *Witness) run() {
	defer close(w.done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-w.stop
		cancel()
	}()
	for attempt := 0; ; attempt++ {
		err := w.check(ctx)
		if err == nil || errors.Is(err, ErrBehind) {
			w.settle(err)
			break
		}
		if ctx.Err() != nil {
			return
		}
		w.retrying(attempt, err)
		if !w.sleep(backoff(attempt)) {
			return
		}
	}
	if w.Err() != nil || w.mem.ReadOnly() {
		return
	}
	for {
		if err := w.record(ctx); err != nil && ctx.Err() == nil {
			w.o.Logger.Warn("context memory: cannot record its count in its witness in Weaviate", "url", w.base, "err", err)
		}
		if !w.sleep(w.o.Every) {
			return
		}
	}
}

// Lasting reports whether err is an answer of Weaviate that retrying will
// not change: a 4xx other than 408 and 429 (a refused key, a wrong path).
func Lasting(err error) bool {
	var he *weaviateapi.HTTPError
	return errors.As(err, &he) && he.Status/100 == 4 && he.Status != http.StatusRequestTimeout &&
		he.Status != http.StatusTooManyRequests
}

// retrying notes the failure of attempt to read the witness: the pending
// error says why (a status, not an answer's body), and the log says so,
// as an error when retrying will not help (a refused key, a wrong path).
func (w *Witness) retrying(attempt int, err error) {
	reason := err.Error()
	var he *weaviateapi.HTTPError
	lasting := errors.Is(err, errNotWeaviate) || Lasting(err)
	if errors.As(err, &he) {
		reason = fmt.Sprintf("%s %s: status %d", he.Method, he.URL, he.Status)
	}
	w.mu.Lock()
	w.err = w.pendingErr(reason)
	w.mu.Unlock()
	if attempt%10 != 0 {
		return
	}
	level := slog.LevelWarn
	if lasting {
		level = slog.LevelError
	}
	w.o.Logger.Log(context.Background(), level, "context memory: cannot read its witness in Weaviate; "+
		"vectorizing waits for it", "url", w.base, "name", w.o.Name, "err", err)
}

// settle ends the wait for the witness with err (nil: accepted).
func (w *Witness) settle(err error) {
	w.mu.Lock()
	w.err = err
	recorded := w.recorded
	w.mu.Unlock()
	close(w.checked)
	var be *BehindError
	if errors.As(err, &be) {
		w.o.Logger.Error("context memory refused: it holds fewer passages than its witness in Weaviate recorded; "+
			"nothing is vectorized with it. Rebuild it from the collections it was taught (stop the server; "+
			"text2vec-am memory rebuild --class C --memory-dir DIR for each), then start with "+
			"--memory-witness-reset; or accept it as it is with --memory-witness-reset",
			"dir", w.dir, "name", be.Name, "holds", be.Holds, "recorded", be.Recorded, "url", w.base)
		return
	}
	if recorded < 0 {
		w.o.Logger.Info("context memory: no witness in Weaviate yet; recording it", "url", w.base, "name", w.o.Name)
		return
	}
	w.o.Logger.Info("context memory: its witness in Weaviate agrees", "url", w.base, "name", w.o.Name,
		"holds", w.mem.Stats().Passages, "recorded", recorded)
}

func (w *Witness) recordedCount() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.recorded
}

// sleep waits d; false when the witness is stopping.
func (w *Witness) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-w.stop:
		return false
	case <-t.C:
		return true
	}
}

// backoff is the wait before the attempt after attempt: 0.25 s doubling, at
// most 2 s (one small read: vectorizing waits for it).
func backoff(attempt int) time.Duration {
	return min(250*time.Millisecond<<min(attempt, 3), 2*time.Second)
}

// check reads the witness and compares the memory's count with it: nil,
// a *BehindError, or the failure to read it.
func (w *Witness) check(ctx context.Context) error {
	if err := w.probe(ctx); err != nil {
		return err
	}
	recorded, err := w.read(ctx)
	if err != nil {
		return err
	}
	w.mu.Lock()
	w.recorded = recorded
	w.mu.Unlock()
	holds := w.mem.Stats().Passages
	if recorded <= holds {
		return nil
	}
	if !w.o.Reset {
		return &BehindError{Name: w.o.Name, Holds: holds, Recorded: recorded, URL: w.base}
	}
	w.o.Logger.Warn("context memory accepted with fewer passages than its witness recorded (reset)",
		"dir", w.dir, "holds", holds, "recorded", recorded)
	return nil
}

// errNotWeaviate is the error of a URL that does not answer as Weaviate.
var errNotWeaviate = errors.New("does not answer as Weaviate: GET /v1/meta gives no version")

// probe checks once that the URL answers GET /v1/meta as Weaviate does, so
// that a wrong URL, whose every answer is 404, is not taken for a Weaviate
// without the witness.
func (w *Witness) probe(ctx context.Context) error {
	w.mu.Lock()
	done := w.weaviate
	w.mu.Unlock()
	if done {
		return nil
	}
	var meta struct {
		Version string `json:"version"`
	}
	if err := w.call(ctx, http.MethodGet, "/v1/meta", nil, &meta); err != nil {
		return err
	}
	if meta.Version == "" {
		return fmt.Errorf("%s %w", w.base, errNotWeaviate)
	}
	w.mu.Lock()
	w.weaviate = true
	w.mu.Unlock()
	return nil
}

// witnessObject is the witness as GET /v1/objects answers it.
type witnessObject struct {
	Properties struct {
		Passages *float64 `json:"passages"`
	} `json:"properties"`
}

// read returns the count the witness recorded (-1: there is none).
func (w *Witness) read(ctx context.Context) (int64, error) { return Read(ctx, w.call, w.id) }

// record records the memory's count, once its log is fsynced, if it is
// not what the witness holds (creating the class for the first witness).
func (w *Witness) record(ctx context.Context) error {
	n := w.mem.Stats().Passages
	recorded := w.recordedCount()
	if n == recorded {
		return nil
	}
	if err := w.mem.Sync(); err != nil {
		return err
	}
	// Write checks the class before every write: Weaviate's auto-schema
	// would re-create a deleted class with the default vectorizer, which
	// would vectorize the witness through this very server.
	if err := Write(ctx, w.call, 1, w.id, w.o.Name, n); err != nil {
		w.mu.Lock()
		w.recorded = -1 // the next record writes again, whatever the count
		w.mu.Unlock()
		return err
	}
	w.mu.Lock()
	w.recorded = n
	w.mu.Unlock()
	if n < recorded {
		w.o.Logger.Info("context memory: its witness in Weaviate is reset", "url", w.base, "name", w.o.Name,
			"passages", n, "was", recorded)
	}
	return nil
}

// EnsureClass creates Class through call unless it exists, with
// replication factor replicas.
func EnsureClass(ctx context.Context, call weaviateapi.Caller, replicas int) error {
	err := call(ctx, http.MethodGet, "/v1/schema/"+Class, nil, nil)
	var he *weaviateapi.HTTPError
	if !errors.As(err, &he) || he.Status != http.StatusNotFound {
		return err
	}
	err = call(ctx, http.MethodPost, "/v1/schema", classDefinition(replicas), nil)
	if errors.As(err, &he) && he.Status == http.StatusUnprocessableEntity && strings.Contains(he.Body, "already exists") {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create class %s: %w", Class, err)
	}
	return nil
}

// Read returns the count the witness id records, through call (-1: there
// is none).
func Read(ctx context.Context, call weaviateapi.Caller, id string) (int64, error) {
	var obj witnessObject
	err := call(ctx, http.MethodGet, "/v1/objects/"+Class+"/"+id, nil, &obj)
	var he *weaviateapi.HTTPError
	if errors.As(err, &he) && he.Status == http.StatusNotFound {
		return -1, nil
	}
	if err != nil {
		return 0, err
	}
	p := obj.Properties.Passages
	if p == nil || *p < 0 || *p > 1<<53 || *p != float64(int64(*p)) {
		return 0, fmt.Errorf("witness %s/%s in Weaviate: its passages are not a count: %v", Class, id, p)
	}
	return int64(*p), nil
}

// Write records n as the count of the witness id of the memory name,
// through call, creating Class first (replication factor replicas) unless
// it exists (Weaviate's auto-schema would create it with the default
// vectorizer).
func Write(ctx context.Context, call weaviateapi.Caller, replicas int, id, name string, n int64) error {
	if err := EnsureClass(ctx, call, replicas); err != nil {
		return err
	}
	obj := map[string]any{"class": Class, "id": id, "properties": map[string]any{
		"name": name, "passages": n, "recorded": time.Now().UTC().Format(time.RFC3339Nano)}}
	return weaviateapi.Batch(ctx, call, []map[string]any{obj}, "QUORUM")
}

// classDefinition is Class: no vectorizer and no vectors to index.
func classDefinition(replicas int) map[string]any {
	prop := func(name, dataType string) map[string]any {
		return map[string]any{"name": name, "dataType": []string{dataType}}
	}
	return map[string]any{
		"class":             Class,
		"description":       "text2vec-am: the passage count of each context memory kept outside Weaviate",
		"vectorizer":        "none",
		"vectorIndexConfig": map[string]any{"skip": true},
		"replicationConfig": map[string]any{"factor": max(replicas, 1)},
		"properties":        []map[string]any{prop("name", "text"), prop("passages", "int"), prop("recorded", "date")},
	}
}

// call is the weaviateapi.Caller of the witness.
func (w *Witness) call(ctx context.Context, method, path string, body, out any) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return weaviateapi.Call(ctx, w.http, method, w.base+path, w.o.APIKey, body, out)
}
