package eval

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"unicode"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/internal/outpath"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
	"github.com/text2vec-am/text2vec-am/trainer/eval/report"
	"github.com/text2vec-am/text2vec-am/trainer/eval/stats"
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
func CleanSemEval(terms []dataset.ScoredTerm) []dataset.ScoredTerm {
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
	out := make([]dataset.ScoredTerm, len(order))
	for i, w := range order {
		out[i] = dataset.ScoredTerm{Term: w, Score: sum[w] / float64(cnt[w])}
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
func SentimentScores(clf *LogReg, test []dataset.ScoredTerm, vectors [][]float32, counts []int64, maxFreqs []int64) ([]float64, []int) {
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
		rho[j], n[j] = stats.Spearman(p, g), len(p)
	}
	return rho, n
}

// sentimentOptions are eval sentiment's flags.
type sentimentOptions struct {
	emb, am, fcm               string
	corpus                     cli.Paths
	huPos, huNeg, nrc, semeval string
	minTrain                   int64
	maxContexts, window        int
	sentences                  bool
	freqList, plotPath         string
	seed                       uint64
	maxFreqs                   []int64
}

func (o *sentimentOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.emb, "embeddings", "", "skipgram base embeddings `FILE` (the logistic regression is trained on them)")
	fs.Var(&o.corpus, "corpus", "corpus `PATH` (file or directory; repeatable): word counts and the contexts AM infers from")
	fs.StringVar(&o.am, "am", "", "AM weights `FILE` or bundle: the AM and AM+skip rows")
	fs.StringVar(&o.fcm, "fcm", "", "FCM weights `FILE` or bundle: the FCM row")
	fs.StringVar(&o.huPos, "hu-liu-positive", "", "Hu & Liu positive-words.txt `FILE`")
	fs.StringVar(&o.huNeg, "hu-liu-negative", "", "Hu & Liu negative-words.txt `FILE`")
	fs.StringVar(&o.nrc, "nrc", "", "NRC Emotion Lexicon word-level `FILE`")
	fs.StringVar(&o.semeval, "semeval", "", "SemEval-2015 Task 10E lexicon `FILE` (score TAB term)")
	fs.Int64Var(&o.minTrain, "min-count-train", 100, "training words must occur at least this often in the corpus")
	fs.IntVar(&o.maxContexts, "max-contexts", 64, "contexts sampled from the corpus per test word")
	fs.IntVar(&o.window, "window", 25, "context words kept on either side of the test word")
	fs.BoolVar(&o.sentences, "sentences", false, "draw contexts within sentences (default: within lines, as train does)")
	fs.StringVar(&o.freqList, "max-freqs", "10,50,100,500,1000", "maximum word frequencies of the columns (comma-separated)")
	fs.StringVar(&o.plotPath, "plot", "", "write a PNG plot of ρ by maximum frequency to `FILE`")
	fs.Uint64Var(&o.seed, "seed", 1, "random seed (context sampling, logistic regression)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: text2vec-am eval sentiment --embeddings FILE --corpus PATH --hu-liu-positive FILE\n"+
			"    --hu-liu-negative FILE --nrc FILE --semeval FILE [--am FILE] [--fcm FILE]\n\n"+
			"Paper §4.2: logistic regression (Adam, lr 0.01, 5 epochs) on the Hu & Liu ∪ NRC words with\n"+
			"≥ 100 occurrences (skipgram vectors), tested by Spearman against SemEval-2015 10E single words\n"+
			"bucketed by maximum corpus frequency; test vectors from skipgram, FCM, AM and AM+skip.")
		fs.PrintDefaults()
	}
}

func (o *sentimentOptions) check(args []string) error {
	inputs := append(corpusFiles(o.corpus), outpath.File{Flag: "--embeddings", Path: o.emb}, outpath.File{Flag: "--am", Path: o.am},
		outpath.File{Flag: "--fcm", Path: o.fcm}, outpath.File{Flag: "--hu-liu-positive", Path: o.huPos},
		outpath.File{Flag: "--hu-liu-negative", Path: o.huNeg}, outpath.File{Flag: "--nrc", Path: o.nrc},
		outpath.File{Flag: "--semeval", Path: o.semeval})
	if err := checkPlotOutput(o.plotPath, "", inputs); err != nil {
		return err
	}
	if len(args) != 0 {
		return cli.UsageError("unexpected arguments %q (data files are given by flags)", args)
	}
	for name, v := range map[string]string{"--embeddings": o.emb, "--hu-liu-positive": o.huPos, "--hu-liu-negative": o.huNeg, "--nrc": o.nrc, "--semeval": o.semeval} {
		if v == "" {
			return cli.UsageError("%s is required", name)
		}
	}
	if len(o.corpus) == 0 {
		return cli.UsageError("--corpus is required (word counts and contexts)")
	}
	if o.maxContexts < 1 || o.window < 1 {
		return cli.UsageError("--max-contexts and --window must be ≥ 1")
	}
	var err error
	if o.maxFreqs, err = parseInt64List(o.freqList); err != nil {
		return cli.UsageError("--max-freqs: %w", err)
	}
	return nil
}

func runSentiment(ctx context.Context, env cli.Env) error {
	fs := cli.NewFlagSet("eval sentiment", env)
	var o sentimentOptions
	o.register(fs)
	if err := cli.ParseFlags(fs, env.Args); err != nil {
		return err
	}
	if err := o.check(fs.Args()); err != nil {
		return err
	}
	return sentiment(ctx, &o, env.Stdout)
}

// sentiment runs the task with checked options o and writes its table to w.
func sentiment(ctx context.Context, o *sentimentOptions, w io.Writer) error {
	pos, err := dataset.LoadWordList(o.huPos, true)
	if err != nil {
		return err
	}
	neg, err := dataset.LoadWordList(o.huNeg, true)
	if err != nil {
		return err
	}
	nrcPos, nrcNeg, err := dataset.LoadNRC(o.nrc)
	if err != nil {
		return err
	}
	terms, err := dataset.LoadSemEval(o.semeval)
	if err != nil {
		return err
	}
	test := CleanSemEval(terms)
	e, err := loadEmbeddings(o.emb)
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
	cc, err := SampleContexts(ctx, o.corpus, targets, o.maxContexts, o.window, o.sentences, o.seed)
	if err != nil {
		return fmt.Errorf("sample the contexts of the test words: %w", err)
	}
	clf, err := trainSentiment(o, e, cc, [][]string{pos, nrcPos}, [][]string{neg, nrcNeg}, len(test))
	if err != nil {
		return err
	}
	results, vecs, counts, err := sentimentVectors(o, e, cc, testWords)
	if err != nil {
		return err
	}
	return writeSentiment(w, o, clf, test, results, vecs, counts)
}

// trainSentiment trains the logistic regression on the lexicon words with at
// least o.minTrain occurrences (their base vectors).
func trainSentiment(o *sentimentOptions, e *model.Embeddings, cc *CorpusContexts, pos, neg [][]string, nTest int) (*LogReg, error) {
	words, labels := SentimentTrainingWords(pos, neg)
	var x [][]float32
	var y []float64
	for i, w := range words {
		id, ok := e.ID(w)
		if !ok || cc.Counts[w] < o.minTrain {
			continue
		}
		x = append(x, e.Row(id))
		y = append(y, labels[i])
	}
	cfg := DefaultLogRegConfig()
	cfg.Seed = o.seed
	clf, err := TrainLogReg(x, y, cfg)
	if err != nil {
		return nil, fmt.Errorf("train the logistic regression: %w", err)
	}
	slog.Info("logistic regression trained", "lexicon_words", len(words), "train_words", len(x), "test_words", nTest)
	return clf, nil
}

// sentimentVectors returns the rows (skipgram, then FCM, AM and AM+skip when
// given), each with the vectors of the test words, and the words' counts.
func sentimentVectors(o *sentimentOptions, e *model.Embeddings, cc *CorpusContexts, testWords []string) ([]SentimentResult, [][][]float32, []int64, error) {
	counts := make([]int64, len(testWords))
	skip := make([][]float32, len(testWords))
	for i, w := range testWords {
		counts[i] = cc.Counts[w]
		skip[i] = EmbeddingLookup(e)(w)
	}
	results := []SentimentResult{{Name: "skipgram"}}
	vecs := [][][]float32{skip}
	for _, r := range []struct{ name, path string }{{"FCM", o.fcm}, {"AM", o.am}} {
		if r.path == "" {
			continue
		}
		m, err := loadModel(r.path, e, false)
		if err != nil {
			return nil, nil, nil, err
		}
		inferred := InferWords(m, testWords, cc.Contexts)
		results = append(results, SentimentResult{Name: r.name + " (" + m.Mode.String() + ")"})
		vecs = append(vecs, inferred)
		if r.name == "AM" {
			mixed := make([][]float32, len(testWords))
			for i := range testWords {
				mixed[i] = AMSkip(inferred[i], skip[i], counts[i])
			}
			results = append(results, SentimentResult{Name: "AM+skip"})
			vecs = append(vecs, mixed)
		}
	}
	return results, vecs, counts, nil
}

// writeSentiment scores every row and writes the table (and the plot).
func writeSentiment(w io.Writer, o *sentimentOptions, clf *LogReg, test []dataset.ScoredTerm, results []SentimentResult, vecs [][][]float32, counts []int64) error {
	tab := report.Table{Header: []string{"model"}}
	for _, f := range o.maxFreqs {
		tab.Header = append(tab.Header, fmt.Sprintf("≤ %d", f))
	}
	var nWords []int
	for i := range results {
		results[i].Spearman, nWords = SentimentScores(clf, test, vecs[i], counts, o.maxFreqs)
		cells := []string{results[i].Name}
		for _, r := range results[i].Spearman {
			cells = append(cells, report.Num(r, 2))
		}
		tab.AddRow(cells...)
	}
	cells := []string{"(test words)"}
	for _, n := range nWords {
		cells = append(cells, fmt.Sprint(n))
	}
	tab.AddRow(cells...)
	if err := tab.WriteMarkdown(w); err != nil {
		return err
	}
	if o.plotPath == "" {
		return nil
	}
	p := report.LinePlot{Title: "Sentiment dictionary (SemEval-2015 10E)", XLabel: "maximum word frequency", YLabel: "Spearman ρ", LogX: true}
	for _, f := range o.maxFreqs {
		p.X = append(p.X, float64(f))
	}
	for _, r := range results {
		p.Series = append(p.Series, report.Series{Name: r.Name, Y: r.Spearman})
	}
	return p.WritePNG(o.plotPath)
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
