package eval

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/text2vec-am/text2vec-am/internal/outpath"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
	"github.com/text2vec-am/text2vec-am/trainer/eval/stats"
)

// RarePair is a word pair whose second word (Rare) is the one inferred from
// contexts.
type RarePair struct {
	Common, Rare string
	Score        float64
}

// contextFile returns dir/<word>.txt, the contexts file of word in the
// layout eval rare-dev writes and eval rare-pairs reads. ok is false when
// word cannot name a file of dir (contextNameProblem says why).
func contextFile(dir, word string) (path string, ok bool) {
	if contextNameProblem(word) != "" {
		return "", false
	}
	return filepath.Join(dir, word+".txt"), true
}

// contextNameProblem returns why word cannot name a contexts file, or "" when
// it can. The rule: not empty, not "." or "..", and no path separator (/ or
// \) or NUL byte, so that "../corpus" never reaches a file outside the
// directory. \ is a legal file-name byte on Linux but a separator on
// Windows; it is refused on every system so that a data set reads alike
// everywhere (eval rare-dev skips such a word, eval rare-pairs gives it no
// contexts).
func contextNameProblem(word string) string {
	switch {
	case word == "":
		return "empty"
	case word == "." || word == "..":
		return "names a directory"
	case strings.ContainsAny(word, `/\`):
		return `holds a path separator (/ or \)`
	case strings.ContainsRune(word, 0):
		return "holds a NUL byte"
	case !filepath.IsLocal(word + ".txt"):
		return "not a local file name"
	case len(word)+len(".txt") > maxFileName:
		return fmt.Sprintf("%d bytes: too long for a file name", len(word))
	}
	return ""
}

// maxFileName is the longest file name (in bytes) contextNameProblem
// accepts, the limit of the usual file systems (ext4, XFS, APFS, NTFS's in
// UTF-16 units is no tighter for most words).
const maxFileName = 255

// clipWord returns word, or its first 64 bytes and how long it is when it
// is longer, for messages (a PAIRS line can hold a word of megabytes).
func clipWord(word string) string {
	if len(word) <= 64 {
		return word
	}
	return fmt.Sprintf("%s… (%d bytes)", strings.ToValidUTF8(word[:64], ""), len(word))
}

// openContextFile opens the contexts file name of dir if it is a regular
// file of dir, and refuses a directory, a FIFO or a device (reading one can
// block for ever) and a symbolic link whose target lies outside dir (the
// file would be read from elsewhere). The file is opened first, without
// blocking (model.OpenRegular), and the open file is checked, so a FIFO put
// in its place after a check cannot hang the read. A link whose target lies
// inside dir is a file of dir however it is spelt (relative, absolute,
// through ".."), and dir may itself be reached through links. A missing
// file (a dangling link too) is an error wrapping fs.ErrNotExist.
func openContextFile(dir, name string) (*os.File, error) {
	path := filepath.Join(dir, name)
	f, info, err := model.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	if err := checkInContextDir(path, dir, info); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// errContextFileSwapped reports a context file replaced while it was opened.
var errContextFileSwapped = errors.New("replaced by another file while it was opened")

// checkInContextDir fails when path, opened as the file of info, is not a
// file of dir: its target (symbolic links followed) lies outside dir, or is
// not the file opened (path was replaced in between: errContextFileSwapped).
func checkInContextDir(path, dir string, info os.FileInfo) error {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	if !outpath.Within(target, dir) {
		return fmt.Errorf("%s leads to %s, outside the context directory (a context file must be a file of it)", path, target)
	}
	if now, err := os.Stat(target); err != nil || !os.SameFile(now, info) {
		return fmt.Errorf("%s: %w", path, errContextFileSwapped)
	}
	return nil
}

// LoadRareContexts reads the contexts of word from dir/<word>.txt (one
// sentence per line, tokenized with tok) with every occurrence of word
// removed, as the rare-word protocol requires; lines left empty are skipped.
// A missing file gives no contexts and no error, and so does a word that
// cannot name a file of dir (contextFile: a path separator, "." or "..",
// empty, too long), which is logged: no file outside dir is ever read. A
// context file that is not a regular file of dir (a symbolic link leading
// out of it, a FIFO: openContextFile) is an error.
func LoadRareContexts(dir, word string, tok model.Tokenizer) ([][]string, error) {
	out, err := LoadRareSentences(dir, word, tok)
	for i, s := range out {
		out[i] = dropWord(s, word)
	}
	return out, err
}

// LoadRareSentences is LoadRareContexts with word left in its sentences:
// the i-th sentence is the i-th context of LoadRareContexts with word
// where it occurs (the skipgram inference needs where).
func LoadRareSentences(dir, word string, tok model.Tokenizer) ([][]string, error) {
	path, ok := contextFile(dir, word)
	if !ok {
		slog.Warn("rare pairs: a word that cannot name a file of the context directory has no contexts", "word", clipWord(word), "why", contextNameProblem(word), "dir", dir)
		return nil, nil
	}
	f, err := openContextFile(dir, filepath.Base(path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("contexts of %q: %w", word, err)
	}
	defer f.Close()
	var out [][]string
	err = dataset.ForEachLineOf(f, path, func(_ int, line string) error {
		toks := tok.AppendTokens(nil, dataset.FixUTF8(line))
		if slices.ContainsFunc(toks, func(t string) bool { return t != word }) {
			out = append(out, toks)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("contexts of %q: %w", word, err)
	}
	return out, nil
}

// RarePairsSetup matches word pairs with a context directory. Every pair is
// kept: the rare word of a pair is the one with a context file (the second
// word when both or neither have one). It returns the pairs, the contexts of
// the rare words that have any (the word removed) and how many pairs have a
// rare word without contexts (those are scored from the form alone, or 0).
func RarePairsSetup(pairs []dataset.WordPair, dir string, tok model.Tokenizer) ([]RarePair, map[string][][]string, int, error) {
	contexts := map[string][][]string{}
	load := func(w string) ([][]string, error) {
		if c, ok := contexts[w]; ok {
			return c, nil
		}
		c, err := LoadRareContexts(dir, w, tok)
		if err != nil {
			return nil, err
		}
		contexts[w] = c
		return c, nil
	}
	out := make([]RarePair, 0, len(pairs))
	without := 0
	for _, p := range pairs {
		cb, err := load(p.B)
		if err != nil {
			return nil, nil, 0, err
		}
		ca := [][]string(nil)
		if len(cb) == 0 {
			if ca, err = load(p.A); err != nil {
				return nil, nil, 0, err
			}
		}
		switch {
		case len(cb) > 0:
			out = append(out, RarePair{Common: p.A, Rare: p.B, Score: p.Score})
		case len(ca) > 0:
			out = append(out, RarePair{Common: p.B, Rare: p.A, Score: p.Score})
		default:
			out = append(out, RarePair{Common: p.A, Rare: p.B, Score: p.Score})
			without++
		}
	}
	for w, c := range contexts {
		if len(c) == 0 {
			delete(contexts, w)
		}
	}
	return out, contexts, without, nil
}

// SampleK returns, for every word, k of its contexts drawn at random without
// replacement (all of them when it has fewer).
func SampleK(contexts map[string][][]string, words []string, k int, rng *rand.Rand) map[string][][]string {
	out := make(map[string][][]string, len(words))
	for _, w := range words {
		c := contexts[w]
		if len(c) <= k {
			out[w] = c
			continue
		}
		perm := rng.Perm(len(c))[:k]
		s := make([][]string, k)
		for i, j := range perm {
			s[i] = c[j]
		}
		out[w] = s
	}
	return out
}

// RarePairsScore is Spearman's ρ between cos(common, rare) and the gold
// scores over every pair: a pair where either word has no vector (common
// returns nil, or rare has no entry) or the zero vector (what a model
// without a form infers for a word without contexts) scores cosine 0 and is
// counted in missing.
func RarePairsScore(pairs []RarePair, common Lookup, rare map[string][]float32) (rho float64, missing int) {
	cos := make([]float64, len(pairs))
	gold := make([]float64, len(pairs))
	for i, p := range pairs {
		gold[i] = p.Score
		c, r := common(p.Common), rare[p.Rare]
		if norm32(c) == 0 || norm32(r) == 0 {
			missing++
			continue
		}
		cos[i] = model.Cosine(c, r)
	}
	return stats.Spearman(cos, gold), missing
}

// MixUnit returns ½·a/|a| + ½·b/|b|, the equal mix of two vectors of
// different scales (a form vector and an additive one); with one of them nil
// or zero it returns the other (nil when both are).
func MixUnit(a, b []float32) []float32 {
	na, nb := norm32(a), norm32(b)
	switch {
	case na == 0 && nb == 0:
		return nil
	case na == 0:
		return b
	case nb == 0:
		return a
	}
	out := make([]float32, len(a))
	for k := range out {
		out[k] = float32(0.5*float64(a[k])/na + 0.5*float64(b[k])/nb)
	}
	return out
}

// MeanVector returns the unweighted mean of e's vectors: the direction all of
// them share, which centring removes (Mu & Viswanath 2018).
func MeanVector(e *model.Embeddings) []float32 {
	sum := make([]float64, e.Dim)
	for i := 0; i < e.Len(); i++ {
		for k, x := range e.Row(int32(i)) {
			sum[k] += float64(x)
		}
	}
	mu := make([]float32, e.Dim)
	if e.Len() == 0 {
		return mu
	}
	for k, s := range sum {
		mu[k] = float32(s / float64(e.Len()))
	}
	return mu
}

// BlendCentred returns am/|am| + k/(k+c)·a/|a| with a = add − mu (centred
// first, then scaled to unit length): the AM vector of a word with the mean of
// the words of its k contexts, centred, added at a weight that grows with k
// (½ at k = c). am (when not nil), add and mu have one length and c ≥ 0, or
// it panics. With add nil, k ≤ 0 or a zero a (|a| at most 1e-6 of |add| or
// |mu|: rounding when the contexts' mean is the mean of all) it returns am;
// with am nil or zero, a alone.
func BlendCentred(am, add, mu []float32, k int, c float64) []float32 {
	if add == nil || k <= 0 {
		return am
	}
	if len(mu) != len(add) || (am != nil && len(am) != len(add)) || !(c >= 0) {
		panic(fmt.Sprintf("eval.BlendCentred: lengths %d (am), %d (add), %d (mu) and c = %v: want equal lengths and c ≥ 0", len(am), len(add), len(mu), c))
	}
	a := make([]float32, len(add))
	for i := range a {
		a[i] = add[i] - mu[i]
	}
	na, nm := norm32(a), norm32(am)
	switch {
	case na <= 1e-6*max(norm32(add), norm32(mu)):
		return am
	case nm == 0:
		return a
	}
	w := float64(k) / (float64(k) + c)
	out := make([]float32, len(a))
	for i := range out {
		out[i] = float32(float64(am[i])/nm + w*float64(a[i])/na)
	}
	return out
}

func norm32(x []float32) float64 {
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s)
}

// dropWord returns s without the tokens equal to w.
func dropWord(s []string, w string) []string {
	out := make([]string, 0, len(s))
	for _, t := range s {
		if t != w {
			out = append(out, t)
		}
	}
	return out
}
