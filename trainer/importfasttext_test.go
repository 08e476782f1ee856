package trainer

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/internal/testfasttext"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/fasttext"
)

// import-fasttext writes files that train reads, whose n-gram table gives a
// word fastText never saw fastText's own vector for it when the words kept
// hold each of its n-grams: AM's form starts where fastText's vector is.
func TestImportFastText(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "ft.bin")
	sm := testfasttext.Model{Dim: 3, MinN: 3, MaxN: 3, Bucket: 5000, Words: []string{"</s>", "abc", "bcd", "xy"},
		Counts: []int64{7, 6, 5, 4}}
	if err := os.WriteFile(bin, testfasttext.Bin(sm), 0o644); err != nil {
		t.Fatal(err)
	}
	out, ng, counts := filepath.Join(dir, "w.bin"), filepath.Join(dir, "ng.bin"), filepath.Join(dir, "c.txt")
	var stderr bytes.Buffer
	env := cli.Env{Args: []string{"--fasttext", bin, "--out", out, "--ngrams-out", ng, "--counts-out", counts},
		Stdout: &bytes.Buffer{}, Stderr: &stderr}
	if err := runImportFastText(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	words, err := model.LoadEmbeddings(out)
	if err != nil || words.Len() != 3 || words.Words[0] != "abc" {
		t.Fatalf("word vectors: %v, %v", words, err)
	}
	c, err := model.LoadCounts(counts)
	if err != nil || c["abc"] != 6 || c["xy"] != 4 || len(c) != 3 {
		t.Fatalf("counts %v, %v", c, err)
	}
	table, err := model.LoadEmbeddings(ng)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := model.FastTextConfigOf(table.Words)
	if err != nil || cfg.MinN != 3 || cfg.MaxN != 3 {
		t.Fatalf("n-gram table's configuration %+v, %v", cfg, err)
	}
	ft, err := fasttext.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer ft.Close()
	want := make([]float32, 3)
	if ok, err := ft.FormVector(want, "abcd"); !ok || err != nil {
		t.Fatal(ok, err)
	}
	got := make([]float32, 3)
	grams := cfg.AppendNgrams(nil, "abcd")
	for _, g := range grams {
		id, ok := table.ID(g)
		if !ok {
			t.Fatalf("n-gram %q of abcd missing from the table %v", g, table.Words)
		}
		for k, x := range table.Row(id) {
			got[k] += x / float32(len(grams))
		}
	}
	for k := range want {
		if d := got[k] - want[k]; d > 1e-3 || d < -1e-3 {
			t.Fatalf("the table's form of abcd %v, fastText's %v", got, want)
		}
	}
	if !strings.Contains(stderr.String(), "n-gram vectors") {
		t.Errorf("stderr %q", stderr.String())
	}
}

// Each refusal names what is wrong, before anything is written.
func TestImportFastTextRefusals(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "ft.bin")
	sm := testfasttext.Model{Dim: 2, MinN: 3, MaxN: 3, Bucket: 10, Words: []string{"ab"}, Counts: []int64{3}}
	if err := os.WriteFile(bin, testfasttext.Bin(sm), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "w.bin")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", out}, "--fasttext is required"},
		{[]string{"--fasttext", bin}, "--out is required"},
		{[]string{"--fasttext", bin, "--out", out}, "--ngrams-out is required"},
		{[]string{"--fasttext", bin, "--out", bin, "--ngrams-out", filepath.Join(dir, "n")}, "--fasttext"},
		{[]string{"--fasttext", bin, "--out", out, "--ngrams-out", out}, "--ngrams-out"},
		{[]string{"--fasttext", bin, "--out", out, "--format", "csv"}, `--format "csv"`},
		{[]string{"--fasttext", bin, "--out", out, "--max-words", "-1"}, "--max-words -1"},
		{[]string{"--fasttext", bin, "--out", out, "extra"}, "unexpected arguments"},
		{[]string{"--fasttext", filepath.Join(dir, "none.bin"), "--out", out, "--ngrams-out", filepath.Join(dir, "n")},
			"none.bin"},
		{[]string{"--fasttext", out + ".x", "--out", out, "--ngrams-out", filepath.Join(dir, "n")}, "w.bin.x"},
	} {
		if c.args[1] == out+".x" {
			if err := os.WriteFile(c.args[1], []byte("not a model"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		env := cli.Env{Args: c.args, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
		err := runImportFastText(context.Background(), env)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error naming %q", c.args, err, c.want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused run wrote %s (%v)", out, err)
	}
}

// fastText splits words at ASCII white space only: its dictionary holds words
// with a no-break space or a line separator, capitalized words and words with
// punctuation. import-fasttext keeps the words AM can meet, the tokens of its
// tokenizer ("The" counted as "the"), so that train reads every file it
// writes.
func TestImportFastTextKeepsTokens(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "ft.bin")
	sm := testfasttext.Model{Dim: 2, MinN: 3, MaxN: 3, Bucket: 100,
		Words:  []string{"</s>", "the", "caf\u00a0e", "The", "dog,", "x\u2028y", "fé", "x\x1fy"},
		Counts: []int64{9, 8, 7, 6, 5, 4, 3, 2}}
	if err := os.WriteFile(bin, testfasttext.Bin(sm), 0o644); err != nil {
		t.Fatal(err)
	}
	out, ng, counts := filepath.Join(dir, "w.bin"), filepath.Join(dir, "ng.bin"), filepath.Join(dir, "c.txt")
	env := cli.Env{Args: []string{"--fasttext", bin, "--out", out, "--ngrams-out", ng, "--counts-out", counts},
		Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	if err := runImportFastText(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	c, err := model.LoadCounts(counts)
	if err != nil || len(c) != 2 || c["the"] != 14 || c["fé"] != 3 {
		t.Fatalf("counts %v, %v; want the 14, fé 3", c, err)
	}
	words, err := model.LoadEmbeddings(out)
	if err != nil || !slices.Equal(words.Words, []string{"the", "fé"}) {
		t.Fatalf("word vectors %v, %v", words, err)
	}
	table, err := model.LoadEmbeddings(ng)
	if err != nil || !slices.Equal(table.Words, []string{"<th", "he>", "the", "<fé", "fé>"}) {
		t.Errorf("n-grams %v, %v", table, err)
	}
}

// --ngrams-max N writes the first N rows of the whole table: those train
// --ngram-max N keeps of it.
func TestImportFastTextNgramsMax(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "ft.bin")
	sm := testfasttext.Model{Dim: 2, MinN: 3, MaxN: 4, Bucket: 1000, Words: []string{"kernel", "kernels", "shell"},
		Counts: []int64{9, 4, 3}}
	if err := os.WriteFile(bin, testfasttext.Bin(sm), 0o644); err != nil {
		t.Fatal(err)
	}
	tables := make([]*model.Embeddings, 2)
	for i, n := range []string{"0", "3"} {
		out, ng := filepath.Join(dir, "w"+n), filepath.Join(dir, "ng"+n)
		env := cli.Env{Args: []string{"--fasttext", bin, "--out", out, "--ngrams-out", ng, "--ngrams-max", n},
			Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
		if err := runImportFastText(context.Background(), env); err != nil {
			t.Fatal(err)
		}
		var err error
		if tables[i], err = model.LoadEmbeddings(ng); err != nil {
			t.Fatal(err)
		}
	}
	all, cut := tables[0], tables[1]
	if all.Len() <= 3 || !slices.Equal(cut.Words, all.Words[:3]) || !slices.Equal(cut.Vectors, all.Vectors[:3*2]) {
		t.Errorf("--ngrams-max 3: %v, want the first 3 of %v", cut.Words, all.Words)
	}
	env := cli.Env{Args: []string{"--fasttext", bin, "--out", filepath.Join(dir, "x"), "--ngrams-max", "-1"},
		Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	if err := runImportFastText(context.Background(), env); err == nil || !strings.Contains(err.Error(), "--ngrams-max -1") {
		t.Errorf("--ngrams-max -1: %v", err)
	}
}
