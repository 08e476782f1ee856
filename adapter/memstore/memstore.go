// Package memstore is the one interface behind which a server keeps its
// context memory: Local, package memory's memory in this process (a log and
// snapshots in a directory, or RAM only), or a memory kept in Weaviate
// (package weaviatemem), which every replica of a stateless server reads.
package memstore

import (
	"context"
	"errors"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
)

// ErrUnavailable wraps every failure of a memory kept elsewhere to store a
// lesson or to be read: nothing is vectorized without the memory, and a
// server answers it with 503, so that the client resends.
var ErrUnavailable = errors.New("context memory unavailable")

// ErrRefused wraps the failure of a memory that must not be used until an
// operator mends it (a memory directory that lost passages its witness in
// Weaviate recorded): a server answers it with 503 without asking for a
// quick retry. Such an error also wraps ErrUnavailable.
var ErrRefused = errors.New("context memory refused")

// Store is a context memory that vectorizers read and teach. It is safe for
// concurrent use.
type Store interface {
	// VectorizeBatch vectorizes texts as task with v's model and options
	// over the memory of scope ("" for the shared one, else a collection
	// "Class" or a tenant "Class/tenant"). A passage teaches the memory
	// first: every text is taught before any is vectorized. err (wrapping
	// ErrUnavailable for a memory kept elsewhere) fails the whole call and no
	// vector is returned; errs[i] is texts[i]'s own error. The vectors may
	// share one array (vectorizer.VectorizeBatch).
	VectorizeBatch(ctx context.Context, v *vectorizer.Vectorizer, scope string, texts []string,
		task vectorizer.Task, opts vectorizer.Options) (vecs [][]float32, errs []error, err error)
	// Reader returns a vectorizer of v's model and options over the memory
	// of scope as it is now, which never writes it (explanations).
	Reader(v *vectorizer.Vectorizer, scope string) (*vectorizer.Vectorizer, error)
	// Stats describes the memory.
	Stats() Stats
	// Ready returns nil when passages can be stored, else why not.
	Ready() error
	// Close stores what is pending and releases the memory.
	Close() error
}

// Backend names of Stats.Backend.
const (
	BackendLocal    = "local"
	BackendWeaviate = "weaviate"
)

// Stats describe a store.
type Stats struct {
	// Backend is BackendLocal or BackendWeaviate.
	Backend string `json:"backend"`
	// Memory is the memory as this process reads it: for a memory kept
	// elsewhere, the sum of its copies of the scopes in use.
	Memory memory.Stats `json:"memory"`
	// Remote describes a memory kept elsewhere (nil for Local).
	Remote *RemoteStats `json:"remote,omitempty"`
}

// RemoteStats describe a memory kept in Weaviate and this process's copy.
type RemoteStats struct {
	// URL is Weaviate's base URL, without credentials; Class the collection
	// holding the memory; Replicas its replication factor as read from
	// Weaviate's schema (0 until the collection was read); ReplicasAsked the
	// factor this process creates it with, 0 for one replica on each of
	// Weaviate's nodes (an existing collection keeps its own);
	// ReplicasWarning, when a factor was asked and differs from the one
	// read, says so.
	URL             string `json:"url"`
	Class           string `json:"class"`
	Replicas        int    `json:"replicas"`
	ReplicasAsked   int    `json:"replicas_asked"`
	ReplicasWarning string `json:"replicas_warning,omitempty"`
	// State is "loading" (not read yet: nothing is vectorized), "ready", or
	// "stale" (the last refresh failed: queries read the last copy).
	State string `json:"state"`
	// Error is the last failure ("" after a success).
	Error string `json:"error,omitempty"`
	// Scopes are the copies in use, by scope ("" is the shared memory).
	Scopes map[string]ScopeStats `json:"scopes"`
	// Bytes estimates the RAM of the copies together, MaxBytes bounds it;
	// Dropped counts the copies dropped to keep within it or within the
	// most copies kept (each is read again when next used).
	Bytes    int64 `json:"bytes"`
	MaxBytes int64 `json:"max_bytes"`
	Dropped  int64 `json:"dropped"`
	// QueuedWrites counts the lessons waiting to be written; Written the
	// objects written since the start, WriteErrors the failed writes.
	QueuedWrites int   `json:"queued_writes"`
	Written      int64 `json:"written"`
	WriteErrors  int64 `json:"write_errors"`
	// Refreshes counts the reads by kind: "probe" (a count only),
	// "incremental" (the objects created lately), "incomplete" (an
	// incremental read that did not account for the count: a full read
	// follows), "full" (every object, added to the copy), "afresh" (every
	// object, into a new copy: Weaviate counted fewer than the copy held),
	// "error" (a refresh that failed).
	Refreshes map[string]int64 `json:"refreshes"`
}

// ScopeStats describe this process's copy of one scope's memory.
type ScopeStats struct {
	// Tenant is the Weaviate tenant holding the scope.
	Tenant string `json:"tenant"`
	// Objects counts the distinct objects the copy has read or written,
	// each once; Version is a digest of their ids: two copies with the same
	// Version read the same objects and so hold the same memory.
	Objects int64  `json:"objects"`
	Version string `json:"version"`
	// Passages and Contexts count the passages the copy counted and the
	// contexts it keeps.
	Passages int64 `json:"passages"`
	Contexts int   `json:"contexts"`
	// Refreshed is when the copy last matched Weaviate's count.
	Refreshed time.Time `json:"refreshed"`
}
