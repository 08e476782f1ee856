package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"gonum.org/v1/gonum/mat"

	"github.com/text2vec-am/text2vec-am/internal/atomicfile"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/corpus"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
)

// VecMapWord is a test word of the VecMap protocol and the number of
// occurrences it is downsampled to (2^bucket).
type VecMapWord struct {
	Word        string
	Occurrences int
}

// VecMapSelection configures the choice of test words.
type VecMapSelection struct {
	MinCount  int64 // at least this many occurrences in the full corpus (paper: 1000)
	MaxCount  int64 // at most this many (0: no limit); see docs/evaluation.md for why we cap
	Buckets   int   // 8: 1, 2, 4 … 128 occurrences
	PerBucket int   // 125
	Seed      uint64
}

// DefaultVecMapSelection returns the paper's selection (1000 words with ≥ 1000
// occurrences in 8 buckets of 125) with an upper bound of 5000 occurrences:
// on a 13 M-token corpus the words above it are mostly function words that
// make up 40% of the text, and deleting their occurrences would wreck the
// downsampled corpus (in the paper's 1 B-token corpus 1000 such words are a
// negligible share).
func DefaultVecMapSelection() VecMapSelection {
	return VecMapSelection{MinCount: 1000, MaxCount: 5000, Buckets: 8, PerBucket: 125, Seed: 1}
}

// QualifiesForVecMap reports whether w may be a test word: only letters, at least two of them.
func QualifiesForVecMap(w string) bool {
	n := 0
	for _, r := range w {
		if !unicode.IsLetter(r) {
			return false
		}
		n++
	}
	return n >= 2
}

// SelectVecMapWords picks the test words from a corpus vocabulary (words and
// their counts). Words of preferred (word → occurrences bucket, e.g. the
// paper's lists) that qualify keep their bucket; the remaining places of every
// bucket are filled with random qualifying words. The result is sorted by
// bucket, then word.
func SelectVecMapWords(words []string, counts []int64, preferred map[string]int, cfg VecMapSelection) ([]VecMapWord, error) {
	if len(words) != len(counts) {
		return nil, fmt.Errorf("select vecmap words: %d words but %d counts", len(words), len(counts))
	}
	if cfg.Buckets <= 0 || cfg.Buckets > 30 || cfg.PerBucket <= 0 {
		return nil, fmt.Errorf("select vecmap words: %d buckets of %d words is not a valid setting", cfg.Buckets, cfg.PerBucket)
	}
	var pool []string
	for i, w := range words {
		if counts[i] >= cfg.MinCount && (cfg.MaxCount <= 0 || counts[i] <= cfg.MaxCount) && QualifiesForVecMap(w) {
			pool = append(pool, w)
		}
	}
	sort.Strings(pool)
	need := cfg.Buckets * cfg.PerBucket
	if len(pool) < need {
		return nil, fmt.Errorf("select vecmap words: only %d words have %d to %d occurrences and are alphabetic, need %d", len(pool), cfg.MinCount, cfg.MaxCount, need)
	}
	taken := map[string]bool{}
	byBucket := make([][]string, cfg.Buckets)
	bucketOf := map[int]int{}
	for b := 0; b < cfg.Buckets; b++ {
		bucketOf[1<<b] = b
	}
	for _, w := range pool {
		occ, ok := preferred[w]
		b, valid := bucketOf[occ]
		if ok && valid && len(byBucket[b]) < cfg.PerBucket {
			byBucket[b] = append(byBucket[b], w)
			taken[w] = true
		}
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x7ec7))
	rest := make([]string, 0, len(pool))
	for _, w := range pool {
		if !taken[w] {
			rest = append(rest, w)
		}
	}
	rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	var out []VecMapWord
	for b := range byBucket {
		for len(byBucket[b]) < cfg.PerBucket {
			byBucket[b] = append(byBucket[b], rest[0])
			rest = rest[1:]
		}
		sort.Strings(byBucket[b])
		for _, w := range byBucket[b] {
			out = append(out, VecMapWord{Word: w, Occurrences: 1 << b})
		}
	}
	return out, nil
}

// LoadVecMapLists reads the paper's selected-words-N.txt files (one word per
// line; N, the number of occurrences, taken from the file name).
func LoadVecMapLists(paths []string) (map[string]int, error) {
	out := map[string]int{}
	for _, p := range paths {
		base := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
		i := strings.LastIndexByte(base, '-')
		n, err := strconv.Atoi(base[i+1:])
		if i < 0 || err != nil || n <= 0 {
			return nil, fmt.Errorf("word list %s: the name must end in -N.txt with N the number of occurrences", p)
		}
		words, err := dataset.LoadWordList(p, true)
		if err != nil {
			return nil, err
		}
		for _, w := range words {
			out[w] = n
		}
	}
	return out, nil
}

// WriteVecMapWords writes the selection as "word TAB occurrences" lines.
func WriteVecMapWords(path string, words []VecMapWord) error {
	var b strings.Builder
	for _, w := range words {
		fmt.Fprintf(&b, "%s\t%d\n", w.Word, w.Occurrences)
	}
	return atomicfile.WriteFile(path, []byte(b.String()), atomicfile.Readable)
}

// LoadVecMapWords reads a file written by WriteVecMapWords.
func LoadVecMapWords(path string) ([]VecMapWord, error) {
	var out []VecMapWord
	err := dataset.ForEachLine(path, func(n int, line string) error {
		if line == "" {
			return nil
		}
		f := strings.Split(line, "\t")
		if len(f) != 2 {
			return fmt.Errorf("%s:%d: want word TAB occurrences", path, n)
		}
		occ, err := strconv.Atoi(f[1])
		if err != nil || occ <= 0 {
			return fmt.Errorf("%s:%d: occurrences %q is not a positive integer", path, n, f[1])
		}
		out = append(out, VecMapWord{Word: f[0], Occurrences: occ})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load vecmap words: %w", err)
	}
	return out, nil
}

// Downsample chooses, for every test word, which of its occurrences in c to
// keep (exactly Occurrences of them, at random) and returns a mask over c.IDs
// that is true for the occurrences to delete.
func Downsample(c *corpus.Corpus, words []VecMapWord, seed uint64) ([]bool, error) {
	target := make(map[int32]int, len(words))
	index := make(map[string]int32, len(c.Words))
	for i, w := range c.Words {
		index[w] = int32(i)
	}
	for _, w := range words {
		id, ok := index[w.Word]
		if !ok {
			return nil, fmt.Errorf("downsample: test word %q is not in the corpus", w.Word)
		}
		if c.Counts[id] < int64(w.Occurrences) {
			return nil, fmt.Errorf("downsample: test word %q occurs %d times, fewer than %d", w.Word, c.Counts[id], w.Occurrences)
		}
		target[id] = w.Occurrences
	}
	positions := make(map[int32][]int, len(target))
	for pos, id := range c.IDs {
		if _, ok := target[id]; ok {
			positions[id] = append(positions[id], pos)
		}
	}
	del := make([]bool, len(c.IDs))
	rng := rand.New(rand.NewPCG(seed, 0xd0a5))
	ids := make([]int32, 0, len(target))
	for id := range target {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] }) // deterministic order
	for _, id := range ids {
		pos := positions[id]
		for _, p := range pos {
			del[p] = true
		}
		for _, k := range rng.Perm(len(pos))[:target[id]] {
			del[pos[k]] = false
		}
	}
	return del, nil
}

// WriteTokenized writes c one unit (sentence) per line, tokens separated by
// single spaces, leaving out the tokens marked in del (nil: none) and units
// left empty.
func WriteTokenized(path string, c *corpus.Corpus, del []bool) error {
	err := atomicfile.Write(path, atomicfile.Readable, func(w *bufio.Writer) error {
		for u := 1; u < len(c.Offsets); u++ {
			first := true
			for p := c.Offsets[u-1]; p < c.Offsets[u]; p++ {
				if del != nil && del[p] {
					continue
				}
				if !first {
					w.WriteByte(' ')
				}
				w.WriteString(c.Words[c.IDs[p]])
				first = false
			}
			if !first {
				w.WriteByte('\n')
			}
		}
		return nil // a write error sticks in w: Write's flush returns it
	})
	if err != nil {
		return fmt.Errorf("write corpus: %w", err)
	}
	return nil
}

// WordContexts holds the contexts of one word: token lists, the word itself
// included (consumers drop it).
type WordContexts struct {
	Word     string     `json:"word"`
	Contexts [][]string `json:"contexts"`
}

// CollectContexts returns, for every test word, the windows of at most window
// tokens left and right around each of its kept occurrences (the sentence
// after deletion), as the paper restricts contexts to 25 words each side.
func CollectContexts(c *corpus.Corpus, words []VecMapWord, del []bool, window int) []WordContexts {
	want := make(map[int32]int, len(words))
	out := make([]WordContexts, len(words))
	for i, w := range words {
		out[i].Word = w.Word
	}
	index := make(map[string]int, len(words))
	for i, w := range words {
		index[w.Word] = i
	}
	for i, w := range c.Words {
		if j, ok := index[w]; ok {
			want[int32(i)] = j
		}
	}
	var kept []int32
	for u := 1; u < len(c.Offsets); u++ {
		kept = kept[:0]
		for p := c.Offsets[u-1]; p < c.Offsets[u]; p++ {
			if del == nil || !del[p] {
				kept = append(kept, c.IDs[p])
			}
		}
		for k, id := range kept {
			j, ok := want[id]
			if !ok {
				continue
			}
			lo, hi := max(0, k-window), min(len(kept), k+window+1)
			ctx := make([]string, 0, hi-lo)
			for _, t := range kept[lo:hi] {
				ctx = append(ctx, c.Words[t])
			}
			out[j].Contexts = append(out[j].Contexts, ctx)
		}
	}
	return out
}

// WriteContexts writes contexts as JSON lines.
func WriteContexts(path string, cs []WordContexts) error {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for _, c := range cs {
		if err := enc.Encode(c); err != nil {
			return fmt.Errorf("write contexts: %w", err)
		}
	}
	return atomicfile.WriteFile(path, []byte(b.String()), atomicfile.Readable)
}

// LoadContexts reads a file written by WriteContexts.
func LoadContexts(path string) ([]WordContexts, error) {
	var out []WordContexts
	err := dataset.ForEachLine(path, func(n int, line string) error {
		if line == "" {
			return nil
		}
		var c WordContexts
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if c.Word == "" {
			return fmt.Errorf("%s:%d: no \"word\"", path, n)
		}
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load contexts: %w", err)
	}
	return out, nil
}

// VecMapSpace is one embedding space to compare with gold: vectors for the
// dictionary words (used to learn the mapping) and for the test words.
type VecMapSpace struct {
	Name string
	// Vector returns the space's vector of a word, nil if it has none.
	Vector Lookup
}

// VecMapMapping selects how VecMapScores brings a space and gold together.
type VecMapMapping int

const (
	// MappingSupervised is VecMap's recommended supervised recipe
	// (map_embeddings.py --supervised; Artetxe et al. 2018, AAAI, the paper
	// the AM paper cites for VecMap): whitening of both spaces, orthogonal
	// mapping, re-weighting of both by the square root of the singular
	// values, de-whitening of each side with its own whitening.
	MappingSupervised VecMapMapping = iota
	// MappingOrthogonal maps the space onto gold by orthogonal Procrustes only.
	MappingOrthogonal
)

// String returns the flag value of m.
func (m VecMapMapping) String() string {
	if m == MappingOrthogonal {
		return "orthogonal"
	}
	return "supervised"
}

// ParseVecMapMapping parses "supervised" or "orthogonal".
func ParseVecMapMapping(s string) (VecMapMapping, error) {
	switch s {
	case "supervised":
		return MappingSupervised, nil
	case "orthogonal":
		return MappingOrthogonal, nil
	}
	return 0, fmt.Errorf("unknown mapping %q (want supervised or orthogonal)", s)
}

// VecMapSupervised returns the d×d transforms tx, tz of VecMap's supervised
// mapping learned on the n×d dictionary matrices x and z (row-major, row i
// the same entry in both, already normalized): a source row r maps to r·tx,
// a gold row to r·tz, and the two are compared by cosine. With Wx, Wz the
// whitening matrices ((XᵀX)^−½, from the SVD of X), P·Σ·Qᵀ the SVD of
// (X·Wx)ᵀ(Z·Wz):
//
//	tx = Wx·P·Σ^½·(Pᵀ·Wx⁻¹·P),  tz = Wz·Q·Σ^½·(Qᵀ·Wz⁻¹·Q)
//
// as map_embeddings.py computes them step by step (whiten, orthogonal
// mapping, re-weight 0.5 on both sides, de-whiten source with source and
// target with target).
func VecMapSupervised(x, z []float64, n, d int) (tx, tz *mat.Dense, err error) {
	if n < d || d == 0 {
		return nil, nil, fmt.Errorf("%d dictionary pairs in dimension %d, need at least as many pairs as dimensions", n, d)
	}
	if len(x) != n*d || len(z) != n*d {
		return nil, nil, fmt.Errorf("matrices have %d and %d values, want %d×%d", len(x), len(z), n, d)
	}
	wx, wxInv, err := whitening(mat.NewDense(n, d, x), "source")
	if err != nil {
		return nil, nil, err
	}
	wz, wzInv, err := whitening(mat.NewDense(n, d, z), "gold")
	if err != nil {
		return nil, nil, err
	}
	var xw, zw, m mat.Dense
	xw.Mul(mat.NewDense(n, d, x), wx)
	zw.Mul(mat.NewDense(n, d, z), wz)
	m.Mul(xw.T(), &zw)
	var svd mat.SVD
	if !svd.Factorize(&m, mat.SVDFull) {
		return nil, nil, fmt.Errorf("SVD of the %d×%d cross-covariance did not converge", d, d)
	}
	var p, q mat.Dense
	svd.UTo(&p)
	svd.VTo(&q)
	sv := svd.Values(nil)
	for i := range sv {
		sv[i] = math.Sqrt(sv[i])
	}
	reweight := mat.NewDiagDense(d, sv)
	transform := func(w, wInv, r *mat.Dense) *mat.Dense {
		var a, back, t mat.Dense
		a.Mul(w, r)
		a.Mul(&a, reweight)
		back.Mul(r.T(), wInv)
		back.Mul(&back, r)
		t.Mul(&a, &back)
		return &t
	}
	return transform(wx, wxInv, &p), transform(wz, wzInv, &q), nil
}

// whitening returns (MᵀM)^−½ and its inverse (MᵀM)^½ from the thin SVD
// M = U·S·Vᵀ: V·S⁻¹·Vᵀ and V·S·Vᵀ.
func whitening(m *mat.Dense, side string) (w, wInv *mat.Dense, err error) {
	var svd mat.SVD
	if !svd.Factorize(m, mat.SVDThin) {
		return nil, nil, fmt.Errorf("SVD of the %s dictionary did not converge", side)
	}
	var v mat.Dense
	svd.VTo(&v)
	s := svd.Values(nil)
	_, d := m.Dims()
	inv := make([]float64, d)
	for i, x := range s {
		if !(x > 1e-12*s[0]) {
			return nil, nil, fmt.Errorf("the %s dictionary vectors span only %d of %d dimensions; cannot whiten", side, i, d)
		}
		inv[i] = 1 / x
	}
	w, wInv = mat.NewDense(d, d, nil), mat.NewDense(d, d, nil)
	var t mat.Dense
	t.Mul(&v, mat.NewDiagDense(d, inv))
	w.Mul(&t, v.T())
	t.Reset()
	t.Mul(&v, mat.NewDiagDense(d, s))
	wInv.Mul(&t, v.T())
	return w, wInv, nil
}

// VecMapScores maps space and gold into a common space with mapping, learned
// on the dictionary words that have a vector in both (after VecMap's unit,
// center, unit normalization of each space), and returns the cosine between
// the two mapped vectors of every test word (0 when the space has no vector
// for it). It also returns the number of dictionary pairs used.
func VecMapScores(gold, space Lookup, dim int, dict []string, test []VecMapWord, mapping VecMapMapping) ([]float64, int, error) {
	var xs, zs []float64
	n := 0
	for _, w := range dict {
		x, z := space(w), gold(w)
		if x == nil || z == nil {
			continue
		}
		if len(x) != dim || len(z) != dim {
			return nil, 0, fmt.Errorf("dictionary word %q has dimension %d (space) and %d (gold), want %d", w, len(x), len(z), dim)
		}
		xs = appendF64(xs, x)
		zs = appendF64(zs, z)
		n++
	}
	// The test words are normalized together with the dictionary, as VecMap
	// normalizes whole embedding matrices.
	tx := make([]float64, 0, len(test)*dim)
	tz := make([]float64, 0, len(test)*dim)
	has := make([]bool, len(test))
	for i, w := range test {
		x, z := space(w.Word), gold(w.Word)
		if z == nil {
			return nil, 0, fmt.Errorf("test word %q has no gold vector", w.Word)
		}
		if x == nil {
			x = make([]float32, dim)
		} else {
			has[i] = true
		}
		tx = appendF64(tx, x)
		tz = appendF64(tz, z)
	}
	allX := append(xs, tx...)
	allZ := append(zs, tz...)
	VecMapNormalize(allX, dim)
	VecMapNormalize(allZ, dim)
	mappedX, mappedZ := allX[n*dim:], allZ[n*dim:]
	switch mapping {
	case MappingOrthogonal:
		w, err := Procrustes(allX[:n*dim], allZ[:n*dim], n, dim)
		if err != nil {
			return nil, 0, fmt.Errorf("%s mapping: %w", mapping, err)
		}
		mappedX = ApplyMap(mappedX, dim, w)
	case MappingSupervised:
		tx, tz, err := VecMapSupervised(allX[:n*dim], allZ[:n*dim], n, dim)
		if err != nil {
			return nil, 0, fmt.Errorf("%s mapping: %w", mapping, err)
		}
		mappedX = ApplyMap(mappedX, dim, tx)
		mappedZ = ApplyMap(mappedZ, dim, tz)
	default:
		return nil, 0, fmt.Errorf("unknown mapping %d", int(mapping))
	}
	cos := make([]float64, len(test))
	for i := range test {
		if !has[i] {
			continue
		}
		cos[i] = model.Cosine(mappedX[i*dim:(i+1)*dim], mappedZ[i*dim:(i+1)*dim])
	}
	return cos, n, nil
}

func appendF64(dst []float64, x []float32) []float64 {
	for _, v := range x {
		dst = append(dst, float64(v))
	}
	return dst
}

// VecMapBuckets averages per-word scores by number of occurrences: it
// returns the sorted occurrence counts and, for each, the mean ×100.
func VecMapBuckets(test []VecMapWord, cos []float64) ([]int, []float64) {
	sum := map[int]float64{}
	cnt := map[int]int{}
	for i, w := range test {
		sum[w.Occurrences] += cos[i]
		cnt[w.Occurrences]++
	}
	occ := make([]int, 0, len(cnt))
	for o := range cnt {
		occ = append(occ, o)
	}
	sort.Ints(occ)
	mean := make([]float64, len(occ))
	for i, o := range occ {
		mean[i] = 100 * sum[o] / float64(cnt[o])
	}
	return occ, mean
}

// Wins counts, per number of occurrences, the test words where model a's
// cosine is higher than b's, and lower (ties count in neither).
func Wins(test []VecMapWord, a, b []float64) (better, worse map[int]int) {
	better, worse = map[int]int{}, map[int]int{}
	for i, w := range test {
		switch {
		case a[i] > b[i]:
			better[w.Occurrences]++
		case a[i] < b[i]:
			worse[w.Occurrences]++
		}
	}
	return better, worse
}
