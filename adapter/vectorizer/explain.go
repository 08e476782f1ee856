package vectorizer

// Explanation says how a text was vectorized.
type Explanation struct {
	// Vector is the text's vector (what Vectorize returns for a query).
	Vector []float32 `json:"vector"`
	// Words lists every distinct word of the text in order of first occurrence.
	Words []WordExplanation `json:"words"`
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
	// Contexts are the contexts AM attended to with their attention ρ (AM only).
	Contexts []ContextWeight `json:"contexts,omitempty"`
}

// ContextWeight is one context AM used for a word.
type ContextWeight struct {
	// Text is the context sentence.
	Text string `json:"text"`
	// Rho is the attention weight ρ of the context.
	Rho float32 `json:"rho"`
	// Remembered is true for a context from the memory, false for a sentence of this text.
	Remembered bool `json:"remembered"`
}

// word returns the explanation entry of token t, creating it on first occurrence.
func (ex *Explanation) word(w *work, t string, info tokInfo) *WordExplanation {
	if i, ok := w.explain[t]; ok {
		ex.Words[i].Occurrences++
		return &ex.Words[i]
	}
	w.explain[t] = len(ex.Words)
	ex.Words = append(ex.Words, WordExplanation{Word: cloneString(t), Source: info.src, Count: info.count, Occurrences: 1})
	return &ex.Words[len(ex.Words)-1]
}

// Explain vectorizes text as a query (it never writes the memory) and says how
// every word was handled: its source, weight and, for AM words, the gate α and
// the attention ρ over every context (the paper's Table 5). AM vectors are
// computed afresh, not taken from the cache.
func (v *Vectorizer) Explain(text string, opts Options) (*Explanation, error) {
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
	ex := &Explanation{}
	err := v.combine(w, &opts, ex)
	clear(w.explain)
	if err != nil {
		return nil, err
	}
	total := float32(0)
	for _, we := range ex.Words {
		total += we.Weight
	}
	for i := range ex.Words {
		ex.Words[i].Weight /= total
	}
	ex.Vector = append([]float32(nil), w.acc...)
	return ex, nil
}
