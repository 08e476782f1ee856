package eval

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"unicode"

	"github.com/text2vec-am/text2vec-am/cli"
)

// SentimentTrainingWords fuses positive and negative word lists (Hu & Liu,
// NRC) into one labelled set: label 1 positive, 0 negative. A word listed on
// both sides is left out. The result is sorted by word.
func SentimentTrainingWords(pos, neg [][]string) (words []string, labels []float64) {
	p, n := map[string]bool{}, map[string]bool{}
	for _, l := range pos {
		for _, w := range l {
			p[strings.ToLower(w)] = true
		}
	}
	for _, l := range neg {
		for _, w := range l {
			n[strings.ToLower(w)] = true
		}
	}
	for w := range p {
		if !n[w] {
			words = append(words, w)
		}
	}
	for w := range n {
		if !p[w] {
			words = append(words, w)
		}
	}
	sort.Strings(words)
	labels = make([]float64, len(words))
	for i, w := range words {
		if p[w] {
			labels[i] = 1
		}
	}
	return words, labels
}

// CleanSemEval prepares the SemEval-2015 10E terms as the paper's appendix
// says: lowercase, remove every character that is not a letter or digit
// (hashtags become words), drop terms of several words and terms with fewer
// than 2 letters. Terms that become equal get the mean of their scores.
func CleanSemEval(terms []ScoredTerm) []ScoredTerm {
	sum := map[string]float64{}
	cnt := map[string]int{}
	var order []string
	for _, t := range terms {
		if len(strings.Fields(t.Term)) != 1 {
			continue
		}
		var b strings.Builder
		letters := 0
		for _, r := range strings.ToLower(t.Term) {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				b.WriteRune(r)
			}
			if unicode.IsLetter(r) {
				letters++
			}
		}
		w := b.String()
		if letters < 2 {
			continue
		}
		if cnt[w] == 0 {
			order = append(order, w)
		}
		sum[w] += t.Score
		cnt[w]++
	}
	out := make([]ScoredTerm, len(order))
	for i, w := range order {
		out[i] = ScoredTerm{Term: w, Score: sum[w] / float64(cnt[w])}
	}
	return out
}

// SentimentResult is one model's Spearman ρ per maximum word frequency.
type SentimentResult struct {
	Name     string
	Spearman []float64 // parallel to the maximum frequencies
}

// SentimentScores predicts P(positive) with clf for every test word from
// vectors (nil: the zero vector) and returns, for every maximum frequency,
// Spearman's ρ against the gold scores over the test words seen at most that
// often, and how many words that is.
func SentimentScores(clf *LogReg, test []ScoredTerm, vectors [][]float32, counts []int64, maxFreqs []int64) ([]float64, []int) {
	dim := len(clf.W)
	zero := make([]float32, dim)
	pred := make([]float64, len(test))
	for i := range test {
		v := vectors[i]
		if v == nil {
			v = zero
		}
		pred[i] = clf.Prob(v)
	}
	rho := make([]float64, len(maxFreqs))
	n := make([]int, len(maxFreqs))
	for j, f := range maxFreqs {
		var p, g []float64
		for i, t := range test {
			if counts[i] <= f {
				p = append(p, pred[i])
				g = append(g, t.Score)
			}
		}
		rho[j], n[j] = Spearman(p, g), len(p)
	}
	return rho, n
}

func runSentiment(ctx context.Context, env cli.Env) error {
	fs := cli.NewFlagSet("eval sentiment", env)
	emb := fs.String("embeddings", "", "skipgram base embeddings `FILE` (the logistic regression is trained on them)")
	var corpusPaths cli.Paths
	fs.Var(&corpusPaths, "corpus", "corpus `PATH` (file or directory; repeatable): word counts and the contexts AM infers from")
	am := fs.String("am", "", "AM weights `FILE` or bundle: the AM and AM+skip rows")
	fcm := fs.String("fcm", "", "FCM weights `FILE` or bundle: the FCM row")
	huPos := fs.String("hu-liu-positive", "", "Hu & Liu positive-words.txt `FILE`")
	huNeg := fs.String("hu-liu-negative", "", "Hu & Liu negative-words.txt `FILE`")
	nrc := fs.String("nrc", "", "NRC Emotion Lexicon word-level `FILE`")
	semeval := fs.String("semeval", "", "SemEval-2015 Task 10E lexicon `FILE` (score TAB term)")
	minTrain := fs.Int64("min-count-train", 100, "training words must occur at least this often in the corpus")
	maxContexts := fs.Int("max-contexts", 64, "contexts sampled from the corpus per test word")
	window := fs.Int("window", 25, "context words kept on either side of the test word")
	sentences := fs.Bool("sentences", false, "draw contexts within sentences (default: within lines, as train does)")
	freqList := fs.String("max-freqs", "10,50,100,500,1000", "maximum word frequencies of the columns (comma-separated)")
	plotPath := fs.String("plot", "", "write a PNG plot of ρ by maximum frequency to `FILE`")
	seed := fs.Uint64("seed", 1, "random seed (context sampling, logistic regression)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: text2vec-am eval sentiment --embeddings FILE --corpus PATH --hu-liu-positive FILE\n"+
			"    --hu-liu-negative FILE --nrc FILE --semeval FILE [--am FILE] [--fcm FILE]\n\n"+
			"Paper §4.2: logistic regression (Adam, lr 0.01, 5 epochs) on the Hu & Liu ∪ NRC words with\n"+
			"≥ 100 occurrences (skipgram vectors), tested by Spearman against SemEval-2015 10E single words\n"+
			"bucketed by maximum corpus frequency; test vectors from skipgram, FCM, AM and AM+skip.")
		fs.PrintDefaults()
	}
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return err
	}
	if err := checkPlotFlag(*plotPath); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return cli.UsageError("unexpected arguments %q (data files are given by flags)", fs.Args())
	}
	for name, v := range map[string]string{"--embeddings": *emb, "--hu-liu-positive": *huPos, "--hu-liu-negative": *huNeg, "--nrc": *nrc, "--semeval": *semeval} {
		if v == "" {
			return cli.UsageError("%s is required", name)
		}
	}
	if len(corpusPaths) == 0 {
		return cli.UsageError("--corpus is required (word counts and contexts)")
	}
	if *maxContexts < 1 || *window < 1 {
		return cli.UsageError("--max-contexts and --window must be ≥ 1")
	}
	maxFreqs, err := parseInt64List(*freqList)
	if err != nil {
		return cli.UsageError("--max-freqs: %v", err)
	}
	pos, err := LoadWordList(*huPos, true)
	if err != nil {
		return err
	}
	neg, err := LoadWordList(*huNeg, true)
	if err != nil {
		return err
	}
	nrcPos, nrcNeg, err := LoadNRC(*nrc)
	if err != nil {
		return err
	}
	terms, err := LoadSemEval(*semeval)
	if err != nil {
		return err
	}
	test := CleanSemEval(terms)
	e, err := loadEmbeddings(*emb)
	if err != nil {
		return err
	}
	targets := make(map[string]bool, len(test))
	testWords := make([]string, len(test))
	for i, t := range test {
		targets[t.Term] = true
		testWords[i] = t.Term
	}
	slog.Info("sampling contexts of the test words from the corpus", "words", len(test))
	cc, err := SampleContexts(ctx, corpusPaths, targets, *maxContexts, *window, *sentences, *seed)
	if err != nil {
		return fmt.Errorf("sentiment: %w", err)
	}

	words, labels := SentimentTrainingWords([][]string{pos, nrcPos}, [][]string{neg, nrcNeg})
	var x [][]float32
	var y []float64
	for i, w := range words {
		id, ok := e.ID(w)
		if !ok || cc.Counts[w] < *minTrain {
			continue
		}
		x = append(x, e.Row(id))
		y = append(y, labels[i])
	}
	cfg := DefaultLogRegConfig()
	cfg.Seed = *seed
	clf, err := TrainLogReg(x, y, cfg)
	if err != nil {
		return fmt.Errorf("sentiment: %w", err)
	}
	slog.Info("logistic regression trained", "lexicon_words", len(words), "train_words", len(x), "test_words", len(test))

	counts := make([]int64, len(test))
	skip := make([][]float32, len(test))
	for i, w := range testWords {
		counts[i] = cc.Counts[w]
		skip[i] = EmbeddingLookup(e)(w)
	}
	results := []SentimentResult{{Name: "skipgram"}}
	vecs := [][][]float32{skip}
	for _, r := range []struct{ name, path string }{{"FCM", *fcm}, {"AM", *am}} {
		if r.path == "" {
			continue
		}
		m, err := loadModel(r.path, e, false)
		if err != nil {
			return err
		}
		inferred := InferWords(m, testWords, cc.Contexts)
		results = append(results, SentimentResult{Name: r.name + " (" + m.Mode.String() + ")"})
		vecs = append(vecs, inferred)
		if r.name == "AM" {
			mixed := make([][]float32, len(test))
			for i := range test {
				mixed[i] = AMSkip(inferred[i], skip[i], counts[i])
			}
			results = append(results, SentimentResult{Name: "AM+skip"})
			vecs = append(vecs, mixed)
		}
	}
	tab := Table{Header: []string{"model"}}
	for _, f := range maxFreqs {
		tab.Header = append(tab.Header, fmt.Sprintf("≤ %d", f))
	}
	var nWords []int
	for i := range results {
		results[i].Spearman, nWords = SentimentScores(clf, test, vecs[i], counts, maxFreqs)
		cells := []string{results[i].Name}
		for _, r := range results[i].Spearman {
			cells = append(cells, fmtNum(r, 2))
		}
		tab.AddRow(cells...)
	}
	cells := []string{"(test words)"}
	for _, n := range nWords {
		cells = append(cells, fmt.Sprint(n))
	}
	tab.AddRow(cells...)
	if err := tab.WriteMarkdown(env.Stdout); err != nil {
		return err
	}
	if *plotPath != "" {
		p := LinePlot{Title: "Sentiment dictionary (SemEval-2015 10E)", XLabel: "maximum word frequency", YLabel: "Spearman ρ", LogX: true}
		for _, f := range maxFreqs {
			p.X = append(p.X, float64(f))
		}
		for _, r := range results {
			p.Series = append(p.Series, Series{Name: r.Name, Y: r.Spearman})
		}
		return p.WritePNG(*plotPath)
	}
	return nil
}

// parseInt64List parses comma-separated positive integers.
func parseInt64List(s string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		var v int64
		if _, err := fmt.Sscan(strings.TrimSpace(f), &v); err != nil || v <= 0 {
			return nil, fmt.Errorf("%q is not a positive integer", f)
		}
		out = append(out, v)
	}
	return out, nil
}
