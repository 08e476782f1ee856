package adapter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memoryapi"
)

// maxCollections bounds the collections whose passage counts a holder keeps.
const maxCollections = 1024

// collectionName is a Weaviate class name (what the module sends).
var collectionName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,254}$`)

// memoryAPI answers the shared-memory endpoints (package memoryapi) from the
// server's memory: contexts and the shared passage counts from it, the counts
// of each named collection from a memory of its own in
// <memory-dir>/collections/<name> (in RAM when the memory is).
type memoryAPI struct {
	mem   *memory.Memory
	epoch string

	mu          sync.Mutex
	collections map[string]*memory.Memory
}

func newMemoryAPI(mem *memory.Memory) *memoryAPI {
	return &memoryAPI{mem: mem, epoch: strconv.FormatInt(time.Now().UnixNano(), 36), collections: map[string]*memory.Memory{}}
}

// register adds the endpoints to mux, each holding a request slot.
func (a *memoryAPI) register(s *Server, mux *http.ServeMux) {
	mux.HandleFunc("POST "+memoryapi.PathLearn, s.limited(a.learn))
	mux.HandleFunc("POST "+memoryapi.PathLookup, s.limited(a.lookup))
}

// counts returns the memory holding the passage counts of collection
// (the shared memory for ""), opening it on first use.
func (a *memoryAPI) counts(collection string) (*memory.Memory, error) {
	if collection == "" {
		return a.mem, nil
	}
	if !collectionName.MatchString(collection) {
		return nil, errorf(http.StatusBadRequest, "collection %q: want a Weaviate class name ([A-Za-z_][A-Za-z0-9_]*, at most 255 bytes)", collection)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if m := a.collections[collection]; m != nil {
		return m, nil
	}
	if len(a.collections) >= maxCollections {
		return nil, errorf(http.StatusInsufficientStorage, "collection %q: the memory keeps the counts of at most %d collections", collection, maxCollections)
	}
	opts := a.mem.Options()
	dir := ""
	if d := a.mem.Dir(); d != "" {
		dir = filepath.Join(d, "collections", collection)
	}
	m, err := memory.Open(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("passage counts of collection %q: %w", collection, err)
	}
	a.collections[collection] = m
	return m, nil
}

// close flushes every collection's counts.
func (a *memoryAPI) close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	var errs []error
	for name, m := range a.collections {
		if err := m.Close(); err != nil {
			errs = append(errs, fmt.Errorf("passage counts of collection %q: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

func (a *memoryAPI) learn(w http.ResponseWriter, _ *http.Request, body *bytes.Buffer) error {
	var req memoryapi.LearnRequest
	if err := decodeJSON(body.Bytes(), &req); err != nil {
		return err
	}
	if a.mem.ReadOnly() {
		return errorf(http.StatusConflict, "the context memory is read-only (serve --memory off): it learns nothing")
	}
	coll, err := a.counts(req.Collection)
	if err != nil {
		return err
	}
	obs := make([]memory.Observation, len(req.Observations))
	for i, o := range req.Observations {
		obs[i] = memory.Observation{Word: o.Word, Context: o.Context}
	}
	if err := a.mem.Remember(obs); err != nil {
		return fmt.Errorf("remember contexts: %w", err)
	}
	for _, p := range req.Passages {
		if err := a.mem.CountPassage(p); err != nil {
			return fmt.Errorf("count passage: %w", err)
		}
		if coll != a.mem {
			if err := coll.CountPassage(p); err != nil {
				return fmt.Errorf("count passage of collection %q: %w", req.Collection, err)
			}
		}
	}
	resp := memoryapi.LearnResponse{Epoch: a.epoch, Passages: coll.DocFreqs(nil, nil)}
	return writeValue(w, resp)
}

func (a *memoryAPI) lookup(w http.ResponseWriter, _ *http.Request, body *bytes.Buffer) error {
	var req memoryapi.LookupRequest
	if err := decodeJSON(body.Bytes(), &req); err != nil {
		return err
	}
	coll, err := a.counts(req.Collection)
	if err != nil {
		return err
	}
	resp := memoryapi.LookupResponse{Epoch: a.epoch, DF: make([]int64, len(req.Words)), Contexts: make([]memoryapi.Contexts, len(req.Contexts))}
	resp.Passages = coll.DocFreqs(resp.DF, req.Words)
	for i, q := range req.Contexts {
		ctx, version := a.mem.Contexts(nil, q.Word)
		resp.Contexts[i].Version = version
		if version != q.Have || q.Have == 0 {
			resp.Contexts[i].Contexts = ctx
		}
	}
	return writeValue(w, resp)
}

// writeValue answers v as JSON.
func writeValue(w http.ResponseWriter, v any) error {
	out, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode answer: %w", err)
	}
	writeJSON(w, out)
	return nil
}
