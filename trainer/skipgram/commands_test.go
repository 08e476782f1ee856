package skipgram

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/model"
)

func runCmd(ctx context.Context, args ...string) (string, error) {
	var out, errOut bytes.Buffer
	err := Commands()[0].Run(ctx, cli.Env{Args: args, Stdout: &out, Stderr: &errOut})
	return errOut.String(), err
}

func TestTrainEmbeddingsCommand(t *testing.T) {
	corpusPath := topicCorpus(t, 1000)
	dir := t.TempDir()
	for _, format := range []string{"text", "binary"} {
		out := filepath.Join(dir, "emb-"+format)
		counts := filepath.Join(dir, "counts-"+format+".txt")
		stderr, err := runCmd(context.Background(), "--corpus", corpusPath, "--out", out, "--format", format,
			"--counts-out", counts, "--dim", "12", "--window", "3", "--min-count", "2", "--epochs", "2",
			"--sample", "0", "--threads", "1", "--seed", "3")
		if err != nil {
			t.Fatalf("%s: %v\n%s", format, err, stderr)
		}
		e, err := model.LoadEmbeddings(out)
		if err != nil {
			t.Fatal(err)
		}
		if e.Dim != 12 || e.Len() != 17 {
			t.Fatalf("%s: %d words of dimension %d, want 17 of 12", format, e.Len(), e.Dim)
		}
		c, err := model.LoadCounts(counts)
		if err != nil {
			t.Fatal(err)
		}
		// Every corpus word is counted, also those below min-count.
		if len(c) != 18 || c["rare"] != 2 || c["once"] != 1 {
			t.Fatalf("counts: %d words, rare %d, once %d", len(c), c["rare"], c["once"])
		}
		var total int64
		for _, n := range c {
			total += n
		}
		if total != 1000*12+3 {
			t.Fatalf("counts sum to %d, want %d tokens", total, 1000*12+3)
		}
		if !strings.Contains(stderr, "tokens/s") {
			t.Errorf("no throughput in the log:\n%s", stderr)
		}
	}
}

func TestTrainEmbeddingsCancelled(t *testing.T) {
	corpusPath := topicCorpus(t, 200)
	out := filepath.Join(t.TempDir(), "emb.vec")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := runCmd(ctx, "--corpus", corpusPath, "--out", out, "--min-count", "1")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run returned %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 0 {
		t.Fatalf("cancelled run left files: %v", entries)
	}
}

func TestTrainEmbeddingsFlagErrors(t *testing.T) {
	corpusPath := topicCorpus(t, 10)
	dir := t.TempDir()
	out := filepath.Join(dir, "e.vec")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", out}, "--corpus is required"},
		{[]string{"--corpus", corpusPath}, "--out is required"},
		{[]string{"--corpus", corpusPath, "--out", out, "extra"}, `unexpected argument "extra"`},
		{[]string{"--corpus", corpusPath, "--out", out, "--format", "glove"}, `--format "glove"`},
		{[]string{"--corpus", corpusPath, "--out", out, "--dim", "0"}, "--dim 0 out of range"},
		{[]string{"--corpus", corpusPath, "--out", out, "--window", "-1"}, "--window -1 out of range"},
		{[]string{"--corpus", corpusPath, "--out", out, "--negative", "0"}, "--negative 0 out of range"},
		{[]string{"--corpus", corpusPath, "--out", out, "--min-count", "0"}, "--min-count 0"},
		{[]string{"--corpus", corpusPath, "--out", out, "--epochs", "0"}, "--epochs 0 out of range"},
		{[]string{"--corpus", corpusPath, "--out", out, "--sample", "1.5"}, "--sample 1.5 out of range"},
		{[]string{"--corpus", corpusPath, "--out", out, "--lr", "-0.1"}, "--lr -0.1 out of range"},
		{[]string{"--corpus", corpusPath, "--out", out, "--threads", "0"}, "--threads 0 out of range"},
		{[]string{"--corpus", corpusPath, "--out", out, "--neg-power", "2"}, "--neg-power 2 out of range"},
		{[]string{"--corpus", corpusPath, "--out", out, "--dim", "x"}, "invalid value"},
		{[]string{"--corpus", corpusPath, "--out", out, "--counts-out", out}, "same file"},
		// An output over the corpus destroyed it (training reads it first).
		{[]string{"--corpus", corpusPath, "--out", corpusPath}, "is the --corpus file"},
		{[]string{"--corpus", corpusPath, "--out", out, "--counts-out", corpusPath}, "is the --corpus file"},
		// 2^26 buckets × 2^14 dimensions would allocate 4 TiB: refused, not a fatal out-of-memory.
		{[]string{"--corpus", corpusPath, "--out", out, "--maxn", "4", "--dim", "16384", "--bucket", "67108864"}, "--bucket 67108864 rows × --dim 16384: more than"},
	} {
		_, err := runCmd(context.Background(), tc.args...)
		if !errors.Is(err, cli.ErrUsage) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want a usage error containing %q", tc.args, err, tc.want)
		}
	}
	// The cause of an unwritable output survives its usage error (errors.Is).
	missingCounts := filepath.Join(dir, "missing", "c.txt")
	_, err := runCmd(context.Background(), "--corpus", corpusPath, "--out", out, "--counts-out", missingCounts)
	if !errors.Is(err, cli.ErrUsage) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("--counts-out in a missing directory: error %v, want a usage error wrapping fs.ErrNotExist", err)
	}
	// Errors found before training: unwritable output, missing corpus, min-count too high.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--corpus", corpusPath, "--out", out, "--counts-out", missingCounts}, "cannot write to directory"},
		{[]string{"--corpus", corpusPath, "--out", dir}, "is a directory"},
		{[]string{"--corpus", filepath.Join(dir, "nope.txt"), "--out", out}, "nope.txt: no such file"},
		{[]string{"--corpus", corpusPath, "--out", out, "--min-count", "1000000"}, "no word occurs at least 1000000 times"},
	} {
		_, err := runCmd(context.Background(), tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want it to contain %q", tc.args, err, tc.want)
		}
	}
}

func TestTrainEmbeddingsSubwordCommand(t *testing.T) {
	dir := t.TempDir()
	corpusPath := morphCorpus(t, 400)
	out, ngrams := filepath.Join(dir, "sw.vec"), filepath.Join(dir, "ng.vec")
	stderr, err := runCmd(context.Background(), "--corpus", corpusPath, "--out", out, "--ngrams-out", ngrams,
		"--dim", "8", "--min-count", "2", "--epochs", "1", "--threads", "1", "--maxn", "5", "--bucket", "1000", "--ngrams-max", "30", "--shuffle")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	e, err := model.LoadEmbeddings(ngrams)
	if err != nil {
		t.Fatal(err)
	}
	if e.Len() != 30 || e.Dim != 8 {
		t.Fatalf("n-gram file: %d rows of dimension %d, want 30 of 8", e.Len(), e.Dim)
	}
	// Exact n-gram rows (--bucket 0) reach the trainer and list the same
	// n-grams as hashed rows, each with a vector of its own.
	if o, err := parseFlags(cli.Env{Args: []string{"--corpus", corpusPath, "--out", out, "--maxn", "5", "--bucket", "0"}}); err != nil || o.cfg.Bucket != 0 {
		t.Fatalf("--bucket 0: bucket %v, err %v", o.cfg.Bucket, err)
	}
	ngramsOf := func(bucket string, extra ...string) *model.Embeddings {
		args := append([]string{"--corpus", corpusPath, "--out", out, "--ngrams-out", ngrams,
			"--dim", "8", "--min-count", "2", "--epochs", "1", "--threads", "1", "--maxn", "5", "--bucket", bucket}, extra...)
		stderr, err := runCmd(context.Background(), args...)
		if err != nil {
			t.Fatalf("%q: %v\n%s", args, err, stderr)
		}
		e, err := model.LoadEmbeddings(ngrams)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	hashed, exact := ngramsOf("100"), ngramsOf("0")
	if !slices.Equal(hashed.Words, exact.Words) {
		t.Errorf("--bucket 0 lists %d n-grams, --bucket 100 %d: want the same", exact.Len(), hashed.Len())
	}
	distinct := func(e *model.Embeddings) int {
		seen := map[string]bool{}
		for i := range e.Len() {
			seen[fmt.Sprint(e.Row(int32(i)))] = true
		}
		return len(seen)
	}
	if d := distinct(exact); d != exact.Len() {
		t.Errorf("--bucket 0: %d distinct vectors for %d n-grams", d, exact.Len())
	}
	if d := distinct(hashed); d >= hashed.Len() {
		t.Errorf("--bucket 100: %d distinct vectors for %d n-grams, want collisions", d, hashed.Len())
	}
	// The output vectors (--outputs-out) have a row for every word of --out,
	// trained: not all equal.
	outputs := filepath.Join(dir, "out.vec")
	ngramsOf("0", "--outputs-out", outputs)
	o, err := model.LoadEmbeddings(outputs)
	if err != nil {
		t.Fatal(err)
	}
	if w, err := model.LoadEmbeddings(out); err != nil || !slices.Equal(o.Words, w.Words) || o.Dim != w.Dim {
		t.Errorf("--outputs-out: %d words of dimension %d, want --out's (err %v)", o.Len(), o.Dim, err)
	}
	if d := distinct(o); d < o.Len()/2 {
		t.Errorf("--outputs-out: %d distinct vectors for %d words: not trained", d, o.Len())
	}
	// Held words (--hold-forms) are written one a line, all frequent enough,
	// and the n-grams only they have are left out of the table.
	held := filepath.Join(dir, "held.txt")
	countsPath := filepath.Join(dir, "counts.txt")
	withHeld := ngramsOf("0", "--hold-forms", "0.6", "--hold-min-count", "20", "--held-words-out", held, "--counts-out", countsPath)
	heldWords, err := os.ReadFile(held)
	if err != nil {
		t.Fatal(err)
	}
	words := strings.Fields(string(heldWords))
	counts, err := model.LoadCounts(countsPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(words) == 0 {
		t.Fatal("--hold-forms 0.6 held no word")
	}
	for _, w := range words {
		if counts[w] < 20 {
			t.Errorf("held word %q has %d occurrences, below --hold-min-count 20", w, counts[w])
		}
	}
	if withHeld.Len() >= exact.Len() {
		t.Errorf("with held words the table has %d n-grams, without %d: want the held words' own left out", withHeld.Len(), exact.Len())
	}
	// Rows started at zero (--ngram-init zero) make the n-grams found in the
	// same words only equal: they get the same updates from the same start.
	if zero := ngramsOf("0", "--ngram-init", "zero"); distinct(zero) >= zero.Len() {
		t.Errorf("--ngram-init zero: %d distinct vectors for %d n-grams, want n-grams of one word equal", distinct(zero), zero.Len())
	}
	for _, args := range [][]string{
		{"--corpus", corpusPath, "--out", out, "--ngrams-out", ngrams},              // no --maxn
		{"--corpus", corpusPath, "--out", out, "--maxn", "6", "--ngrams-out", out},  // same file
		{"--corpus", corpusPath, "--out", out, "--outputs-out", ngrams},             // no --maxn
		{"--corpus", corpusPath, "--out", out, "--maxn", "6", "--outputs-out", out}, // same file
		{"--corpus", corpusPath, "--out", out, "--maxn", "6", "--ngrams-out", ngrams, "--outputs-out", ngrams},
		{"--corpus", corpusPath, "--out", out, "--maxn", "6", "--bucket", "-1"}, // negative buckets
		{"--corpus", corpusPath, "--out", out, "--maxn", "3", "--minn", "4"},    // minn > maxn
		{"--corpus", corpusPath, "--out", out, "--maxn", "6", "--ngrams-out", ngrams, "--ngrams-max", "-1"},
		{"--corpus", corpusPath, "--out", out, "--maxn", "6", "--ngram-init", "gauss"}, // unknown initialisation
		{"--corpus", corpusPath, "--out", out, "--ngram-init", "zero"},                 // no --maxn
		{"--corpus", corpusPath, "--out", out, "--hold-forms", "0.5"},                  // no --maxn
		{"--corpus", corpusPath, "--out", out, "--maxn", "5", "--hold-forms", "1"},
		{"--corpus", corpusPath, "--out", out, "--maxn", "5", "--hold-forms", "0.5", "--hold-min-count", "0"},
		{"--corpus", corpusPath, "--out", out, "--maxn", "5", "--held-words-out", ngrams}, // no --hold-forms
		{"--corpus", corpusPath, "--out", out, "--maxn", "5", "--hold-forms", "0.5", "--held-words-out", out},
	} {
		if _, err := runCmd(context.Background(), args...); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%q: err = %v, want a usage error", args, err)
		}
	}
}

// TestTrainEmbeddingsOutMinCount checks that --out-min-count writes only the
// frequent words while the rarer ones still train: the n-gram table is the
// one of every word with --min-count occurrences.
func TestTrainEmbeddingsOutMinCount(t *testing.T) {
	dir := t.TempDir()
	text, err := os.ReadFile(morphCorpus(t, 400))
	if err != nil {
		t.Fatal(err)
	}
	// Two rare words, 3 and 2 occurrences, below --out-min-count 4, and one
	// seen exactly 4 times, kept.
	text = append(text, "zorkquux ctxa1 zorkquux ctxa2 zorkquux blimfrob ctxb3 blimfrob\n"...)
	text = append(text, "blimwug ctxb1 blimwug ctxb2 blimwug ctxb4 blimwug\n"...)
	corpusPath := filepath.Join(dir, "corpus.txt")
	if err := os.WriteFile(corpusPath, text, 0o644); err != nil {
		t.Fatal(err)
	}
	out, ngrams, counts := filepath.Join(dir, "sw.vec"), filepath.Join(dir, "ng.vec"), filepath.Join(dir, "c.txt")
	run := func(extra ...string) (*model.Embeddings, *model.Embeddings) {
		args := append([]string{"--corpus", corpusPath, "--out", out, "--ngrams-out", ngrams, "--counts-out", counts,
			"--dim", "8", "--min-count", "2", "--epochs", "1", "--threads", "1", "--maxn", "5"}, extra...)
		if stderr, err := runCmd(context.Background(), args...); err != nil {
			t.Fatalf("%q: %v\n%s", extra, err, stderr)
		}
		e, err := model.LoadEmbeddings(out)
		if err != nil {
			t.Fatal(err)
		}
		g, err := model.LoadEmbeddings(ngrams)
		if err != nil {
			t.Fatal(err)
		}
		return e, g
	}
	all, allGrams := run()
	kept, keptGrams := run("--out-min-count", "4")
	cnt, err := model.LoadCounts(counts)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, w := range all.Words {
		if cnt[w] >= 4 {
			want++
		}
	}
	if want != all.Len()-2 || cnt["zorkquux"] != 3 || cnt["blimfrob"] != 2 || cnt["blimwug"] != 4 {
		t.Fatalf("corpus has %d of %d words with ≥ 4 occurrences, zorkquux %d, blimfrob %d, blimwug %d: want all but the two rare words",
			want, all.Len(), cnt["zorkquux"], cnt["blimfrob"], cnt["blimwug"])
	}
	if kept.Len() != want || !slices.Equal(kept.Words, all.Words[:want]) || !slices.Contains(kept.Words, "blimwug") {
		t.Errorf("--out-min-count 4 wrote %d words, want the %d with ≥ 4 occurrences", kept.Len(), want)
	}
	// One thread: both runs train the same vectors, so the kept ones are equal
	// to the first rows of the full output, and the n-gram tables are equal
	// (the rare words trained in both).
	if !slices.Equal(kept.Vectors, all.Vectors[:want*all.Dim]) {
		t.Error("--out-min-count 4: the written vectors differ from the same words' vectors without it")
	}
	if !slices.Equal(keptGrams.Words, allGrams.Words) || !slices.Equal(keptGrams.Vectors, allGrams.Vectors) ||
		!slices.Contains(keptGrams.Words, "quux>") || !slices.Contains(keptGrams.Words, "frob>") {
		t.Errorf("--out-min-count changed the n-gram table or lost the rare words' n-grams: %d n-grams, want %d", keptGrams.Len(), allGrams.Len())
	}
	for _, bad := range [][]string{{"--min-count", "2", "--out-min-count", "2"}, {"--out-min-count", "-1"}} {
		args := append([]string{"--corpus", corpusPath, "--out", out}, bad...)
		if _, err := runCmd(context.Background(), args...); !errors.Is(err, cli.ErrUsage) || !strings.Contains(err.Error(), "--out-min-count") {
			t.Errorf("%q: err = %v, want a usage error naming --out-min-count", bad, err)
		}
	}
	// Words-only training keeps the same words.
	if stderr, err := runCmd(context.Background(), "--corpus", corpusPath, "--out", out, "--dim", "8", "--min-count", "2",
		"--epochs", "1", "--threads", "1", "--out-min-count", "4"); err != nil {
		t.Fatalf("words only: %v\n%s", err, stderr)
	}
	if e, err := model.LoadEmbeddings(out); err != nil || !slices.Equal(e.Words, kept.Words) {
		t.Errorf("words only, --out-min-count 4: err %v, want the %d words of subword training", err, want)
	}
	// Found before training: no output is written.
	os.Remove(out)
	_, err = runCmd(context.Background(), "--corpus", corpusPath, "--out", out, "--dim", "8", "--epochs", "1", "--out-min-count", "1000000")
	if err == nil || !strings.Contains(err.Error(), "no word of corpus") || !strings.Contains(err.Error(), "--out-min-count 1000000") {
		t.Errorf("--out-min-count 1000000: err = %v, want \"--out-min-count 1000000: no word of corpus …\"", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--out-min-count 1000000: %s written (stat: %v)", out, err)
	}
}

// --counts-out spelt through a symbolic link to --out's directory is the
// same file as --out: refused (outpath.SamePath, tested in its package).
func TestCountsOutThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	file := filepath.Join(dir, "x.vec")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The command refuses it: --counts-out through the link overwrites --out.
	_, err := runCmd(context.Background(), "--corpus", file, "--out", file, "--counts-out", filepath.Join(link, "x.vec"))
	if !errors.Is(err, cli.ErrUsage) || !strings.Contains(err.Error(), "same file") {
		t.Errorf("--counts-out through a symlink to --out: err = %v, want a usage error", err)
	}
}

// train-embeddings creates a missing --out directory, as train does, and
// takes --quiet, as train does: no progress at all on stderr, only log lines.
// Without it, progress to a file (not a terminal) comes as whole lines,
// never blank ones.
func TestTrainEmbeddingsOutDirAndQuiet(t *testing.T) {
	corpusPath := topicCorpus(t, 300)
	dir := t.TempDir()
	out := filepath.Join(dir, "new", "sub", "e.vec")
	args := []string{"--corpus", corpusPath, "--out", out, "--dim", "8", "--min-count", "2", "--epochs", "1",
		"--threads", "1"}
	stderr, err := runCmd(context.Background(), append(args, "--quiet")...)
	if err != nil {
		t.Fatalf("--out in a missing directory: %v\n%s", err, stderr)
	}
	if _, err := model.LoadEmbeddings(out); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if !strings.HasPrefix(line, "time=") {
			t.Errorf("--quiet: stderr line %q is not a log line", line)
		}
	}
	stderr, err = runCmd(context.Background(), args...)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stderr, "\n\n") || strings.Contains(stderr, "\r") || !strings.Contains(stderr, "reading corpus:") {
		t.Errorf("progress to a file: %q, want whole lines, no blank ones", stderr)
	}
}
