package eval

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/model"
)

// RarePair is a word pair whose second word (Rare) has contexts.
type RarePair struct {
	Common, Rare string
	Score        float64
}

// LoadRareContexts reads the contexts of word from dir/<word>.txt (one
// sentence per line, tokenized with tok, empty lines skipped). A missing
// file gives no contexts and no error.
func LoadRareContexts(dir, word string, tok model.Tokenizer) ([][]string, error) {
	path := filepath.Join(dir, word+".txt")
	var out [][]string
	err := forEachLine(path, func(_ int, line string) error {
		if toks := tok.AppendTokens(nil, FixUTF8(line)); len(toks) > 0 {
			out = append(out, toks)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("contexts of %q: %w", word, err)
	}
	return out, nil
}

// RarePairsSetup matches word pairs with a context directory: the rare word
// of a pair is the one with a context file (the second word when both have
// one). Pairs where neither word has contexts are returned as skipped.
func RarePairsSetup(pairs []WordPair, dir string, tok model.Tokenizer) ([]RarePair, map[string][][]string, int, error) {
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
	var out []RarePair
	skipped := 0
	for _, p := range pairs {
		cb, err := load(p.B)
		if err != nil {
			return nil, nil, 0, err
		}
		if len(cb) > 0 {
			out = append(out, RarePair{Common: p.A, Rare: p.B, Score: p.Score})
			continue
		}
		ca, err := load(p.A)
		if err != nil {
			return nil, nil, 0, err
		}
		if len(ca) > 0 {
			out = append(out, RarePair{Common: p.B, Rare: p.A, Score: p.Score})
			continue
		}
		skipped++
	}
	for w, c := range contexts {
		if len(c) == 0 {
			delete(contexts, w)
		}
	}
	return out, contexts, skipped, nil
}

// SampleK returns, for every word, k of its contexts drawn at random without
// replacement (all of them when it has fewer), with a generator seeded per trial.
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
// scores; a pair whose common word has no vector is skipped, a rare word
// without a vector scores cosine 0. It returns ρ and the pairs used.
func RarePairsScore(pairs []RarePair, common Lookup, rare map[string][]float32) (float64, int) {
	var cos, gold []float64
	for _, p := range pairs {
		c := common(p.Common)
		if c == nil {
			continue
		}
		x := 0.0
		if r := rare[p.Rare]; r != nil {
			x = Cosine(c, r)
		}
		cos = append(cos, x)
		gold = append(gold, p.Score)
	}
	return Spearman(cos, gold), len(cos)
}

func runRarePairs(ctx context.Context, env cli.Env) error {
	fset := cli.NewFlagSet("eval rare-pairs", env)
	var base baseFlags
	base.register(fset)
	am := fset.String("am", "", "AM weights `FILE` or bundle: the AM row")
	fcm := fset.String("fcm", "", "FCM weights `FILE` or bundle: the FCM row")
	maxK := fset.Int("max-k", 128, "largest number of contexts (k = 1, 2, 4 … max-k)")
	trials := fset.Int("trials", 1, "random context samples per k (ρ is averaged)")
	seed := fset.Uint64("seed", 1, "random seed of the context samples")
	plotPath := fset.String("plot", "", "write a PNG plot of ρ by k to `FILE`")
	fset.Usage = func() {
		fmt.Fprintln(fset.Output(), "Usage: text2vec-am eval rare-pairs --embeddings FILE [--am FILE] [--fcm FILE] PAIRS CONTEXT_DIR\n\n"+
			"The CRW protocol: PAIRS holds \"word1 word2 score\" lines; the rare word of a pair is the one\n"+
			"with CONTEXT_DIR/<word>.txt (one sentence per line). For k = 1, 2, 4 … contexts the rare\n"+
			"word's vector is inferred from k random contexts; ρ = Spearman(cos(common, rare), score).")
		fset.PrintDefaults()
	}
	if err := cli.ParseFlags(fset, env.Args); err != nil {
		return err
	}
	if err := checkPlotFlag(*plotPath); err != nil {
		return err
	}
	if fset.NArg() != 2 {
		return cli.UsageError("want PAIRS and CONTEXT_DIR, got %d arguments", fset.NArg())
	}
	if *maxK < 1 || *trials < 1 {
		return cli.UsageError("--max-k and --trials must be ≥ 1")
	}
	if st, err := os.Stat(fset.Arg(1)); err != nil || !st.IsDir() {
		return fmt.Errorf("rare-pairs: context directory %s: not a directory (%v)", fset.Arg(1), err)
	}
	pairs, err := LoadWordPairs(fset.Arg(0))
	if err != nil {
		return err
	}
	e, err := base.load()
	if err != nil {
		return err
	}
	tok := model.DefaultTokenizer()
	rp, contexts, skipped, err := RarePairsSetup(pairs, fset.Arg(1), tok)
	if err != nil {
		return err
	}
	if len(rp) == 0 {
		return fmt.Errorf("rare-pairs: no pair has a word with contexts in %s", fset.Arg(1))
	}
	slog.Info("rare pairs", "pairs", len(pairs), "with_contexts", len(rp), "skipped_without_contexts", skipped, "rare_words", len(contexts))
	rareWords := make([]string, 0, len(contexts))
	for w := range contexts {
		rareWords = append(rareWords, w)
	}
	sort.Strings(rareWords)

	var ks []int
	for k := 1; k <= *maxK; k *= 2 {
		ks = append(ks, k)
	}
	type row struct {
		name  string
		infer func(ctx map[string][][]string) map[string][]float32
	}
	additive := Additive(e, nil)
	rows := []row{{"additive", func(c map[string][][]string) map[string][]float32 {
		out := make(map[string][]float32, len(rareWords))
		for _, w := range rareWords {
			sents := make([][]string, len(c[w]))
			for i, s := range c[w] {
				sents[i] = dropWord(s, w)
			}
			out[w] = additive(sents)
		}
		return out
	}}}
	for _, r := range []struct{ name, path string }{{"FCM", *fcm}, {"AM", *am}} {
		if r.path == "" {
			continue
		}
		m, err := loadModel(r.path, e, false)
		if err != nil {
			return err
		}
		rows = append(rows, row{r.name + " (" + m.Mode.String() + ")", func(c map[string][][]string) map[string][]float32 {
			vecs := InferWords(m, rareWords, c)
			out := make(map[string][]float32, len(rareWords))
			for i, w := range rareWords {
				out[w] = vecs[i]
			}
			return out
		}})
	}
	baseVecs := make(map[string][]float32, len(rareWords))
	for _, w := range rareWords {
		baseVecs[w] = EmbeddingLookup(e)(w)
	}
	baseRho, used := RarePairsScore(rp, EmbeddingLookup(e), baseVecs)

	tab := Table{Header: []string{"model"}}
	for _, k := range ks {
		tab.Header = append(tab.Header, fmt.Sprintf("k=%d", k))
	}
	p := LinePlot{Title: "Rare-word pairs", XLabel: "contexts k", YLabel: "Spearman ρ", LogX: true}
	for _, k := range ks {
		p.X = append(p.X, float64(k))
	}
	for _, r := range rows {
		cells := []string{r.name}
		var ys []float64
		for _, k := range ks {
			if err := ctx.Err(); err != nil {
				return err
			}
			var sum float64
			for trial := 0; trial < *trials; trial++ {
				rng := rand.New(rand.NewPCG(*seed, uint64(k)<<16|uint64(trial)))
				rho, _ := RarePairsScore(rp, EmbeddingLookup(e), r.infer(SampleK(contexts, rareWords, k, rng)))
				sum += rho
			}
			ys = append(ys, sum/float64(*trials))
			cells = append(cells, fmtNum(sum/float64(*trials), 3))
		}
		tab.AddRow(cells...)
		p.Series = append(p.Series, Series{Name: r.name, Y: ys})
	}
	cells := []string{"base embeddings (no contexts)"}
	for range ks {
		cells = append(cells, fmtNum(baseRho, 3))
	}
	tab.AddRow(cells...)
	if err := tab.WriteMarkdown(env.Stdout); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "\n%d of %d pairs scored (common word with a vector, rare word with contexts).\n", used, len(pairs))
	if *plotPath != "" {
		return p.WritePNG(*plotPath)
	}
	return nil
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
