// Package memoryapi shares one context memory between many vectorizers: the
// memory API that `text2vec-am serve` answers (the holder of the memory), its
// wire format, and the client the in-process Weaviate module (or any other
// vectorizer) uses instead of a memory of its own.
//
// Every vectorizer that uses the same holder computes the same vector for the
// same text: the contexts and passage counts that decide a vector are read
// from the holder for each request (one round trip per batch), never from a
// copy that could lag. The vectorizing itself (the model, AM inference) stays
// on the client, so the holder only looks words up.
//
// Endpoints of the holder (JSON, POST):
//
//	/memory/v1/learn   {"collection","observations":[{"word","context"}],"passages":[[words…]…]} → {"epoch","passages"}
//	/memory/v1/lookup  {"collection","words":[…],"contexts":[{"word","have"}]} → {"epoch","passages","df":[…],"contexts":[{"version","contexts"}]}
//
// Passage counts (sif-collection) are kept per collection when the request
// names one, and always also in the shared counts (collection ""), which a
// caller that cannot know the collection (Weaviate's text2vec-transformers
// requests name none) reads.
package memoryapi

// Paths of the memory API.
const (
	PathLearn  = "/memory/v1/learn"
	PathLookup = "/memory/v1/lookup"
)

// Observation is one context sentence seen around one word.
type Observation struct {
	Word    string `json:"word"`
	Context string `json:"context"`
}

// LearnRequest teaches the memory contexts and counts passages.
type LearnRequest struct {
	// Collection names the collection whose passage counts also count these
	// passages ("" = the shared counts only), as Weaviate does
	// (memory.CollectionName: "books" is "Books").
	Collection   string        `json:"collection,omitempty"`
	Observations []Observation `json:"observations"`
	// Passages are the words of each passage (a word repeated counts once).
	Passages [][]string `json:"passages"`
}

// LearnResponse answers a LearnRequest.
type LearnResponse struct {
	Epoch    string `json:"epoch"`
	Passages int64  `json:"passages"` // passages now counted for the collection
}

// ContextQuery asks for the contexts of Word unless their version is Have.
type ContextQuery struct {
	Word string `json:"word"`
	Have uint64 `json:"have,omitempty"`
}

// LookupRequest reads what vectorizing needs: the passage counts of Words
// and the contexts of the words AM infers.
type LookupRequest struct {
	Collection string         `json:"collection,omitempty"`
	Words      []string       `json:"words"`
	Contexts   []ContextQuery `json:"contexts"`
}

// Contexts are the remembered contexts of one word at Version (0: none).
// Contexts is omitted when the version is the one the request said it has.
type Contexts struct {
	Version  uint64   `json:"version"`
	Contexts []string `json:"contexts,omitempty"`
}

// LookupResponse answers a LookupRequest: DF[i] belongs to Words[i],
// Contexts[i] to Contexts[i] of the request.
type LookupResponse struct {
	// Epoch identifies the holder's run: versions are comparable only within
	// one epoch.
	Epoch    string     `json:"epoch"`
	Passages int64      `json:"passages"`
	DF       []int64    `json:"df"`
	Contexts []Contexts `json:"contexts"`
}

// ErrorResponse is the body of every error answer.
type ErrorResponse struct {
	Error string `json:"error"`
}
