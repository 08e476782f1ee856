package vectorizer

// memoryWords returns what vectorizing texts under opts reads from the
// memory: the distinct words of all texts (their passage counts) and, among
// them, the words whose vector AM infers (their remembered contexts), each
// in order of first occurrence.
func (v *Vectorizer) memoryWords(texts []string, opts Options) (words, am []string) {
	w := v.pool.Get().(*work)
	defer v.pool.Put(w)
	seen := make(map[string]bool)
	for _, text := range texts {
		v.prepare(w, text, &opts)
		for i, t := range w.tokens {
			if seen[t] {
				continue
			}
			seen[t] = true
			words = append(words, t)
			if w.info[i].kind == kindAM {
				am = append(am, t)
			}
		}
	}
	clear(w.tokens) // do not pin the texts
	clear(w.sentences)
	return words, am
}
