package eval

import (
	"sort"
	"strings"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
	"github.com/text2vec-am/text2vec-am/trainer/eval/stats"
)

// NonceToken replaces CHIMERAS' ___ before tokenizing: a single lowercase
// word that no vocabulary holds, so it is dropped from the contexts.
const NonceToken = "xxchimeranoncexx"

// TokenizeChimera returns the instance's sentences tokenized with tok, the
// nonce written as NonceToken.
func TokenizeChimera(tok model.Tokenizer, in dataset.ChimeraInstance) [][]string {
	out := make([][]string, len(in.Sentences))
	for i, s := range in.Sentences {
		out[i] = tok.AppendTokens(nil, strings.ReplaceAll(s, dataset.NonceMarker, " "+NonceToken+" "))
	}
	return out
}

// NonceFunc infers the nonce's vector from its tokenized sentences (the nonce
// written NonceToken). A nil result means no vector: every probe then scores
// cosine 0.
type NonceFunc func(sentences [][]string) []float32

// ChimerasResult is the score of one model on one CHIMERAS file.
type ChimerasResult struct {
	Instances int
	// Spearman is the mean over instances of Spearman(cos(nonce, probe), rating).
	Spearman float64
	// Undefined counts instances whose ρ is undefined (all cosines equal,
	// e.g. no nonce vector); they count as 0 in the mean.
	Undefined int
	// MissingProbes counts probes without a vector (scored as cosine 0).
	MissingProbes int
	// PerInstance holds each instance's ρ (NaN when undefined).
	PerInstance []float64
}

// Chimeras scores nonce vectors on CHIMERAS instances: for each instance the
// Spearman correlation of cos(nonce, probe) with the human ratings, probes
// without a vector scored as cosine 0, averaged over instances.
func Chimeras(tok model.Tokenizer, insts []dataset.ChimeraInstance, nonce NonceFunc, probes Lookup) ChimerasResult {
	res := ChimerasResult{Instances: len(insts)}
	rhos := make([]float64, len(insts))
	for i, in := range insts {
		v := nonce(TokenizeChimera(tok, in))
		cos := make([]float64, len(in.Probes))
		for j, p := range in.Probes {
			pv := probes(p)
			if pv == nil {
				res.MissingProbes++
				continue
			}
			if v != nil {
				cos[j] = model.Cosine(v, pv)
			}
		}
		rhos[i] = stats.Spearman(cos, in.Ratings)
	}
	res.Spearman, res.Undefined = stats.MeanNaNZero(rhos)
	res.PerInstance = rhos
	return res
}

// Additive returns the additive baseline: the mean of the base vectors of all
// context words (the nonce and unknown words left out, and the words in stop
// when it is not nil).
func Additive(e *model.Embeddings, stop map[string]bool) NonceFunc {
	return additive(e.Dim, func(w string) []float32 {
		id, ok := e.ID(w)
		if !ok {
			return nil
		}
		return e.Row(id)
	}, stop)
}

// additive returns the mean of the dim-dimensional vectors vec gives the
// context words (the nonce, the words without a vector and the words in
// stop left out); nil when no word has a vector.
func additive(dim int, vec Lookup, stop map[string]bool) NonceFunc {
	return func(sentences [][]string) []float32 {
		sum := make([]float32, dim)
		n := 0
		for _, s := range sentences {
			for _, w := range s {
				if w == NonceToken || stop[w] {
					continue
				}
				v := vec(w)
				if v == nil {
					continue
				}
				for k, x := range v {
					sum[k] += x
				}
				n++
			}
		}
		if n == 0 {
			return nil
		}
		for k := range sum {
			sum[k] /= float32(n)
		}
		return sum
	}
}

// MostFrequent returns the n most frequent words of e by its counts (ties by
// vocabulary order); without counts, the first n words of the vocabulary
// (word2vec files are sorted by frequency).
func MostFrequent(e *model.Embeddings, n int) map[string]bool {
	ids := make([]int, e.Len())
	for i := range ids {
		ids[i] = i
	}
	if e.Counts != nil {
		sort.SliceStable(ids, func(a, b int) bool { return e.Counts[ids[a]] > e.Counts[ids[b]] })
	}
	out := make(map[string]bool, n)
	for _, id := range ids[:min(n, len(ids))] {
		out[e.Words[id]] = true
	}
	return out
}

// ModelNonce infers the nonce's vector with m from the sentences' words in
// m.Base (the nonce and unknown words dropped), in m's mode (ModeContext for
// AM-ctx, ModeFCMContext for FCM-ctx). Sentences without a known word are left
// out; with none left there is no vector. Not safe for concurrent use.
func ModelNonce(m *model.Model) NonceFunc {
	ws := m.NewWorkspace()
	return func(sentences [][]string) []float32 {
		contexts := make([][]int32, 0, len(sentences))
		for _, s := range sentences {
			if ids := m.ContextIDs(nil, s, NonceToken); len(ids) > 0 {
				contexts = append(contexts, ids)
			}
		}
		if len(contexts) == 0 {
			return nil
		}
		dst := make([]float32, m.Dim)
		m.Infer(ws, NonceToken, contexts, dst)
		return dst
	}
}
