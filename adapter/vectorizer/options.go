package vectorizer

import (
	"encoding/json"
	"fmt"
)

// Task says why a text is vectorized.
type Task uint8

const (
	// TaskQuery vectorizes a search query: the memory is read, never written.
	TaskQuery Task = iota
	// TaskPassage vectorizes an imported object: the sentences around its
	// non-frequent words are offered to the memory first.
	TaskPassage
)

// ParseTask parses Weaviate's task_type: "query" or "passage"; "" (a caller
// that does not say) is a query, so that no request writes the memory by accident.
func ParseTask(s string) (Task, error) {
	switch s {
	case "", "query":
		return TaskQuery, nil
	case "passage":
		return TaskPassage, nil
	}
	return 0, fmt.Errorf("task_type %q: want \"query\" or \"passage\"", s)
}

// String returns "query" or "passage".
func (t Task) String() string {
	if t == TaskPassage {
		return "passage"
	}
	return "query"
}

// Weighting says how word vectors are combined.
type Weighting uint8

const (
	// WeightSIF weights each word by a/(a + p(w)) (Arora et al. 2017), p(w)
	// its relative frequency in the model's base counts (0 for unseen words).
	WeightSIF Weighting = iota
	// WeightMean gives every word the same weight.
	WeightMean
	// WeightSIFCollection (the default) multiplies the SIF weight by a
	// collection factor b/(b + df(w)/N), df(w) the number of passages seen so
	// far that contain w and N the number of passages (b is
	// Options.CollectionB): words shared by a large part of the collection
	// ("package", "library") weigh little. Queries and passages are weighted
	// alike; before any passage it is SIF. Passages are counted (Vectorize
	// with TaskPassage, Learn) only when the call's weighting is
	// WeightSIFCollection, or by Observe. The counts live in the context
	// memory when the store is a DocFreqStore (*memory.Memory: persisted with
	// the contexts, not counted when it is read-only), else in the
	// Vectorizer's RAM.
	WeightSIFCollection
)

// ParseWeighting parses "sif", "mean" or "sif-collection".
func ParseWeighting(s string) (Weighting, error) {
	switch s {
	case "sif":
		return WeightSIF, nil
	case "mean":
		return WeightMean, nil
	case "sif-collection":
		return WeightSIFCollection, nil
	}
	return 0, fmt.Errorf("weighting %q: want \"sif\", \"mean\" or \"sif-collection\"", s)
}

// String returns the name ParseWeighting accepts.
func (w Weighting) String() string {
	switch w {
	case WeightSIF:
		return "sif"
	case WeightMean:
		return "mean"
	case WeightSIFCollection:
		return "sif-collection"
	}
	return fmt.Sprintf("Weighting(%d)", uint8(w))
}

// Options control how a text becomes a vector. Start from DefaultOptions.
type Options struct {
	// Weighting combines the word vectors (default WeightSIFCollection).
	Weighting Weighting
	// SIFA is the a of the SIF weight a/(a + p(w)) (default 1e-3).
	SIFA float64
	// FrequentMin: a word whose base count is at least FrequentMin uses its
	// base row (source "base"). Default 32, the bundle's AM+skip boundary.
	FrequentMin int64
	// RareMin: a word with RareMin ≤ count < FrequentMin uses its row of the
	// serving bundle, which holds the AM+skip vector (source "amskip"); a word
	// with a smaller count, or not in the vocabulary, gets AM from its form and
	// contexts (source "am"). Default 1: only unseen words are inferred live.
	RareMin int64
	// MaxContexts bounds the contexts fed to AM for one word: the remembered
	// ones, or when the memory holds none for the word the windows of
	// ±model.ContextWindow tokens around its occurrences in this text (see
	// MixTextContexts). 0 means form only. Default 64.
	MaxContexts int
	// MixTextContexts adds the contexts of this text after the remembered
	// contexts of a word, as room allows. Default false: a word the memory
	// knows gets its vector from the remembered contexts alone, the same in a
	// query as in the passages (on debian-dev with the default model and the
	// memory warmed, dense AM MRR@10 0.545, against 0.538 with mixing).
	MixTextContexts bool
	// QueryMemoryOnly gives a query's AM words the remembered contexts alone:
	// never the query's own words, which are not a sentence in which the word
	// was used. Passages keep their own windows. Default false.
	QueryMemoryOnly bool
	// TextContextDiscount lowers AM's trust in the text's own sentences: a
	// word inferred from windows around it in the text being vectorized gets
	// AM's gate α times 1 − d·s, s the share of such windows among its
	// contexts (0 ≤ d ≤ 1). A word the memory holds no context for has only
	// those (s = 1; d = 1: its form alone); with MixTextContexts they follow
	// the remembered ones. Those sentences are in the text's vector already,
	// and differ from one text to the next; remembered contexts, shared by
	// every text that reads them, are trusted as the model learned. Default
	// 0.5 (on debian-dev with an empty memory and CommonComponents 4, dense
	// AM MRR@10 0.517 at 0, 0.533 at 0.5, 0.527 at 1).
	TextContextDiscount float64
	// CommonComponents takes out of a text's vector what every text vector
	// shares: the weights of its word vectors times the corpus's mean word
	// vector (each word by its count), then its projection on the first
	// CommonComponents principal directions of the base vectors around that
	// mean (SIF's common component, Arora et al. 2017; Mu and Viswanath 2018),
	// 0..MaxCommonComponents; a model has at most one direction per 50
	// dimensions (4 for the default model), and one under 50 dimensions none:
	// its text vectors are the weighted sum as it is, as with 0. Default 4 (on
	// debian-dev, dense AM MRR@10 with an empty memory 0.522 at 0, 0.526 at 1,
	// 0.530 at 2, 0.533 at 4; warmed 0.530, 0.535, 0.537, 0.545).
	CommonComponents int
	// memoryOnly is set per call: a query (or Explain) under QueryMemoryOnly.
	memoryOnly bool
	// CollectionB is the b of WeightSIFCollection's factor b/(b + df(w)/N);
	// 0 (the default) means DefaultCollectionB.
	CollectionB float64
	// MaxAMWords bounds the distinct words of one text that need AM
	// inference; a text with more is refused with ErrTooManyAMWords before
	// any work (0: DefaultMaxAMWords). Not a per-request override key.
	MaxAMWords int
}

// ForObjects returns o for vectorizing imported objects, which some paths
// vectorize with TaskQuery over a read of the memory (after teaching it, or
// in a collection that does not teach): the settings that concern queries
// alone (QueryMemoryOnly) are cleared.
func (o Options) ForObjects() Options {
	o.QueryMemoryOnly = false
	return o
}

// DefaultMaxAMWords is the MaxAMWords that 0 stands for. Each AM word costs at
// most MaxContexts contexts of 2·model.ContextWindow tokens; on the reference
// CPU 20,000 unseen words in one text take well under a second (docs/benchmarks.md).
const DefaultMaxAMWords = 20_000

// AMWordsLimit returns the MaxAMWords in effect: DefaultMaxAMWords when it is 0.
func (o Options) AMWordsLimit() int { return o.maxAMWords() }

// maxAMWords returns MaxAMWords, or its default when it is 0.
func (o *Options) maxAMWords() int {
	if o.MaxAMWords == 0 {
		return DefaultMaxAMWords
	}
	return o.MaxAMWords
}

// DefaultOptions returns sif-collection with a = 1e-3 and b = 0.01,
// FrequentMin 32, RareMin 1, 64 contexts, the text's own sentences trusted
// half as much as remembered ones, 4 common components taken out, at most
// DefaultMaxAMWords AM words per text. On debian-dev with the default model
// and an empty memory, sif-collection lifts dense AM MRR@10 from 0.502 (sif)
// to 0.533.
func DefaultOptions() Options {
	return Options{Weighting: WeightSIFCollection, SIFA: 1e-3, FrequentMin: 32, RareMin: 1, MaxContexts: 64,
		CollectionB: DefaultCollectionB, TextContextDiscount: 0.5, CommonComponents: 4,
		MaxAMWords: DefaultMaxAMWords}
}

// DefaultCollectionB is the CollectionB that 0 stands for: a word in 1% of
// the passages keeps half its SIF weight (on debian-dev with the default
// model and an empty memory, b = 0.003, 0.01 and 0.03 give dense AM MRR@10
// 0.492, 0.533 and 0.541).
const DefaultCollectionB = 0.01

// collectionB returns CollectionB, or its default when it is 0.
func (o *Options) collectionB() float64 {
	if o.CollectionB == 0 {
		return DefaultCollectionB
	}
	return o.CollectionB
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, json.Number, int, int64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
