package amtrain

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/defaultmodel"
	"github.com/text2vec-am/text2vec-am/internal/lines"
	"github.com/text2vec-am/text2vec-am/model"
)

func TestInferFormatErrors(t *testing.T) {
	s := newSynth(t, 300)
	d := s.data(t)
	o := smallOptions()
	o.Epochs = 1
	m := train(t, d, o).Model
	w := s.words[0]
	cases := map[string]struct{ in, want string }{
		"empty word":    {"\tsome context\n", "in.tsv:1: the word (before the first tab) is empty"},
		"space in word": {w + " " + w + " context\n", "in.tsv:1: the word"},
		"empty context": {"ok\t" + w + "\n\nbad\t" + w + "\t\n", "in.tsv:3: context 2 of \"bad\" is empty"},
		"duplicate":     {"a\t" + w + "\nb\t" + w + "\na\t" + w + "\n", "in.tsv:3: word \"a\" already given on line 1"},
		"bad utf-8":     {"ok\t" + w + "\nb\xff\tx\n", "in.tsv:2: not valid UTF-8"},
		"empty input":   {"\n\n", "no words"},
		"NUL in word":   {"ok\t" + w + "\nb\x00d\t" + w + "\n", "in.tsv:2: word \"b\\x00d\" contains white space or NUL"},
		"word too long": {strings.Repeat("x", model.MaxWordBytes+1) + "\t" + w + "\n", "in.tsv:1: word of"},
	}
	for name, c := range cases {
		var out bytes.Buffer
		_, err := Infer(m, strings.NewReader(c.in), "in.tsv", &out)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", name, err, c.want)
		}
	}
	// A line over MaxInferLineBytes is refused, naming it, without reading it whole.
	long := "w\t" + strings.Repeat("x", MaxInferLineBytes)
	if _, err := Infer(m, strings.NewReader("ok\t"+w+"\n"+long), "in.tsv", io.Discard); !errors.Is(err, lines.ErrTooLong) || !strings.Contains(err.Error(), "in.tsv:2:") {
		t.Errorf("a line too long: err = %v, want lines.ErrTooLong naming in.tsv:2", err)
	}
	// Valid: contexts with only unknown words are counted, the word keeps its spelling.
	var out bytes.Buffer
	st, err := Infer(m, strings.NewReader("MyWord\tqqq rrr\t"+w+"\r\n"+w+"\n"), "in.tsv", &out)
	if err != nil {
		t.Fatal(err)
	}
	if st.Words != 2 || st.Contexts != 2 || st.EmptyContexts != 1 {
		t.Errorf("stats %+v", st)
	}
	rows := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(rows) != 3 || rows[0] != "2 16" || !strings.HasPrefix(rows[1], "MyWord ") || len(strings.Fields(rows[1])) != 17 {
		t.Errorf("output %q", out.String())
	}
}

func runTrainArgs(t *testing.T, args ...string) error {
	t.Helper()
	var stdout, stderr bytes.Buffer
	return runTrain(context.Background(), cli.Env{Args: append(args, "--quiet"), Stdout: &stdout, Stderr: &stderr})
}

func TestTrainFlagErrors(t *testing.T) {
	s := newSynth(t, 300)
	out := filepath.Join(s.dir, "m.am")
	ok := []string{"--corpus", s.corpus, "--embeddings", s.embeddings, "--out", out, "--min-count-train", "20", "--epochs", "1"}
	usage := map[string][]string{
		"no corpus":        {"--embeddings", s.embeddings, "--out", out},
		"no embeddings":    {"--corpus", s.corpus, "--out", out},
		"no out":           {"--corpus", s.corpus, "--embeddings", s.embeddings},
		"bad mode":         append(ok, "--mode", "xyz"),
		"bad storage":      append(ok, "--storage", "int2"),
		"bad base storage": append(ok, "--bundle-out", out+".b", "--base-storage", "int3"),
		"base, no bundle":  append(ok, "--base-storage", "int8"),
		"zero epochs":      append(ok, "--epochs", "0"),
		"negative batch":   append(ok, "--batch", "-1"),
		"bad lr":           append(ok, "--lr", "0"),
		"nan lr":           append(ok, "--lr", "NaN"),
		"zero threads":     append(ok, "--threads", "0"),
		"bad number":       append(ok, "--epochs", "five"),
		"positional":       append(ok, "extra"),
		"include-missing":  append(ok, "--include-missing", "maybe"),
		"empty corpus arg": {"--corpus", s.corpus + ",", "--embeddings", s.embeddings, "--out", out},
		"negative holdout": append(ok, "--holdout", "-3"),
		"bad n-grams":      append(ok, "--nmin", "4", "--nmax", "3"),
		"ngram-max alone":  append(ok, "--ngram-max", "10"),
		"ngrams-space":     append(ok, "--ngrams-space", s.embeddings),
		"negative max":     append(ok, "--ngrams", s.embeddings, "--ngram-max", "-1"),
		"negative scale":   append(ok, "--ngram-lr-scale", "-0.5"),
		"form share alone": append(ok, "--form-share", "0.5"),
		"form share > 1":   append(ok, "--shared-form", "--form-share", "1.5"),
		"form share NaN":   append(ok, "--shared-form", "--form-share", "NaN"),
	}
	for name, args := range usage {
		err := runTrainArgs(t, args...)
		if !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%s: err = %v, want a usage error", name, err)
		}
	}
	dir := s.dir
	badEmb := writeFile(t, dir, "bad.vec", "2 3\nword 0.1 0.2 zzz\n")
	shortEmb := writeFile(t, dir, "short.vec", "2 3\nword 0.1 0.2 0.3\nother 0.1\n")
	badCounts := writeFile(t, dir, "bad.counts", "the 10\nword many\n")
	n := 0
	include := func(content string) string {
		n++
		return writeFile(t, dir, "inc"+strconv.Itoa(n)+".txt", content)
	}
	inputErrs := map[string]struct {
		args []string
		want string
	}{
		"malformed embeddings":  {[]string{"--corpus", s.corpus, "--embeddings", badEmb, "--out", out}, "bad.vec"},
		"ragged embeddings":     {[]string{"--corpus", s.corpus, "--embeddings", shortEmb, "--out", out}, "short.vec"},
		"missing embeddings":    {[]string{"--corpus", s.corpus, "--embeddings", filepath.Join(dir, "none.vec"), "--out", out}, "none.vec"},
		"missing corpus":        {[]string{"--corpus", filepath.Join(dir, "none.txt"), "--embeddings", s.embeddings, "--out", out}, "none.txt"},
		"malformed counts":      {append(ok, "--counts", badCounts), "bad.counts"},
		"missing counts":        {append(ok, "--counts", filepath.Join(dir, "none.counts")), "none.counts"},
		"include unknown":       {append(ok, "--include", include(s.words[0]+"\nnotaword\n")), "inc1.txt:2: \"notaword\" has no base embedding"},
		"include two tokens":    {append(ok, "--include", include("two words\n")), "inc2.txt:1: \"two words\" is not a single word"},
		"include empty":         {append(ok, "--include", include("# nothing\n\n")), "no usable words"},
		"include missing file":  {append(ok, "--include", filepath.Join(dir, "none.inc")), "none.inc"},
		"resume garbage":        {append(ok, "--resume", badCounts), "not a text2vec-am checkpoint"},
		"missing ngrams":        {append(ok, "--ngrams", filepath.Join(dir, "none.ng")), "none.ng"},
		"malformed ngrams":      {append(ok, "--ngrams", badEmb), "bad.vec"},
		"ngrams of another dim": {append(ok, "--ngrams", shortEmb), "short.vec"},
	}
	for name, c := range inputErrs {
		err := runTrainArgs(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", name, err, c.want)
		}
	}
	// --include-missing skip keeps going with the known words.
	if err := runTrainArgs(t, append(ok, "--include", include(s.words[0]+"\nnotaword\n"), "--include-missing", "skip")...); err != nil {
		t.Errorf("include with skip: %v", err)
	}
}

func TestInferFlagErrors(t *testing.T) {
	var stdout, stderr bytes.Buffer
	for name, args := range map[string][]string{
		"empty input": {"--model", "x", "--input", "", "--out", "y"},
		"empty out":   {"--model", "x", "--input", "y", "--out", ""},
		"positional":  {"--model", "x", "--input", "y", "--out", "z", "extra"},
	} {
		err := runInfer(context.Background(), cli.Env{Args: args, Stdout: &stdout, Stderr: &stderr})
		if !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%s: err = %v, want a usage error", name, err)
		}
	}
	err := runInfer(context.Background(), cli.Env{Args: []string{"--model", "/nonexistent.am", "--input", "y", "--out", "z"}, Stdout: &stdout, Stderr: &stderr})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent.am") {
		t.Errorf("missing model: %v", err)
	}
	dir := t.TempDir()
	err = runInfer(context.Background(), cli.Env{Args: []string{"--model", dir}, Stdout: &stdout, Stderr: &stderr})
	if err == nil || !strings.Contains(err.Error(), "it is a directory") {
		t.Errorf("--model DIR: %v, want an error saying it is a directory", err)
	}
}

// TestInferDefaultsToTheDefaultModelAndStdio: with no flags (or --model
// default) infer reads stdin and writes word2vec text to stdout, as
// fastText's print-word-vectors does.
func TestInferDefaultsToTheDefaultModelAndStdio(t *testing.T) {
	dm, err := defaultmodel.Load()
	if err != nil {
		t.Skipf("no embedded default model: %v", err)
	}
	in := "kubernetes\tdeploy the kubernetes cluster with helm\tthe kubernetes pods restart\nnftablesd\n"
	for _, args := range [][]string{nil, {"--model", "default"}, {"--model", "default", "--input", "-", "--out", "-"}} {
		var stdout, stderr bytes.Buffer
		env := cli.Env{Args: args, Stdin: strings.NewReader(in), Stdout: &stdout, Stderr: &stderr}
		if err := runInfer(context.Background(), env); err != nil {
			t.Fatalf("infer %q: %v", args, err)
		}
		e, err := model.ReadEmbeddings(&stdout, "stdout")
		if err != nil {
			t.Fatalf("infer %q: output is not word2vec text: %v", args, err)
		}
		if e.Len() != 2 || e.Words[0] != "kubernetes" || e.Words[1] != "nftablesd" || e.Dim != dm.Dim {
			t.Errorf("infer %q: %d words %v of dim %d, want kubernetes and nftablesd of dim %d", args, e.Len(), e.Words, e.Dim, dm.Dim)
		}
	}
}

// A mode without a form (context, fcm-context) refuses every flag that only
// a form uses, naming the mode, the flags and why; --count-buckets, which
// needs a gate, names both flags too.
func TestTrainFormFlagsNeedAForm(t *testing.T) {
	s := newSynth(t, 300)
	out := filepath.Join(s.dir, "m.am")
	ok := []string{"--corpus", s.corpus, "--embeddings", s.embeddings, "--out", out, "--min-count-train", "20", "--epochs", "1"}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--mode", "context", "--shared-form"}, []string{"--mode context", "--shared-form", "only applies to a model with a form"}},
		{[]string{"--mode", "fcm-context", "--shared-form", "--form-share", "0.5"}, []string{"--mode fcm-context", "--shared-form and --form-share"}},
		{[]string{"--mode", "context", "--form-share", "0.5"}, []string{"--mode context", "--form-share"}},
		{[]string{"--mode", "context", "--ngrams", s.embeddings}, []string{"--mode context", "--ngrams"}},
		{[]string{"--mode", "context", "--ngrams", s.embeddings, "--ngram-max", "5", "--ngrams-space", s.embeddings}, []string{"--ngrams, --ngrams-space and --ngram-max"}},
		{[]string{"--mode", "context", "--ngram-lr-scale", "0"}, []string{"--mode context", "--ngram-lr-scale"}},
		{[]string{"--mode", "context", "--count-buckets", "2"}, []string{"--count-buckets 2", "--mode context has no gate"}},
		{[]string{"--mode", "form", "--count-buckets", "2"}, []string{"--count-buckets 2", "--mode form has no gate"}},
	} {
		err := runTrainArgs(t, append(ok, c.args...)...)
		if !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%q: err = %v, want a usage error", c.args, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: err = %v, want it to say %q", c.args, err, w)
			}
		}
	}
}

// An output that is an input (or the other output, or a directory) is
// refused before any work, and the input is left as it was: training used
// to end by overwriting it (--out equal to --embeddings, --resume, --counts
// or a --corpus file) or fail only after training (--out a directory).
func TestTrainRefusesOutputOverInput(t *testing.T) {
	s := newSynth(t, 300)
	counts := writeFile(t, s.dir, "c.counts", s.words[0]+" 10\n")
	ck := writeFile(t, s.dir, "old.ckpt", "not a checkpoint")
	out := filepath.Join(s.dir, "m.am")
	base := []string{"--embeddings", s.embeddings, "--min-count-train", "20", "--epochs", "1"}
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"out is embeddings":  {[]string{"--corpus", s.corpus, "--out", s.embeddings}, "is the input --embeddings"},
		"out is corpus":      {[]string{"--corpus", s.corpus, "--out", s.corpus}, "is the --corpus file"},
		"out is counts":      {[]string{"--corpus", s.corpus, "--counts", counts, "--out", counts}, "is the input --counts"},
		"out is resume":      {[]string{"--corpus", s.corpus, "--resume", ck, "--out", ck}, "is the input --resume"},
		"bundle is out":      {[]string{"--corpus", s.corpus, "--out", out, "--bundle-out", out}, "is also --out"},
		"bundle is ckpt":     {[]string{"--corpus", s.corpus, "--out", out, "--bundle-out", out + ".ckpt"}, "the checkpoint"},
		"out is a directory": {[]string{"--corpus", s.corpus, "--out", s.dir}, "is a directory"},
	} {
		before := map[string][]byte{}
		for _, p := range []string{s.embeddings, s.corpus, counts, ck} {
			before[p], _ = os.ReadFile(p)
		}
		err := runTrainArgs(t, append(base, c.args...)...)
		if !errors.Is(err, cli.ErrUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want a usage error containing %q", name, err, c.want)
		}
		for p, b := range before {
			if now, _ := os.ReadFile(p); !bytes.Equal(now, b) {
				t.Fatalf("%s: input %s was changed", name, p)
			}
		}
	}
}

// TestInferRefusesOutputThatIsAnInput: an --out that is the --input, --model
// or --embeddings file (spelt otherwise too) is refused before the model is
// read, naming both flags, and the file is left as it was.
func TestInferRefusesOutputThatIsAnInput(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for _, name := range []string{"in.txt", "m.am", "e.vec"} {
		files[name] = writeFile(t, dir, name, "contents of "+name+"\n")
	}
	args := []string{"--model", files["m.am"], "--embeddings", files["e.vec"], "--input", files["in.txt"]}
	for out, want := range map[string]string{
		files["in.txt"]:                        "--out " + files["in.txt"] + " is the input --input",
		filepath.Join(dir, ".", "m.am"):        "is the input --model",
		filepath.Join(dir, "x", "..", "e.vec"): "is the input --embeddings",
		dir:                                    "is a directory",
	} {
		var stdout, stderr bytes.Buffer
		err := runInfer(context.Background(), cli.Env{Args: append(args, "--out", out), Stdout: &stdout, Stderr: &stderr})
		if !errors.Is(err, cli.ErrUsage) || !strings.Contains(err.Error(), want) {
			t.Errorf("--out %s: err = %v, want a usage error saying %q", out, err, want)
		}
	}
	for name, p := range files {
		if b, err := os.ReadFile(p); err != nil || string(b) != "contents of "+name+"\n" {
			t.Errorf("%s changed: %q, %v", name, b, err)
		}
	}
}
