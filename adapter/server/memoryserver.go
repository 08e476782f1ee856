package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/memoryapi"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
)

// memoryAPI answers the shared-memory endpoints (package memoryapi) from the
// server's memory: contexts and the shared passage counts from it, the counts
// of each named collection from memory.Collections beside it.
type memoryAPI struct {
	vec         *vectorizer.Vectorizer
	mem         *memory.Memory
	collections *memory.Collections
	epoch       string
	noExplain   bool // --explain off: lookup returns no contexts
}

func newMemoryAPI(vec *vectorizer.Vectorizer, mem *memory.Memory, maxCollections int, noExplain bool) *memoryAPI {
	return &memoryAPI{vec: vec, mem: mem, collections: memory.NewCollections(mem.Dir(), mem.Options(), maxCollections),
		epoch: strconv.FormatInt(time.Now().UnixNano(), 36), noExplain: noExplain}
}

// register adds the endpoints to mux, each holding a request slot.
func (a *memoryAPI) register(s *Server, mux *http.ServeMux) {
	mux.HandleFunc("POST "+memoryapi.PathLearn, s.guarded(s.limited(a.learn)))
	mux.HandleFunc("POST "+memoryapi.PathLookup, s.guarded(s.limited(a.lookup)))
}

// passageCounts are the counts a learn counts its passages in: the shared
// memory or a collection's (memory.CollectionCounts).
type passageCounts interface {
	vectorizer.DocFreqStore
	// CountPassages counts all passages or, when the log write fails, none
	// (a failed fsync of SyncAlways keeps them counted).
	CountPassages(passages [][]string) error
}

// counts returns the passage counts of collection (the shared ones for "");
// create opens a collection's counts on first use, else a collection
// without counts reads as empty.
func (a *memoryAPI) counts(collection string, create bool) (passageCounts, error) {
	if collection == "" {
		return a.mem, nil
	}
	collection, err := memory.CollectionName(collection)
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "%v", err)
	}
	find := a.collections.Find
	if create {
		find = a.collections.Get
	}
	m, err := find(collection)
	if errors.Is(err, memory.ErrTooManyCollections) {
		return nil, errorf(http.StatusInsufficientStorage, "%v", err)
	}
	if err != nil {
		return nil, err
	}
	return memory.CollectionCounts{Collection: m, Shared: a.mem}, nil
}

// close flushes every collection's counts.
func (a *memoryAPI) close() error { return a.collections.Close() }

func (a *memoryAPI) learn(_ context.Context, w http.ResponseWriter, body *bytes.Buffer) error {
	var req memoryapi.LearnRequest
	if err := decodeStrict(body.Bytes(), &req, "collection", "observations", "passages"); err != nil {
		return err
	}
	if a.mem.ReadOnly() {
		return errorf(http.StatusConflict, "the context memory is read-only (serve --memory off): it learns nothing")
	}
	passages, err := checkLearn(req, a.vec.ContextHolds)
	if err != nil {
		return err
	}
	coll, err := a.counts(req.Collection, len(passages) > 0)
	if err != nil {
		return err
	}
	obs := make([]memory.Observation, 0, len(req.Observations))
	for _, o := range req.Observations {
		if a.vec.Remembers(o.Word) { // as a local memory: never contexts of a frequent word
			obs = append(obs, memory.Observation{Word: o.Word, Context: o.Context})
		}
	}
	if err := a.mem.Remember(obs); err != nil {
		return fmt.Errorf("remember contexts: %w", err)
	}
	// All passages in one write: a failed write counted none of them, so the
	// client's retry of the whole request counts each once (see
	// memory.CollectionCounts.CountPassages and the memory package
	// documentation, "Write failures", for the windows that remain).
	if err := coll.CountPassages(passages); err != nil {
		return fmt.Errorf("count passages: %w", err)
	}
	resp := memoryapi.LearnResponse{Epoch: a.epoch, Passages: coll.DocFreqs(nil, nil)}
	return writeValue(w, resp)
}

// checkLearn refuses an observation whose context does not hold its word
// (as holds decides) and a passage with an empty word, and returns the
// passages that have words (a passage without words is not counted, as
// locally).
func checkLearn(req memoryapi.LearnRequest, holds func(word, context string) bool) ([][]string, error) {
	for i, o := range req.Observations {
		if !holds(o.Word, o.Context) {
			return nil, errorf(http.StatusBadRequest, "observations[%d]: the context does not contain the word %q", i, o.Word)
		}
	}
	passages := make([][]string, 0, len(req.Passages))
	for i, p := range req.Passages {
		for j, w := range p {
			if strings.TrimSpace(w) == "" {
				return nil, errorf(http.StatusBadRequest, "passages[%d][%d]: an empty word", i, j)
			}
		}
		if len(p) > 0 {
			passages = append(passages, p)
		}
	}
	return passages, nil
}

func (a *memoryAPI) lookup(_ context.Context, w http.ResponseWriter, body *bytes.Buffer) error {
	var req memoryapi.LookupRequest
	if err := decodeStrict(body.Bytes(), &req, "collection", "words", "contexts"); err != nil {
		return err
	}
	if a.noExplain && len(req.Contexts) > 0 {
		return errorf(http.StatusForbidden, "contexts: remembered sentences are not returned on this server (--explain off)")
	}
	coll, err := a.counts(req.Collection, false)
	if err != nil {
		return err
	}
	resp := memoryapi.LookupResponse{Epoch: a.epoch, DF: make([]int64, len(req.Words)), Contexts: make([]memoryapi.Contexts, len(req.Contexts))}
	resp.Passages = coll.DocFreqs(resp.DF, req.Words)
	asked := make(map[string]struct{}, len(req.Contexts))
	size := 0
	for i, q := range req.Contexts {
		if _, dup := asked[q.Word]; dup {
			return errorf(http.StatusBadRequest, "contexts: word %q asked for twice", q.Word)
		}
		asked[q.Word] = struct{}{}
		ctx, version := a.mem.Contexts(nil, q.Word)
		resp.Contexts[i].Version = version
		if version != q.Have || q.Have == 0 {
			resp.Contexts[i].Contexts = ctx
			for _, c := range ctx {
				size += len(c)
			}
			if size > memoryapi.MaxAnswerBytes {
				return errorf(http.StatusRequestEntityTooLarge, "contexts: the answer would exceed %d bytes; ask for fewer words", memoryapi.MaxAnswerBytes)
			}
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
