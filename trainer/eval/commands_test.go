package eval

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/eval/retrieval"
)

// run runs "eval args…" and returns stdout, stderr and the error.
func run(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := Commands()[0].Run(context.Background(), cli.Env{Args: args, Stdout: &out, Stderr: &errb})
	return out.String(), errb.String(), err
}

// tinyEmbeddings writes a small word2vec text file with counts and returns its path.
func tinyEmbeddings(t *testing.T) (string, string) {
	t.Helper()
	words := []string{"the", "music", "food", "guitar", "bread", "linux", "kernel", "driver"}
	vecs := [][]float32{{1, 1, 0}, {1, 0, 0}, {0, 1, 0}, {0.9, 0.1, 0}, {0.1, 0.9, 0}, {0, 0, 1}, {0, 0.2, 1}, {0.1, 0, 1}}
	var flat []float32
	for _, v := range vecs {
		flat = append(flat, v...)
	}
	e, err := model.NewEmbeddings(3, words, flat, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "emb.vec")
	if err := model.SaveEmbeddings(p, e, false); err != nil {
		t.Fatal(err)
	}
	counts := filepath.Join(dir, "counts.txt")
	if err := os.WriteFile(counts, []byte("the 1000\nmusic 50\nfood 50\nguitar 10\nbread 10\nlinux 40\nkernel 40\ndriver 20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, counts
}

func TestEvalUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "missing task"},
		{[]string{"nosuch"}, `unknown task "nosuch"`},
		{[]string{"wordsim", "x.txt"}, "give --embeddings, --fasttext and/or --subwords"},
		{[]string{"wordsim", "--embeddings", "e.vec"}, "no word-pair files"},
		{[]string{"chimeras", "--embeddings", "e.vec", "--stopwords", "-1", "c.txt"}, "--stopwords must be ≥ 0"},
		{[]string{"retrieval", "--embeddings", "e.vec", "d.jsonl"}, "want DOCS and QUERIES"},
		{[]string{"retrieval", "--alpha", "2", "d", "q"}, "--alpha"},
		{[]string{"retrieval", "--model", "m.am", "--opaque-words", "d", "q"}, "--opaque-words needs --embeddings"},
		{[]string{"vecmap", "--corpus", "c"}, "--work-dir are required"},
		{[]string{"vecmap", "--corpus", "c", "--work-dir", "w", "--models", "am,bogus"}, `unknown model "bogus"`},
		{[]string{"sentiment", "--embeddings", "e"}, "is required"},
		{[]string{"rare-pairs", "--embeddings", "e", "p"}, "want PAIRS and CONTEXT_DIR"},
	} {
		_, _, err := run(t, c.args...)
		if !errors.Is(err, cli.ErrUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("eval %q: error = %v, want a usage error with %q", c.args, err, c.want)
		}
	}
}

func TestEvalWordSimCommand(t *testing.T) {
	emb, _ := tinyEmbeddings(t)
	pairs := writeFile(t, "ws.txt", "music guitar 9\nmusic bread 2\nfood bread 8\nfood zzz 5\n")
	out, _, err := run(t, "wordsim", "--embeddings", emb, pairs)
	if err != nil {
		t.Fatal(err)
	}
	// Covered: 3 pairs, cosines .99, .11, .99 vs 9, 2, 8: ranks 2.5,1,2.5 vs 3,1,2 → ρ 0.866.
	if !strings.Contains(out, "0.866 (3/4)") || !strings.Contains(out, "| ws ρ (covered) |") {
		t.Fatalf("output:\n%s", out)
	}
}

func TestEvalChimerasCommand(t *testing.T) {
	emb, counts := tinyEmbeddings(t)
	data := writeFile(t, "c.txt", "1\tthe ___ plays music @@ music the ___\tguitar,bread,kernel\t5,1,2\n"+
		"2\ta ___ of bread @@ the food ___\tbread,guitar,driver\t5,1,3\n")
	out, _, err := run(t, "chimeras", "--embeddings", emb, "--counts", counts, "--stopwords", "1", data)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "| 2 sent. |") || !strings.Contains(out, "additive − sw") {
		t.Fatalf("output:\n%s", out)
	}
}

func TestEvalRetrievalCommand(t *testing.T) {
	emb, counts := tinyEmbeddings(t)
	docs := writeFile(t, "d.jsonl", `{"id":"a","text":"The linux kernel driver."}`+"\n"+`{"id":"b","text":"Music for guitar."}`+"\n"+`{"id":"c","text":"Bread and food."}`+"\n")
	qs := writeFile(t, "q.jsonl", `{"id":"q1","text":"kernel","relevant":["a"]}`+"\n"+`{"id":"q2","text":"guitar music","relevant":["b"]}`+"\n")
	out, _, err := run(t, "retrieval", "--embeddings", emb, "--counts", counts, docs, qs)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| BM25 ", "| dense base only ", "hybrid relative BM25 + dense base only (α 0.5)"} {
		if !strings.Contains(out, want) {
			t.Fatalf("output lacks %q:\n%s", want, out)
		}
	}
	// Both queries find their document first with BM25 and with the base vectors.
	for _, line := range strings.Split(out, "\n")[2:4] {
		if !strings.Contains(line, "1.000 | 1.000 | 1.000 |") {
			t.Fatalf("line %q: want perfect scores", line)
		}
	}
}

// TestEvalRetrievalMemoryRows: with --model, a warm import reports dense AM
// with the memory empty and warmed side by side; a sequential import one row.
func TestEvalRetrievalMemoryRows(t *testing.T) {
	emb, counts := tinyEmbeddings(t)
	e, err := model.LoadEmbeddings(emb)
	if err != nil {
		t.Fatal(err)
	}
	cfg := model.Config{Dim: 3, Mode: model.ModeAM, Ngram: model.NgramConfig{MinN: 3, MaxN: 5, MinCount: 1}, Tokenizer: model.DefaultTokenizer()}
	m, err := model.New(cfg, model.BuildNgramVocab([]string{"zorbs", "zorb"}, cfg.Ngram), e, 1)
	if err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(t.TempDir(), "b.am")
	if err := m.SaveFile(bundle, model.SaveOptions{IncludeBase: true}); err != nil {
		t.Fatal(err)
	}
	docs := writeFile(t, "d.jsonl", `{"id":"a","text":"The zorb kernel driver."}`+"\n"+`{"id":"b","text":"Music for guitar zorbs."}`+"\n")
	qs := writeFile(t, "q.jsonl", `{"id":"q1","text":"kernel zorb","relevant":["a"]}`+"\n")
	rows := func(args ...string) []string {
		out, _, err := run(t, append(append([]string{"retrieval", "--counts", counts, "--model", bundle}, args...), docs, qs)...)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "| dense AM") {
				names = append(names, strings.TrimSpace(strings.Split(line, "|")[1]))
			}
		}
		return names
	}
	got := rows()
	if len(got) != 2 || !strings.HasSuffix(got[0], "memory empty") || !strings.HasSuffix(got[1], "memory warmed") {
		t.Errorf("warm import: dense AM rows %q, want memory empty then memory warmed", got)
	}
	if got := rows("--import", "sequential"); len(got) != 1 || strings.Contains(got[0], "memory") {
		t.Errorf("sequential import: dense AM rows %q, want one", got)
	}
}

// The usage of eval retrieval shows every model flag as optional: any one
// of them (--model default alone) makes a run.
func TestEvalRetrievalUsageShowsFlagsOptional(t *testing.T) {
	_, stderr, _ := run(t, "retrieval", "-h")
	synopsis, _, _ := strings.Cut(stderr, "\n\n")
	if !strings.HasPrefix(synopsis, "Usage: text2vec-am eval retrieval ") {
		t.Fatalf("usage = %q", stderr)
	}
	depth, outside := 0, strings.Builder{}
	for _, c := range synopsis {
		switch {
		case c == '[':
			depth++
		case c == ']':
			depth--
		case depth == 0:
			outside.WriteRune(c)
		}
	}
	if strings.Contains(outside.String(), "--") {
		t.Errorf("synopsis %q shows flags as required: %q", synopsis, outside.String())
	}
	for _, flag := range []string{"--embeddings", "--model", "--fasttext", "--subwords"} {
		if !strings.Contains(synopsis, flag) {
			t.Errorf("synopsis %q lacks %s", synopsis, flag)
		}
	}
}

// Queries in another shape ({"query", "relevant"}) are refused with an error
// naming the file, the line and the keys, not scored as empty queries.
func TestEvalRetrievalRefusesQueriesOfAnotherShape(t *testing.T) {
	emb, counts := tinyEmbeddings(t)
	docs := writeFile(t, "d.jsonl", `{"id":"a","text":"The linux kernel driver."}`+"\n")
	qs := writeFile(t, "q.jsonl", `{"query":"kernel","relevant":["a"]}`+"\n")
	out, _, err := run(t, "retrieval", "--embeddings", emb, "--counts", counts, docs, qs)
	if err == nil || !strings.Contains(err.Error(), qs+`:1: no "id" or "text" key (the line has "query", "relevant"`) {
		t.Fatalf("error = %v, want one naming %s:1 and its keys; output:\n%s", err, qs, out)
	}
}

// A weights file of another dimension than --embeddings is refused before
// any row is run.
func TestEvalRetrievalChecksModelDimensionFirst(t *testing.T) {
	emb, counts := tinyEmbeddings(t)
	e4, err := model.NewEmbeddings(4, []string{"kernel", "music"}, []float32{1, 0, 0, 0, 0, 1, 0, 0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := model.Config{Dim: 4, Mode: model.ModeAM, Ngram: model.NgramConfig{MinN: 3, MaxN: 5, MinCount: 1}, Tokenizer: model.DefaultTokenizer()}
	m, err := model.New(cfg, model.BuildNgramVocab([]string{"zorb"}, cfg.Ngram), e4, 1)
	if err != nil {
		t.Fatal(err)
	}
	weights := filepath.Join(t.TempDir(), "w.am")
	if err := m.SaveFile(weights, model.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	docs := writeFile(t, "d.jsonl", `{"id":"a","text":"The linux kernel driver."}`+"\n")
	qs := writeFile(t, "q.jsonl", `{"id":"q1","text":"kernel","relevant":["a"]}`+"\n")
	var logs bytes.Buffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	_, _, err = run(t, "retrieval", "--embeddings", emb, "--counts", counts, "--model", weights, docs, qs)
	if err == nil || !strings.Contains(err.Error(), weights) || !strings.Contains(err.Error(), "dimension") {
		t.Fatalf("error = %v, want one naming %s and the dimension", err, weights)
	}
	if strings.Contains(logs.String(), "msg=retrieval") {
		t.Errorf("rows were run before the model was checked:\n%s", logs.String())
	}
}

func TestVecMapStepSkipsDoneOutputs(t *testing.T) {
	dir := t.TempDir()
	r := &vecmapRun{dir: dir}
	out := r.path("x.txt")
	calls := 0
	fn := func() error { calls++; return os.WriteFile(out, []byte("x"), 0o644) }
	for i := 0; i < 2; i++ {
		if err := r.step(context.Background(), "x", []string{out}, fn); err != nil {
			t.Fatal(err)
		}
	}
	if calls != 1 {
		t.Fatalf("step ran %d times, want once (the second time its output exists)", calls)
	}
	failing := func() error { return errors.New("boom") }
	if err := r.step(context.Background(), "y", []string{r.path("y")}, failing); err == nil || !strings.Contains(err.Error(), "step y: boom") {
		t.Fatalf("error = %v", err)
	}
}

func TestBaseOnlyVectorizerDropsUnknownWords(t *testing.T) {
	emb, counts := tinyEmbeddings(t)
	e, err := model.LoadEmbeddings(emb)
	if err != nil {
		t.Fatal(err)
	}
	c, err := model.LoadCounts(counts)
	if err != nil {
		t.Fatal(err)
	}
	e.AttachCounts(c)
	v, opts, err := BaseOnlyVectorizer(e, vectorizer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	vec := AdapterVectorizer(v, opts)
	a, err := vec("music guitar")
	if err != nil {
		t.Fatal(err)
	}
	b, err := vec("music zzzunknown guitar qqq.")
	if err != nil {
		t.Fatal(err)
	}
	if model.Cosine(a, b) < 0.999999 {
		t.Fatalf("unknown words changed the vector: %v vs %v", a, b)
	}
	if none, err := vec("zzzunknown qqq"); err != nil || none != nil {
		t.Fatalf("only unknown words: %v, %v; want no vector and no error", none, err)
	}
}

func TestEvalWordSimOOVForm(t *testing.T) {
	emb, _ := tinyEmbeddings(t)
	e, err := model.LoadEmbeddings(emb)
	if err != nil {
		t.Fatal(err)
	}
	cfg := model.Config{Dim: 3, Mode: model.ModeAM, Ngram: model.NgramConfig{MinN: 3, MaxN: 5, MinCount: 1}, Tokenizer: model.DefaultTokenizer()}
	m, err := model.New(cfg, model.BuildNgramVocab([]string{"guitars", "guitar"}, cfg.Ngram), e, 1)
	if err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(t.TempDir(), "b.am")
	if err := m.SaveFile(bundle, model.SaveOptions{IncludeBase: true}); err != nil {
		t.Fatal(err)
	}
	pairs := writeFile(t, "ws.txt", "music guitar 9\nmusic bread 2\nfood bread 8\nfood guitars 5\n")
	out, _, err := run(t, "wordsim", "--embeddings", bundle, pairs)
	if err != nil || !strings.Contains(out, "(3/4)") {
		t.Fatalf("--oov none: %v\n%s", err, out)
	}
	// --oov form: "guitars" gets the form vector of the bundle's model; all 4 pairs scored.
	out, _, err = run(t, "wordsim", "--embeddings", bundle, "--oov", "form", pairs)
	if err != nil || !strings.Contains(out, "(3 + 1 / 4)") || !strings.Contains(out, "ρ (own + form / pairs)") {
		t.Fatalf("--oov form: %v\n%s", err, out)
	}
	out, _, err = run(t, "wordsim", "--embeddings", bundle, "--oov", "form-all", pairs)
	if err != nil || !strings.Contains(out, "(0 + 4 / 4)") || !strings.Contains(out, "b.am (form only)") {
		t.Fatalf("--oov form-all: %v\n%s", err, out)
	}
	// A plain embeddings file needs --model for the form.
	if _, _, err := run(t, "wordsim", "--embeddings", emb, "--oov", "form", pairs); !errors.Is(err, cli.ErrUsage) {
		t.Fatalf("--oov form without a form model: %v", err)
	}
	out, _, err = run(t, "wordsim", "--embeddings", emb, "--oov", "form", "--model", bundle, pairs)
	if err != nil || !strings.Contains(out, "(3 + 1 / 4)") {
		t.Fatalf("--oov form --model: %v\n%s", err, out)
	}
	v := FormLookup(m)("guitars")
	if g := FormLookup(m)("GUITARS"); len(v) != 3 || v[0] != g[0] {
		t.Fatalf("form vector %v vs %v: want the lowercased word's", v, g)
	}
}

func TestEvalWordSimDefaultModel(t *testing.T) {
	pairs := writeFile(t, "ws.txt", "music guitar 9\nmusic bread 2\nfood bread 8\nfood zzzqqq 5\n")
	out, _, err := run(t, "wordsim", "--embeddings", "default", pairs)
	if err != nil {
		if strings.Contains(err.Error(), "embeds no default model") {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	if !strings.Contains(out, "| default ") || !strings.Contains(out, "(3/4)") {
		t.Fatalf("output:\n%s", out)
	}
	out, _, err = run(t, "wordsim", "--embeddings", "default", "--oov", "form", pairs)
	if err != nil || !strings.Contains(out, "(3 + 1 / 4)") {
		t.Fatalf("--oov form on the default model: %v\n%s", err, out)
	}
}

// AdapterVectorizer wraps the adapter's vectorizer as a TextVectorizer for
// Retrieval: texts are vectorized as queries with opts (the memory is read,
// never written) and a text without any usable word gets no vector.
func AdapterVectorizer(v *vectorizer.Vectorizer, opts vectorizer.Options) retrieval.TextVectorizer {
	return func(text string) ([]float32, error) {
		vec, err := v.Vectorize(text, vectorizer.TaskQuery, opts)
		if errors.Is(err, vectorizer.ErrNoWords) {
			return nil, nil
		}
		return vec, err
	}
}

// writeFile writes content to a file in a fresh temporary directory and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every command with --stopwords refuses a stop list that is the whole
// vocabulary (the default 50 of an 8-word one included): its additive − sw
// rows would have no word left and no vector.
func TestEvalStopwordsLeaveAWord(t *testing.T) {
	emb, counts := tinyEmbeddings(t)
	dir := contextDir(t, map[string]string{"zorb": "the zorb guitar music\n"})
	tasks := map[string][]string{ // the task's own flags and files
		"chimeras":   {writeFile(t, "c.txt", "1\tthe ___ plays music @@ music the ___\tguitar,bread,kernel\t5,1,2\n")},
		"nonce":      {writeFile(t, "n.txt", "guitar\t___ an instrument for music\n")},
		"rare-pairs": {"--max-k", "1", "--trials", "1", writeFile(t, "rp.txt", "music zorb 9\nbread zorb 1\n"), dir},
	}
	for task, own := range tasks {
		for _, c := range []struct {
			flags []string
			want  string
		}{
			{nil, "--stopwords 50 leaves no word of the 8-word vocabulary"},
			{[]string{"--stopwords", "8"}, "--stopwords 8 leaves no word of the 8-word vocabulary"},
			{[]string{"--stopwords", "7"}, ""},
		} {
			args := append(append([]string{task, "--embeddings", emb, "--counts", counts}, c.flags...), own...)
			_, _, err := run(t, args...)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("%s %v: %v", task, c.flags, err)
			case c.want != "" && (!errors.Is(err, cli.ErrUsage) || !strings.Contains(err.Error(), c.want)):
				t.Errorf("%s %v: err = %v, want a usage error with %q", task, c.flags, err, c.want)
			}
		}
	}
}

// The help's line for eval names every task eval runs.
func TestHelpListsEveryTask(t *testing.T) {
	var out bytes.Buffer
	cli.Main(context.Background(), "text2vec-am", Commands(), []string{"help"}, &out, &out)
	var line string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "eval ") {
			line = l
		}
	}
	for _, task := range Commands()[0].Subcommands {
		if !strings.Contains(line, " "+task.Name+",") && !strings.HasSuffix(line, " "+task.Name) {
			t.Errorf("help's eval line %q does not name the task %s", line, task.Name)
		}
	}
}
