package vectorizer

import "sync"

// docFreq counts, for every word, the passages (imported documents) that
// contain it, and the passages seen: the collection statistics of
// WeightSIFCollection. It lives as long as the vectorizer (it is not persisted).
type docFreq struct {
	mu   sync.RWMutex
	df   map[string]int64
	docs int64
}

// add counts one passage whose tokens are tokens; seen is scratch space.
func (d *docFreq) add(tokens []string, seen map[string]struct{}) {
	clear(seen)
	for _, t := range tokens {
		seen[t] = struct{}{}
	}
	d.mu.Lock()
	d.docs++
	for t := range seen {
		if n, ok := d.df[t]; ok {
			d.df[t] = n + 1
		} else {
			d.df[cloneString(t)] = 1 // do not pin the text
		}
	}
	d.mu.Unlock()
	clear(seen)
}

// get returns the number of passages containing word and the number of passages.
func (d *docFreq) get(word string) (df, docs int64) {
	d.mu.RLock()
	df, docs = d.df[word], d.docs
	d.mu.RUnlock()
	return df, docs
}

// collectionWeight is the collection factor b/(b + df(w)/N) of
// WeightSIFCollection: 1 for a word no passage holds (or before any passage).
func collectionWeight(df, docs int64, b float64) float32 {
	if df <= 0 || docs <= 0 {
		return 1
	}
	return float32(b / (b + float64(df)/float64(docs)))
}
