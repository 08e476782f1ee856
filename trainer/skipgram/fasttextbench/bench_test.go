package fasttextbench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/corpus"
	"github.com/text2vec-am/text2vec-am/trainer/eval"
	"github.com/text2vec-am/text2vec-am/trainer/skipgram"
)

// sharedDir returns ../shared beside the repository root, or skips.
func sharedDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("go.mod not found above the test directory")
		}
		dir = parent
	}
	shared := filepath.Join(filepath.Dir(dir), "shared")
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("shared data not available at %s", shared)
	}
	return shared
}

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
		pairs, err := eval.LoadWordPairs(filepath.Join(shared, "data", "eval", "wordsim", set))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, eval.WordSim(eval.EmbeddingLookup(e), pairs).Spearman)
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
	shared := sharedDir(t)
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
	}
	threads := envInt(t, "T2V_SKIPGRAM_BENCH_THREADS", 2)
	const epochs = 5

	tok := filepath.Join(out, "general.tok")
	ntok := tokenize(t, filepath.Join(shared, "data", "corpus", "general"), tok)
	t.Logf("tokenized corpus: %d tokens in %s", ntok, tok)

	// fastText first.
	ftArgs := []string{"skipgram", "-input", tok, "-output", filepath.Join(out, "fasttext"),
		"-dim", "100", "-ws", "5", "-neg", "5", "-minCount", "5", "-epoch", strconv.Itoa(epochs),
		"-thread", strconv.Itoa(threads), "-maxn", "0", "-t", "1e-4", "-verbose", "1"}
	cfg := skipgram.DefaultConfig()
	cfg.Threads = threads
	cfg.Epochs = epochs
	if s := os.Getenv("T2V_SKIPGRAM_BENCH_LR"); s != "" {
		lr, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("T2V_SKIPGRAM_BENCH_LR=%q: %v", s, err)
		}
		cfg.LR = lr
		ftArgs = append(ftArgs, "-lr", s)
	}
	cmd := exec.Command(ftBin, ftArgs...)
	cmd.Stdout, cmd.Stderr = nil, nil
	start := time.Now()
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fasttext %s: %v\n%s", strings.Join(ftArgs, " "), err, msg)
	}
	ftSecs := time.Since(start).Seconds()

	// Ours, in process, the same steps as train-embeddings: read, encode, train, write.
	ourVec := filepath.Join(out, "ours.vec")
	start = time.Now()
	c, err := corpus.Read(context.Background(), []string{tok}, corpus.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	vocab := c.Vocab(5)
	enc := c.Encode(vocab, false)
	c = nil
	trainStart := time.Now()
	emb, err := skipgram.Train(context.Background(), enc, vocab, cfg)
	if err != nil {
		t.Fatal(err)
	}
	trainSecs := time.Since(trainStart).Seconds()
	if err := model.SaveEmbeddings(ourVec, emb, false); err != nil {
		t.Fatal(err)
	}
	ourSecs := time.Since(start).Seconds()

	ftRate := float64(ntok) * epochs / ftSecs
	ourRate := float64(ntok) * epochs / ourSecs
	ft := scores(t, shared, filepath.Join(out, "fasttext.vec"))
	ours := scores(t, shared, ourVec)
	ref := scores(t, shared, filepath.Join(shared, "data", "embeddings", "general-sgns100.vec.gz"))

	var b strings.Builder
	fmt.Fprintf(&b, "\n%d tokens × %d epochs, %d threads, GOMAXPROCS %d, lr %s\n", ntok, epochs, threads, runtime.GOMAXPROCS(0), os.Getenv("T2V_SKIPGRAM_BENCH_LR"))
	fmt.Fprintf(&b, "| trainer | wall time | tokens/s (whole command) | ratio to fastText | WS-353 | SimLex-999 | MEN |\n|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(&b, "| fastText skipgram -maxn 0 | %.0f s | %.0f | 1.00 | %.3f | %.3f | %.3f |\n", ftSecs, ftRate, ft[0], ft[1], ft[2])
	fmt.Fprintf(&b, "| text2vec-am skipgram | %.0f s (training %.0f s) | %.0f | %.2f | %.3f | %.3f | %.3f |\n", ourSecs, trainSecs, ourRate, ourRate/ftRate, ours[0], ours[1], ours[2])
	fmt.Fprintf(&b, "| reference general-sgns100 | | | | %.3f | %.3f | %.3f |\n", ref[0], ref[1], ref[2])
	t.Log(b.String())
	if os.Getenv("T2V_SKIPGRAM_BENCH_OUT") != "" {
		if err := os.WriteFile(filepath.Join(out, "RESULT.md"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
