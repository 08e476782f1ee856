package vectorizer

import (
	"context"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
)

// Explanation says how a text was vectorized. It is bounded by the
// ExplainLimits it was made under: what does not fit is counted, not listed.
type Explanation struct {
	// Vector is the text's vector (what Vectorize returns for a query).
	Vector []float32 `json:"vector"`
	// Words lists the distinct words of the text in order of first occurrence,
	// at most ExplainLimits.MaxWords of them and as many as the byte budget allows.
	Words []WordExplanation `json:"words"`
	// WordsOmitted counts the distinct words not listed.
	WordsOmitted int `json:"words_omitted,omitempty"`
	// ContextsOmitted counts the contexts AM used that are not listed.
	ContextsOmitted int `json:"contexts_omitted,omitempty"`
	// Truncated is set when anything was omitted or a context text was cut.
	Truncated bool `json:"truncated,omitempty"`

	lim   ExplainLimits
	used  int     // estimated JSON bytes of Words so far
	total float32 // the total weight of all words, listed or not
}

// ExplainLimits bound an Explanation: its size never depends on more than
// these, whatever the text (a text of 4,000 unseen words repeating a long
// sentence would otherwise repeat that sentence 4,000 times).
type ExplainLimits struct {
	// MaxWords bounds the distinct words listed (default 1,000).
	MaxWords int
	// MaxContexts bounds the contexts listed per AM word (default 16).
	MaxContexts int
	// MaxContextBytes cuts each listed context to this many bytes around the word (default 320).
	MaxContextBytes int
	// MaxBytes is the budget of the listed words and contexts, JSON-encoded (default 1 MiB).
	MaxBytes int
}

// DefaultExplainLimits returns 1,000 words, 16 contexts per word of at most
// 320 bytes each, and a 1 MiB budget.
func DefaultExplainLimits() ExplainLimits {
	return ExplainLimits{MaxWords: 1000, MaxContexts: 16, MaxContextBytes: 320, MaxBytes: 1 << 20}
}

// withDefaults replaces every limit below 1 by its default.
func (l ExplainLimits) withDefaults() ExplainLimits {
	d := DefaultExplainLimits()
	if l.MaxWords < 1 {
		l.MaxWords = d.MaxWords
	}
	if l.MaxContexts < 1 {
		l.MaxContexts = d.MaxContexts
	}
	if l.MaxContextBytes < 16 {
		l.MaxContextBytes = d.MaxContextBytes
	}
	if l.MaxBytes < 1 {
		l.MaxBytes = d.MaxBytes
	}
	return l
}

// WordExplanation says how one distinct word of a text was handled.
type WordExplanation struct {
	// Word is the token.
	Word string `json:"word"`
	// Source is where its vector came from (SourceDropped: it yielded none).
	Source Source `json:"source"`
	// Count is its base count (0: unseen).
	Count int64 `json:"count"`
	// Occurrences counts the word in the text.
	Occurrences int `json:"occurrences"`
	// Weight is the word's share of the total weight (all occurrences; 0 if dropped).
	Weight float32 `json:"weight"`
	// Alpha is AM's gate α between the context and the form embedding (AM only).
	Alpha float32 `json:"alpha,omitempty"`
	// FormOnly: AM had no usable context and returned the form embedding.
	FormOnly bool `json:"form_only,omitempty"`
	// FormShare is the share of the word's AM vector that comes from its
	// spelling: 1 − α, or 1 when AM used the form only. It is present only
	// for words AM was run on (omitted for base and amskip words).
	FormShare *float32 `json:"form_share,omitempty"`
	// ContextShare is the share that comes from the contexts: α, or 0 when
	// AM used the form only; FormShare + ContextShare = 1. Present exactly
	// when FormShare is.
	ContextShare *float32 `json:"context_share,omitempty"`
	// FormCoverage is the share of the word's character n-grams that the
	// model's n-gram table holds: how much of its spelling the form can draw
	// on (a made-up code or codename has little, and only its contexts can
	// tell what it means). Present exactly when FormShare is.
	FormCoverage *float32 `json:"form_coverage,omitempty"`
	// Contexts are the contexts AM attended to with their attention ρ (AM
	// only; at most ExplainLimits.MaxContexts, each cut to MaxContextBytes).
	Contexts []ContextWeight `json:"contexts,omitempty"`
}

// ContextWeight is one context AM used for a word.
type ContextWeight struct {
	// Text is the context: a remembered one, or the window of ±model.ContextWindow
	// tokens around an occurrence in this text.
	Text string `json:"text"`
	// Rho is the attention weight ρ of the context.
	Rho float32 `json:"rho"`
	// Remembered is true for a context from the memory, false for one of this text.
	Remembered bool `json:"remembered"`
}

// Per-entry JSON overheads used by the byte budget (keys, numbers, punctuation).
const (
	wordOverhead    = 280
	contextOverhead = 64
)

// jsonLen bounds the JSON-encoded length of s: escaped bytes take up to 6.
func jsonLen(s string) int {
	n := 2
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20, c == '"', c == '\\', c == '<', c == '>', c == '&':
			n += 6
		default:
			n++
		}
	}
	return n
}

// word returns the explanation entry of token t, creating it on first
// occurrence; nil once the word or byte limit is reached (the word is counted).
func (ex *Explanation) word(w *work, t string, info tokInfo) *WordExplanation {
	if i, ok := w.explain[t]; ok {
		if i < 0 {
			return nil
		}
		ex.Words[i].Occurrences++
		return &ex.Words[i]
	}
	size := wordOverhead + jsonLen(t)
	if len(ex.Words) >= ex.lim.MaxWords || ex.used+size > ex.lim.MaxBytes {
		w.explain[t] = -1
		ex.WordsOmitted++
		ex.Truncated = true
		return nil
	}
	ex.used += size
	w.explain[t] = len(ex.Words)
	ex.Words = append(ex.Words, WordExplanation{Word: cloneString(t), Source: info.kind.source(), Count: info.count, Occurrences: 1})
	return &ex.Words[len(ex.Words)-1]
}

// addContext lists one context of we within the limits; it reports whether it did.
func (ex *Explanation) addContext(we *WordExplanation, cw ContextWeight) bool {
	if len(we.Contexts) >= ex.lim.MaxContexts {
		ex.ContextsOmitted++
		ex.Truncated = true
		return false
	}
	if len(cw.Text) > ex.lim.MaxContextBytes {
		cw.Text = memory.CutContext(cw.Text, we.Word, ex.lim.MaxContextBytes)
		ex.Truncated = true
	}
	size := contextOverhead + jsonLen(cw.Text)
	if ex.used+size > ex.lim.MaxBytes {
		ex.ContextsOmitted++
		ex.Truncated = true
		return false
	}
	ex.used += size
	cw.Text = cloneString(cw.Text) // do not pin the request or the memory
	we.Contexts = append(we.Contexts, cw)
	return true
}

// Explain vectorizes text as a query (it never writes the memory) and says how
// every word was handled: its source, weight and, for AM words, the gate α and
// the attention ρ over every context (the paper's Table 5). AM vectors are
// computed afresh, not taken from the cache. The explanation is bounded by
// DefaultExplainLimits.
func (v *Vectorizer) Explain(text string, opts Options) (*Explanation, error) {
	return v.ExplainContext(context.Background(), text, opts, DefaultExplainLimits())
}

// ExplainContext is Explain under the given limits (a limit < 1 takes its
// default); it stops, returning ctx.Err(), once ctx is done.
func (v *Vectorizer) ExplainContext(ctx context.Context, text string, opts Options, lim ExplainLimits) (*Explanation, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	w := v.pool.Get().(*work)
	defer v.pool.Put(w)
	if w.explain == nil {
		w.explain = make(map[string]int)
	}
	clear(w.explain)
	v.prepare(w, text, &opts)
	if err := checkAMWords(w, &opts); err != nil {
		return nil, err
	}
	opts.memoryOnly = opts.QueryMemoryOnly
	ex := &Explanation{lim: lim.withDefaults()}
	err := v.combine(ctx, w, &opts, ex)
	clear(w.explain)
	if err != nil {
		return nil, err
	}
	for i := range ex.Words {
		ex.Words[i].Weight /= ex.total
	}
	ex.Vector = append([]float32(nil), w.acc...)
	return ex, nil
}
