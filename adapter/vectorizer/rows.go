package vectorizer

import "github.com/text2vec-am/text2vec-am/model"

// rowMeta is what the hot path needs of one base row, kept together so that
// classifying, counting and weighting a token reads one cache line: 32 bytes
// a row (rows are allocated on a page boundary, so none straddles a line).
type rowMeta struct {
	count int64   // corpus count (0 without counts)
	sifW  float32 // SIF weight at the default SIFA (1 without counts)
	zero  bool    // the row is all zero: the word yields nothing
	// df is the row's document frequency when the vectorizer counts passages
	// in RAM (ramDocFreq, under its lock; unused with a DocFreqStore). The
	// other fields never change after New, so reading them needs no lock.
	df docCell
}

// newRowMeta computes the rowMeta of every row of base; v.hasCounts and
// v.total must be set.
func (v *Vectorizer) newRowMeta(base *model.Embeddings) []rowMeta {
	rows := make([]rowMeta, base.Len())
	for i := range rows {
		r := &rows[i]
		r.count = base.Count(int32(i))
		r.sifW = v.sifWeight(r.count, v.opts.SIFA)
		r.zero = isZero(base.Row(int32(i)))
	}
	return rows
}
