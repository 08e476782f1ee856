package eval

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/internal/atomicfile"
	"github.com/text2vec-am/text2vec-am/internal/outpath"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/corpus"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
)

// RareDevOptions select the pairs and contexts of a rare-word development set.
type RareDevOptions struct {
	MinSentences int   // the rare word needs this many distinct contexts
	MaxCount     int64 // and at most this many corpus occurrences
	MinCommon    int64 // the other word needs this many occurrences
	MaxContexts  int   // contexts kept per rare word (reservoir-sampled)
	Window       int   // words kept each side of the occurrence, within its sentence
	Seed         uint64
}

// RareDevSet is a rare-word development set: pairs (common word, rare word,
// score) and the contexts of every rare word (the rare word included, as a
// corpus gives it).
type RareDevSet struct {
	Pairs    []RarePair
	Contexts map[string][][]string
	Counts   map[string]int64
}

// BuildRareDev selects the pairs of a word-similarity set whose first word
// (the rare word of the Stanford Rare Words set) occurs at most MaxCount
// times in the corpus and has at least MinSentences distinct contexts, and
// whose second word occurs at least MinCommon times. Contexts are windows of
// the rare word's sentences (lines split at . ! ?), sampled uniformly over
// its occurrences.
func BuildRareDev(ctx context.Context, corpus []string, pairs []dataset.WordPair, o RareDevOptions) (*RareDevSet, error) {
	tok := model.DefaultTokenizer()
	targets := map[string]bool{}
	for _, p := range pairs {
		if w := strings.ToLower(p.A); isOneToken(tok, w) {
			targets[w] = true
		}
	}
	cc, err := SampleContexts(ctx, corpus, targets, o.MaxContexts, o.Window, true, o.Seed)
	if err != nil {
		return nil, err
	}
	set := &RareDevSet{Contexts: map[string][][]string{}, Counts: cc.Counts}
	for w := range targets {
		distinct := dedupContexts(cc.Contexts[w])
		if cc.Counts[w] <= o.MaxCount && len(distinct) >= o.MinSentences {
			set.Contexts[w] = distinct
		}
	}
	for _, p := range pairs {
		rare, common := strings.ToLower(p.A), strings.ToLower(p.B)
		if set.Contexts[rare] != nil && cc.Counts[common] >= o.MinCommon && isOneToken(tok, common) {
			set.Pairs = append(set.Pairs, RarePair{Common: common, Rare: rare, Score: p.Score})
		}
	}
	used := map[string]bool{}
	for _, p := range set.Pairs {
		used[p.Rare] = true
	}
	for w := range set.Contexts {
		if !used[w] {
			delete(set.Contexts, w)
		}
	}
	return set, nil
}

func isOneToken(tok model.Tokenizer, w string) bool {
	t := tok.AppendTokens(nil, w)
	return len(t) == 1 && t[0] == w
}

// dedupContexts drops repeated contexts, keeping the first of each.
func dedupContexts(cs [][]string) [][]string {
	seen := map[string]bool{}
	var out [][]string
	for _, c := range cs {
		k := strings.Join(c, " ")
		if !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

// Write writes dir/pairs.txt ("common rare score" lines, the format eval
// rare-pairs reads) and dir/contexts/<rare>.txt (one context per line). A
// rare word that cannot name a file of dir/contexts (contextNameProblem:
// empty, "." or "..", holding /, \ or NUL, or too long) is skipped, not written
// under another name: Write first drops it from s with its pairs, logs a
// warning naming it and why, and returns the words skipped (sorted), so
// that s describes what was written. A set left without pairs is an error,
// before anything is written. Each file is replaced whole (atomicfile), and
// pairs.txt, the file a set is read from, is removed first and written
// last: a run that stops midway leaves no pairs.txt, never one of an
// earlier run beside contexts of this one, nor a file cut short.
func (s *RareDevSet) Write(dir string) (skipped []string, err error) {
	cdir := filepath.Join(dir, "contexts")
	skipped = s.dropUnnamable()
	if len(s.Pairs) == 0 {
		return skipped, fmt.Errorf("no pair to write (%d rare words skipped: they cannot name a file of %s)", len(skipped), cdir)
	}
	if err := os.MkdirAll(cdir, 0o755); err != nil {
		return skipped, err
	}
	pairs := filepath.Join(dir, "pairs.txt")
	if err := os.Remove(pairs); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return skipped, err
	}
	for w, cs := range s.Contexts {
		path, _ := contextFile(cdir, w) // every word left can (dropUnnamable)
		if err := writeContexts(path, cs); err != nil {
			return skipped, err
		}
	}
	var b strings.Builder
	for _, p := range s.Pairs {
		fmt.Fprintf(&b, "%s\t%s\t%g\n", p.Common, p.Rare, p.Score)
	}
	return skipped, atomicfile.WriteFile(pairs, []byte(b.String()), atomicfile.Readable)
}

// dropUnnamable removes from s every rare word that cannot name a contexts
// file (contextNameProblem), its contexts and its pairs, logging each with
// the reason; it returns the words removed, sorted.
func (s *RareDevSet) dropUnnamable() []string {
	var dropped []string
	for w := range s.Contexts {
		if why := contextNameProblem(w); why != "" {
			slog.Warn("rare-dev: skipping a rare word that cannot name a contexts file", "word", clipWord(w), "why", why)
			dropped = append(dropped, w)
			delete(s.Contexts, w)
		}
	}
	sort.Strings(dropped)
	kept := s.Pairs[:0]
	for _, p := range s.Pairs {
		if contextNameProblem(p.Rare) == "" {
			kept = append(kept, p)
		}
	}
	s.Pairs = kept
	return dropped
}

// writeContexts replaces path with cs, one context per line (words joined
// by spaces).
func writeContexts(path string, cs [][]string) error {
	return atomicfile.Write(path, atomicfile.Readable, func(w *bufio.Writer) error {
		for _, c := range cs {
			w.WriteString(strings.Join(c, " "))
			w.WriteByte('\n')
		}
		return nil
	})
}

func runRareDev(ctx context.Context, env cli.Env) error {
	fs := cli.NewFlagSet("eval rare-dev", env)
	var paths cli.Paths
	fs.Var(&paths, "corpus", "corpus `FILE` or directory (repeatable; .gz ok)")
	out := fs.String("out", "", "output `DIR` (pairs.txt and contexts/; keep it outside the repository)")
	sub := fs.String("corpus-out", "", "also write the corpus without every sentence that holds a rare word of the set to `FILE` (the CRW protocol's subcorpus: train the models of the evaluation on it)")
	var o RareDevOptions
	fs.IntVar(&o.MinSentences, "min-sentences", 16, "the rare word needs at least this many distinct contexts")
	fs.Int64Var(&o.MaxCount, "max-count", 99, "the rare word may occur at most this many times (99: below the 100 occurrences from which train mimics a word)")
	fs.Int64Var(&o.MinCommon, "min-common", 100, "the other word must occur at least this many times")
	fs.IntVar(&o.MaxContexts, "max-contexts", 256, "contexts kept per rare word")
	fs.IntVar(&o.Window, "window", 25, "words kept each side of the rare word, within its sentence")
	fs.Uint64Var(&o.Seed, "seed", 1, "random seed of the context sample")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: text2vec-am eval rare-dev --corpus DIR --out DIR [--corpus-out FILE] PAIRS\n\n"+
			"Builds a rare-word development set for eval rare-pairs from a word-similarity file whose first\n"+
			"word is the rare one (the Stanford Rare Words set): the pairs whose rare word is rare in the\n"+
			"corpus but has enough sentences, with those sentences.")
		fs.PrintDefaults()
	}
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 1:
		return cli.UsageError("want one PAIRS file, got %d arguments", fs.NArg())
	case len(paths) == 0 || *out == "":
		return cli.UsageError("--corpus and --out are required")
	case o.MinSentences < 1 || o.MaxContexts < o.MinSentences || o.Window < 1 || o.MaxCount < 1:
		return cli.UsageError("want --min-sentences ≥ 1, --max-contexts ≥ --min-sentences, --window ≥ 1, --max-count ≥ 1")
	}
	subOut := outpath.File{Flag: "--corpus-out", Path: *sub}
	outs := []outpath.File{{Flag: "--out", Path: *out}, {Flag: "--out", Path: filepath.Join(*out, "pairs.txt")}, subOut}
	if err := checkRareDevOutputs(paths, fs.Arg(0), outs); err != nil {
		return err
	}
	pairs, err := dataset.LoadWordPairs(fs.Arg(0))
	if err != nil {
		return err
	}
	set, err := BuildRareDev(ctx, paths, pairs, o)
	if err != nil {
		return err
	}
	if len(set.Pairs) == 0 {
		return fmt.Errorf("no pair of %s qualifies", fs.Arg(0))
	}
	if err := checkContextsOutputs(paths, fs.Arg(0), contextsOutputs(*out, set), outs); err != nil {
		return err
	}
	skipped, err := set.Write(*out)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	writeRareDevSummary(env.Stdout, set, len(pairs), len(skipped), o, *out)
	if *sub == "" {
		return nil
	}
	drop := make(map[string]bool, len(set.Contexts))
	for w := range set.Contexts {
		drop[w] = true
	}
	st, err := corpus.WriteTokensFile(ctx, paths, drop, subOut)
	if err != nil {
		return fmt.Errorf("--corpus-out %s: %w", *sub, err)
	}
	fmt.Fprintf(env.Stdout, "subcorpus without the rare words: %d lines, %d tokens written to %s; dropped %d sentences (%d tokens), %d lines left empty\n",
		st.Lines, st.Tokens, *sub, st.DroppedSentences, st.DroppedTokens, st.DroppedLines)
	return nil
}

// checkRareDevOutputs fails, by a usage error, when one of outs is a file of
// the corpus at paths (corpus.CheckOutputs: ErrOutputInCorpus), the PAIRS
// file pairs, or another of outs (outpath.CheckDistinct): writing it would
// destroy that file.
func checkRareDevOutputs(paths []string, pairs string, outs []outpath.File) error {
	if err := corpus.CheckOutputs(paths, outs); err != nil {
		return cli.UsageError("%w", err)
	}
	for i, o := range outs {
		if err := outpath.CheckDistinct(o, outs[:i], pairsInput(pairs)); err != nil {
			return cli.UsageError("%w", err)
		}
	}
	return nil
}

// checkContextsOutputs is checkRareDevOutputs for the contexts files ctxs
// (contextsOutputs), in one pass however many: each is checked against the
// inputs and against outs (the --out directory, pairs.txt, --corpus-out:
// checked before), not against the other contexts files. Those are
// <word>.txt of distinct words in one directory, so their paths differ; but
// a case-insensitive or normalizing file system (macOS, Windows) takes two
// names that differ only in case or Unicode normalization (ς.txt and
// σ.txt) for one file, so two such names are refused (foldName), on every
// system, as the set should read alike everywhere.
func checkContextsOutputs(paths []string, pairs string, ctxs, outs []outpath.File) error {
	if err := corpus.CheckOutputs(paths, ctxs); err != nil {
		return cli.UsageError("%w", err)
	}
	inputs := pairsInput(pairs)
	names := make(map[string]string, len(ctxs)) // foldName of the base name → path
	for _, c := range ctxs {
		if err := outpath.CheckDistinct(c, outs, inputs); err != nil {
			return cli.UsageError("%w", err)
		}
		key := foldName(filepath.Base(c.Path))
		if p, ok := names[key]; ok {
			return fmt.Errorf("%s %s and %s differ only in case or Unicode normalization: a case-insensitive file system "+
				"(macOS, Windows) would write both rare words' contexts to one file: drop one of the two words from PAIRS",
				c.Flag, p, c.Path)
		}
		names[key] = c.Path
	}
	return nil
}

// pairsInput is the PAIRS file of eval rare-dev as the input of its
// outputs' checks.
func pairsInput(pairs string) []outpath.File {
	return []outpath.File{{Flag: "PAIRS", Path: pairs}}
}

// foldName returns name in a form that two names share when a
// case-insensitive, normalization-insensitive file system takes them for
// one: composed (NFC), each rune replaced by the least of its Unicode
// case-folding orbit (unicode.SimpleFold).
func foldName(name string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, norm.NFC.String(name))
}

// contextsOutputs returns the contexts files that set.Write(dir) writes, by
// path order.
func contextsOutputs(dir string, set *RareDevSet) []outpath.File {
	cdir := filepath.Join(dir, "contexts")
	outs := make([]outpath.File, 0, len(set.Contexts))
	for w := range set.Contexts {
		if p, ok := contextFile(cdir, w); ok {
			outs = append(outs, outpath.File{Flag: "--out", Path: p})
		}
	}
	slices.SortFunc(outs, func(a, b outpath.File) int { return strings.Compare(a.Path, b.Path) })
	return outs
}

// writeRareDevSummary prints what Write wrote of set (drawn from npairs
// pairs) to dir, and how many rare words it skipped.
func writeRareDevSummary(w io.Writer, set *RareDevSet, npairs, skipped int, o RareDevOptions, dir string) {
	nctx := 0
	for _, c := range set.Contexts {
		nctx += len(c)
	}
	fmt.Fprintf(w, "%d of %d pairs, %d rare words (≤ %d occurrences, ≥ %d distinct contexts; %.1f contexts on average), written to %s\n",
		len(set.Pairs), npairs, len(set.Contexts), o.MaxCount, o.MinSentences, float64(nctx)/float64(len(set.Contexts)), dir)
	if skipped > 0 {
		fmt.Fprintf(w, "skipped %d rare words and their pairs: they cannot name a contexts file (empty, \".\", \"..\", holding /, \\ or NUL, or too long; logged)\n", skipped)
	}
}
