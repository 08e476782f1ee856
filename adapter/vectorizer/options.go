package vectorizer

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
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
)

// ParseWeighting parses "sif" or "mean".
func ParseWeighting(s string) (Weighting, error) {
	switch s {
	case "sif":
		return WeightSIF, nil
	case "mean":
		return WeightMean, nil
	}
	return 0, fmt.Errorf("weighting %q: want \"sif\" or \"mean\"", s)
}

// String returns the name ParseWeighting accepts.
func (w Weighting) String() string {
	switch w {
	case WeightSIF:
		return "sif"
	case WeightMean:
		return "mean"
	}
	return fmt.Sprintf("Weighting(%d)", uint8(w))
}

// Options control how a text becomes a vector. Start from DefaultOptions.
type Options struct {
	// Weighting combines the word vectors (default WeightSIF).
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
	// ones first, then the sentences of this text. 0 means form only. Default 64.
	MaxContexts int
}

// DefaultOptions returns SIF with a = 1e-3, FrequentMin 32, RareMin 1, 64 contexts.
func DefaultOptions() Options {
	return Options{Weighting: WeightSIF, SIFA: 1e-3, FrequentMin: 32, RareMin: 1, MaxContexts: 64}
}

// Validate reports the first option out of range, naming it by its config key.
func (o Options) Validate() error {
	switch {
	case o.Weighting > WeightMean:
		return fmt.Errorf("weighting: unknown value %d", o.Weighting)
	case !(o.SIFA > 0 && o.SIFA <= 1):
		return fmt.Errorf("sif_a = %v: want 0 < sif_a ≤ 1", o.SIFA)
	case o.RareMin < 0:
		return fmt.Errorf("rare_min = %d: want ≥ 0", o.RareMin)
	case o.FrequentMin < o.RareMin:
		return fmt.Errorf("frequent_min = %d is below rare_min = %d", o.FrequentMin, o.RareMin)
	case o.MaxContexts < 0 || o.MaxContexts > 4096:
		return fmt.Errorf("max_contexts = %d: want 0..4096", o.MaxContexts)
	}
	return nil
}

// OverrideKeys returns the per-request config keys WithOverrides accepts.
func OverrideKeys() []string {
	return []string{"weighting", "sif_a", "frequent_min", "rare_min", "max_contexts"}
}

// WithOverrides returns o with the per-request overrides in cfg applied.
// Numbers may be float64 or json.Number (integers must be whole). An unknown
// key, a wrong type or a value out of range is an error naming the key.
func (o Options) WithOverrides(cfg map[string]any) (Options, error) {
	keys := make([]string, 0, len(cfg))
	for k := range cfg {
		keys = append(keys, k)
	}
	slices.Sort(keys) // report errors deterministically
	for _, k := range keys {
		val := cfg[k]
		switch k {
		case "weighting":
			s, ok := val.(string)
			if !ok {
				return o, fmt.Errorf("config key %q: want a string (\"sif\" or \"mean\"), got %s", k, typeName(val))
			}
			w, err := ParseWeighting(s)
			if err != nil {
				return o, fmt.Errorf("config key %q: %w", k, err)
			}
			o.Weighting = w
		case "sif_a":
			f, err := number(k, val)
			if err != nil {
				return o, err
			}
			o.SIFA = f
		case "frequent_min", "rare_min", "max_contexts":
			f, err := number(k, val)
			if err != nil {
				return o, err
			}
			if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
				return o, fmt.Errorf("config key %q: want a whole number, got %v", k, f)
			}
			switch k {
			case "frequent_min":
				o.FrequentMin = int64(f)
			case "rare_min":
				o.RareMin = int64(f)
			default:
				if f > math.MaxInt32 || f < math.MinInt32 {
					return o, fmt.Errorf("config key %q: %v out of range", k, f)
				}
				o.MaxContexts = int(f)
			}
		default:
			return o, fmt.Errorf("unknown config key %q (known: %s)", k, strings.Join(OverrideKeys(), ", "))
		}
	}
	if err := o.Validate(); err != nil {
		return o, fmt.Errorf("config: %w", err)
	}
	return o, nil
}

func number(key string, v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return 0, fmt.Errorf("config key %q: %q is not a number", key, x.String())
		}
		return f, nil
	case int:
		return float64(x), nil
	case int64:
		return float64(x), nil
	}
	return 0, fmt.Errorf("config key %q: want a number, got %s", key, typeName(v))
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
