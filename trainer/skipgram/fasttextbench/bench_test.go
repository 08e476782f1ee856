//go:build unix

package fasttextbench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/internal/shareddata"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/corpus"
	"github.com/text2vec-am/text2vec-am/trainer/eval"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
	"github.com/text2vec-am/text2vec-am/trainer/skipgram"
)

// tokenize writes the corpus as one line of space-separated tokens per line,
// so that fastText and our trainer see exactly the same tokens.
func tokenize(t *testing.T, src, dst string) int64 {
	t.Helper()
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var n int64
	err = corpus.ForEachUnit(context.Background(), []string{src}, corpus.DefaultOptions(), func(u corpus.Unit) error {
		n += int64(len(u.Tokens))
		w.WriteString(strings.Join(u.Tokens, " "))
		return w.WriteByte('\n')
	})
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// scores evaluates embeddings on WS-353, SimLex-999 and MEN.
func scores(t *testing.T, shared, path string) []float64 {
	t.Helper()
	e, err := model.LoadEmbeddings(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []float64
	for _, set := range wordSimSets {
		pairs, err := dataset.LoadWordPairs(filepath.Join(shared, "data", "eval", "wordsim", set))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, eval.WordSimOOV(eval.EmbeddingLookup(e), nil, pairs).Spearman)
	}
	return out
}

var wordSimSets = []string{"EN-WS-353-ALL.txt", "EN-SIMLEX-999.txt", "EN-MEN-TR-3k.txt"}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 {
		t.Fatalf("%s=%q: want a positive integer", name, s)
	}
	return v
}

// TestFastTextComparison trains fastText skipgram -maxn 0 and our skipgram with
// the same settings on the same tokenized corpus, one after the other, and
// reports the throughput of each (corpus tokens × epochs / wall time of the whole
// command: reading, training, writing) and their word-similarity scores.
func TestFastTextComparison(t *testing.T) {
	if os.Getenv("T2V_SKIPGRAM_BENCH") == "" {
		t.Skip("set T2V_SKIPGRAM_BENCH=1 to run the fastText comparison (about ten minutes on 2 cores)")
	}
	shared := shareddata.Dir(t)
	ftBin := os.Getenv("T2V_SKIPGRAM_BENCH_FASTTEXT")
	if ftBin == "" {
		ftBin = "fasttext"
	}
	if _, err := exec.LookPath(ftBin); err != nil {
		t.Skipf("fastText binary %q not found: %v", ftBin, err)
	}
	out := os.Getenv("T2V_SKIPGRAM_BENCH_OUT")
	if out == "" {
		out = t.TempDir()
	} else if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatalf("T2V_SKIPGRAM_BENCH_OUT: %v", err)
	}
	threads := envInt(t, "T2V_SKIPGRAM_BENCH_THREADS", 2)
	epochs := envInt(t, "T2V_SKIPGRAM_BENCH_EPOCHS", 5)
	// Subwords: T2V_SKIPGRAM_BENCH_MAXN=6 runs both with character n-grams 3–6
	// (fastText's skipgram defaults, 2,000,000 buckets).
	maxn := 0
	if os.Getenv("T2V_SKIPGRAM_BENCH_MAXN") != "" {
		maxn = envInt(t, "T2V_SKIPGRAM_BENCH_MAXN", 6)
	}

	tok := filepath.Join(out, "general.tok")
	ntok := tokenize(t, filepath.Join(shared, "data", "corpus", "general"), tok)
	if lines := os.Getenv("T2V_SKIPGRAM_BENCH_LINES"); lines != "" {
		ntok = truncateLines(t, tok, envInt(t, "T2V_SKIPGRAM_BENCH_LINES", 1))
	}
	t.Logf("tokenized corpus: %d tokens in %s", ntok, tok)

	// fastText first.
	ftArgs := []string{"skipgram", "-input", tok, "-output", filepath.Join(out, "fasttext"),
		"-dim", "100", "-ws", "5", "-neg", "5", "-minCount", "5", "-epoch", strconv.Itoa(epochs),
		"-thread", strconv.Itoa(threads), "-minn", "3", "-maxn", strconv.Itoa(maxn), "-bucket", "2000000", "-t", "1e-4", "-verbose", "1"}
	// fastText's skipgram defaults where ours differ: learning rate 0.05 and
	// negatives from unigram^0.5 (fastText's table; it has no option for it).
	cfg := skipgram.DefaultConfig()
	cfg.Threads = threads
	cfg.Epochs = epochs
	cfg.MinN, cfg.MaxN, cfg.Bucket = 3, maxn, 2000000
	cfg.LR = 0.05
	cfg.NegativePower = 0.5
	lr := os.Getenv("T2V_SKIPGRAM_BENCH_LR")
	if lr == "" {
		lr = "0.05"
	}
	var err error
	if cfg.LR, err = strconv.ParseFloat(lr, 64); err != nil {
		t.Fatalf("T2V_SKIPGRAM_BENCH_LR=%q: %v", lr, err)
	}
	ftArgs = append(ftArgs, "-lr", lr)
	if s := os.Getenv("T2V_SKIPGRAM_BENCH_NEG_POWER"); s != "" {
		if cfg.NegativePower, err = strconv.ParseFloat(s, 64); err != nil {
			t.Fatalf("T2V_SKIPGRAM_BENCH_NEG_POWER=%q: %v", s, err)
		}
	}
	cmd := exec.Command(ftBin, ftArgs...)
	cmd.Stdout, cmd.Stderr = nil, nil
	start := time.Now()
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fasttext %s: %v\n%s", strings.Join(ftArgs, " "), err, msg)
	}
	ftSecs := time.Since(start).Seconds()
	ftCPU := (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()

	// Ours, in process, the same steps as train-embeddings: read, encode, train, write.
	ourVec := filepath.Join(out, "ours.vec")
	cpu0 := cpuSeconds(t)
	start = time.Now()
	c, err := corpus.Read(context.Background(), []string{tok}, corpus.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	vocab := c.Vocab(5)
	enc := c.Encode(vocab, false)
	c = nil
	trainStart := time.Now()
	var emb *model.Embeddings
	if maxn > 0 {
		var sw *skipgram.Subwords
		if sw, err = skipgram.TrainSubwords(context.Background(), enc, vocab, cfg); err == nil {
			emb = sw.Words
		}
	} else {
		emb, err = skipgram.Train(context.Background(), enc, vocab, cfg)
	}
	if err != nil {
		t.Fatal(err)
	}
	trainSecs := time.Since(trainStart).Seconds()
	if err := model.SaveEmbeddings(ourVec, emb, false); err != nil {
		t.Fatal(err)
	}
	ourSecs := time.Since(start).Seconds()
	ourCPU := cpuSeconds(t) - cpu0

	ftRate := float64(ntok) * float64(epochs) / ftSecs
	ourRate := float64(ntok) * float64(epochs) / ourSecs
	ft := scores(t, shared, filepath.Join(out, "fasttext.vec"))
	ours := scores(t, shared, ourVec)
	ref := scores(t, shared, filepath.Join(shared, "data", "embeddings", "general-sgns100.vec.gz"))

	var b strings.Builder
	fmt.Fprintf(&b, "\n%d tokens × %d epochs, %d threads, GOMAXPROCS %d, lr %g, our negative power %g\n", ntok, epochs, threads, runtime.GOMAXPROCS(0), cfg.LR, cfg.NegativePower)
	fmt.Fprintf(&b, "| trainer | wall time | tokens/s (whole command) | ratio to fastText | CPU time | tokens per CPU-second | ratio | WS-353 | SimLex-999 | MEN |\n|---|---|---|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(&b, "| fastText skipgram -maxn %d | %.0f s | %.0f | 1.00 | %.0f s | %.0f | 1.00 | %.3f | %.3f | %.3f |\n",
		maxn, ftSecs, ftRate, ftCPU, float64(ntok)*float64(epochs)/ftCPU, ft[0], ft[1], ft[2])
	fmt.Fprintf(&b, "| text2vec-am skipgram | %.0f s (training %.0f s) | %.0f | %.2f | %.0f s | %.0f | %.2f | %.3f | %.3f | %.3f |\n",
		ourSecs, trainSecs, ourRate, ourRate/ftRate, ourCPU, float64(ntok)*float64(epochs)/ourCPU, ftCPU/ourCPU, ours[0], ours[1], ours[2])
	fmt.Fprintf(&b, "| reference general-sgns100 | | | | | | | %.3f | %.3f | %.3f |\n", ref[0], ref[1], ref[2])
	t.Log(b.String())
	if os.Getenv("T2V_SKIPGRAM_BENCH_OUT") != "" {
		if err := os.WriteFile(filepath.Join(out, "RESULT.md"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// truncateLines keeps the first n lines of path and returns their tokens.
func truncateLines(t *testing.T, path string, n int) int64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	end, ntok := 0, int64(0)
	for i := 0; i < n && end < len(data); i++ {
		nl := bytes.IndexByte(data[end:], '\n')
		if nl < 0 {
			nl = len(data) - end - 1
		}
		ntok += int64(len(bytes.Fields(data[end : end+nl])))
		end += nl + 1
	}
	if err := os.WriteFile(path, data[:end], 0o644); err != nil {
		t.Fatal(err)
	}
	return ntok
}

// cpuSeconds returns the user plus system CPU time of this process so far.
func cpuSeconds(t *testing.T) float64 {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime)).Seconds()
}
