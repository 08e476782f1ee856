package demo

import (
	"bytes"
	"context"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/defaultmodel"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
	"github.com/text2vec-am/text2vec-am/model"
)

// synthetic documents: "zorblat" and "quuxer" are jargon the base vocabulary
// lacks; every other word is frequent in the (made-up) base corpus.
var syntheticDocs = []Document{
	{ID: "z", Title: "zorblat engine", Text: "The zorblat engine compresses data quickly. A zorblat stream reads data fast."},
	{ID: "locks", Title: "locks", Text: "Threads share memory and locks protect the memory."},
	{ID: "net", Title: "network", Text: "Servers answer requests over the network quickly."},
	{ID: "files", Title: "files", Text: "Programs read files and write files to the disk."},
	{ID: "q", Title: "quuxer", Text: "A quuxer checks every request the servers answer."},
	{ID: "time", Title: "clocks", Text: "Clocks measure time and timers fire after a delay."},
}

var syntheticQueries = []Query{
	{ID: "jargon", Text: "zorblat", Relevant: []string{"z"}},
	{ID: "plain", Text: "locks protect shared memory", Relevant: []string{"locks"}},
	{ID: "mixed", Text: "quuxer for requests", Relevant: []string{"q"}},
}

// syntheticModel is an untrained AM model over a random base vocabulary that
// holds every word of the synthetic documents except the jargon.
func syntheticModel(t testing.TB) *model.Model {
	t.Helper()
	const dim = 16
	tok := model.DefaultTokenizer()
	seen := map[string]bool{"zorblat": true, "quuxer": true}
	var words []string
	for _, d := range syntheticDocs {
		for _, w := range tok.AppendTokens(nil, d.Text) {
			if !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
	}
	for _, w := range []string{"shared", "for", "thread", "lock", "disk"} {
		if !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	counts := make([]int64, len(words))
	for i := range counts {
		counts[i] = 100_000 + int64(i)*1000 // all frequent
	}
	m, err := testmodel.FromWords(testmodel.Words{
		Dim: dim, Words: words, Counts: counts, Ngram: model.NgramConfig{MinN: 3, MaxN: 5, MinCount: 1},
		NgramWords: append(words, "zorbla", "quux"), VectorSeed: [2]uint64{1, 2}, ModelSeed: 7,
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func runSynthetic(t *testing.T, opts Options) (*Result, string) {
	t.Helper()
	var out bytes.Buffer
	res, err := Run(context.Background(), &out, syntheticModel(t), Data{Name: "synthetic", Docs: syntheticDocs, Queries: syntheticQueries}, opts)
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	return res, out.String()
}

func TestRunSynthetic(t *testing.T) {
	res, out := runSynthetic(t, Options{ModelName: "synthetic", Top: 3, Show: -1, Query: "zorblat memory", Explain: "zorblat"})
	t.Log("\n" + out)
	for _, want := range []string{
		"text2vec-am demo",
		"synthetic: am, 16 dimensions",
		"6 synthetic",
		`"zorblat"`, `"locks protect shared memory"`,
		"base vectors only (unknown words dropped)", "with AM",
		"not in the base vocabulary, inferred by AM: zorblat",
		"every word is in the base vocabulary",
		"All 3 queries: rank of the first relevant document",
		"MRR@10",
		`your query  "zorblat memory"`,
		`How AM builds a vector for "zorblat"`,
		"never seen in the base corpus; AM reads it in 2 contexts from the documents",
		"α = ", "ρ", "of them known)",
		"nearest base words to its AM vector",
		NextCommand,
		"demo finished in",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("ANSI escapes in output with Color off")
	}
	if len(res.Queries) != 3 {
		t.Fatalf("%d query results, want 3", len(res.Queries))
	}
	jargon, plain, mixed := res.Queries[0], res.Queries[1], res.Queries[2]
	// Base vectors drop the only word of the jargon query: nothing to search with.
	if jargon.RankBase != 0 || jargon.RankAM != 1 {
		t.Errorf("jargon query ranks base %d, AM %d; want 0 (no usable word) and 1", jargon.RankBase, jargon.RankAM)
	}
	if len(jargon.AMWords) != 1 || jargon.AMWords[0] != "zorblat" {
		t.Errorf("jargon query AM words %q, want [zorblat]", jargon.AMWords)
	}
	if len(plain.AMWords) != 0 || plain.RankBase < 1 || plain.RankAM < 1 {
		t.Errorf("plain query: AM words %q, ranks base %d AM %d; want none and both found", plain.AMWords, plain.RankBase, plain.RankAM)
	}
	if len(mixed.AMWords) != 1 || mixed.AMWords[0] != "quuxer" {
		t.Errorf("mixed query AM words %q, want [quuxer]", mixed.AMWords)
	}
	var mb, ma float64
	for _, q := range res.Queries {
		mb += reciprocal(q.RankBase)
		ma += reciprocal(q.RankAM)
	}
	if math.Abs(res.MRRBase-mb/3) > 1e-12 || math.Abs(res.MRRAM-ma/3) > 1e-12 {
		t.Errorf("MRR base %v AM %v, want %v and %v from the ranks", res.MRRBase, res.MRRAM, mb/3, ma/3)
	}
	if res.Memory.Words < 2 || res.Observations < 3 {
		t.Errorf("memory taught %d words from %d observations; want the jargon's contexts", res.Memory.Words, res.Observations)
	}
	ex := res.Explained
	if ex == nil {
		t.Fatal("no explanation")
	}
	if ex.Source != vectorizer.SourceAM || len(ex.Contexts) != 2 || ex.FormOnly {
		t.Fatalf("explanation %+v: want source am with the 2 remembered contexts", ex)
	}
	var sum float32
	for _, c := range ex.Contexts {
		if !strings.Contains(strings.ToLower(c.Text), "zorblat") {
			t.Errorf("context %q does not contain the word", c.Text)
		}
		sum += c.Rho
	}
	if math.Abs(float64(sum)-1) > 1e-4 || ex.Alpha <= 0 || ex.Alpha >= 1 {
		t.Errorf("Σρ = %v, α = %v; want 1 and 0 < α < 1", sum, ex.Alpha)
	}
}

func TestRunExplainsKnownWord(t *testing.T) {
	_, out := runSynthetic(t, Options{Top: 1, Show: 0, Explain: "memory", Color: true})
	if !strings.Contains(out, `"memory" is frequent in the base corpus`) {
		t.Errorf("known word not reported as frequent:\n%s", out)
	}
	if !strings.Contains(out, "\x1b[1m") {
		t.Error("no ANSI styling with Color on")
	}
	if strings.Contains(out, "your query") || strings.Contains(out, "1/3") {
		t.Error("query shown although Show = 0 and no extra query")
	}
}

func TestRunRejectsBadTop(t *testing.T) {
	var out bytes.Buffer
	_, err := Run(context.Background(), &out, syntheticModel(t), Data{Name: "synthetic", Docs: syntheticDocs, Queries: syntheticQueries}, Options{Top: 0})
	if err == nil || !strings.Contains(err.Error(), "top must be at least 1") {
		t.Errorf("error %v, want one about top", err)
	}
}

// TestCommand runs "demo" as the binary does, on a synthetic model file.
func TestCommand(t *testing.T) {
	path := filepath.Join(t.TempDir(), "synthetic.am")
	if err := syntheticModel(t).SaveFile(path, model.SaveOptions{IncludeBase: true}); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		var out, errb bytes.Buffer
		err := Commands()[0].Run(context.Background(), cli.Env{Args: args, Stdout: &out, Stderr: &errb})
		return out.String() + errb.String(), err
	}
	// The bundled documents on a synthetic model: the demo completes and reports.
	out, err := run("--model", path, "--top", "2", "--explain", "Goroutine")
	if err != nil {
		t.Fatalf("demo --model %s: %v\n%s", path, err, out)
	}
	for _, want := range []string{"model     " + path, `How AM builds a vector for "goroutine"`, "MRR@10", NextCommand, "to serve " + path + ", mount it"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	for _, tc := range []struct {
		args  []string
		usage bool
		want  string
	}{
		{[]string{"--model", path, "--top", "0"}, true, "--top 0: must be between 1 and 20"},
		{[]string{"--model", path, "--explain", "two words"}, true, `--explain "two words": want one word`},
		{[]string{"--model", path, "--explain", " "}, true, "--explain: empty word"},
		{[]string{"--model", path, "extra"}, true, `unexpected argument "extra"`},
		{[]string{"--top", "x"}, true, "invalid value"},
		{[]string{"--model", filepath.Join(t.TempDir(), "missing.am")}, false, "missing.am"},
	} {
		_, err := run(tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.Is(err, cli.ErrUsage) != tc.usage {
			t.Errorf("demo %q: error %v, want %q (usage error: %v)", tc.args, err, tc.want, tc.usage)
		}
	}
}

func TestSnippet(t *testing.T) {
	p := newPrinter(nil, false)
	text := strings.Repeat("left ", 20) + "Goroutine" + strings.Repeat(" right", 20)
	got := p.snippet(text, "goroutine", 30)
	if n := len([]rune(got)); n != 30 || !strings.Contains(got, "Goroutine") || !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") {
		t.Errorf("snippet %q (%d runes): want 30 runes around the word, elided on both sides", got, n)
	}
	if got := p.snippet("short text", "x", 30); got != "short text" {
		t.Errorf("short snippet %q", got)
	}
	if got := fit("abcdef", 4); got != "abc…" {
		t.Errorf("fit: %q", got)
	}
	if got := group(1234567); got != "1,234,567" {
		t.Errorf("group: %q", got)
	}
}

// TestEncode checks the two vectors of a text against their definition.
func TestEncode(t *testing.T) {
	m := syntheticModel(t)
	mem, err := memory.Open("", memory.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	vz, err := vectorizer.New(m, mem, vectorizer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range syntheticDocs {
		if _, err := vz.Learn(d.Text, vectorizer.DefaultOptions()); err != nil {
			t.Fatal(err)
		}
	}
	s := &searcher{vz: vz, opts: vectorizer.DefaultOptions()}
	// Every word known: both methods give the vectorizer's vector.
	e, err := s.encode("locks protect shared memory", s.opts)
	if err != nil {
		t.Fatal(err)
	}
	want, err := vz.Vectorize("locks protect shared memory", vectorizer.TaskQuery, vectorizer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if math.Abs(float64(e.base[i]-want[i])) > 1e-5 || e.am[i] != want[i] {
			t.Fatalf("known words: base %v, AM %v, want both %v", e.base, e.am, want)
		}
	}
	// A jargon word: AM is the vectorizer's vector; base is the text without it.
	e, err = s.encode("zorblat protect memory", s.opts)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ = vz.Vectorize("zorblat protect memory", vectorizer.TaskQuery, vectorizer.DefaultOptions()); !slices.Equal(e.am, want) {
		t.Errorf("AM vector %v, want the vectorizer's %v", e.am, want)
	}
	without, _ := vz.Vectorize("protect memory", vectorizer.TaskQuery, vectorizer.DefaultOptions())
	for i := range without {
		if math.Abs(float64(e.base[i]-without[i])) > 1e-5 {
			t.Fatalf("base vector %v, want the vector of the known words %v", e.base, without)
		}
	}
	if !slices.Equal(e.amWords, []string{"zorblat"}) {
		t.Errorf("AM words %q, want [zorblat]", e.amWords)
	}
	// Only jargon: no base vector at all.
	if e, err = s.encode("zorblat quuxer", s.opts); err != nil || e.base != nil || e.am == nil {
		t.Errorf("only jargon: base %v, AM %v, err %v; want no base vector and an AM vector", e.base, e.am, err)
	}
}

// TestDefaultModel runs the demo as "go run . demo" does and checks the claim
// it exists to show: AM finds a relevant document the base vectors miss.
func TestDefaultModel(t *testing.T) {
	m, err := defaultmodel.Load()
	if err != nil {
		t.Skipf("no embedded default model in this build: %v", err)
	}
	data, err := BundledData()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, err := Run(context.Background(), &out, m, data, Options{Top: 3, Show: 4})
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	rescued := 0
	for _, q := range res.Queries {
		if q.RankAM == 1 && (q.RankBase == 0 || q.RankBase > mrrCutoff) {
			rescued++
		}
	}
	if rescued == 0 || res.MRRAM <= res.MRRBase {
		t.Errorf("AM ranks first %d relevant documents the base vectors miss (rank > %d); MRR@%d base %.3f, AM %.3f\n%s",
			rescued, mrrCutoff, mrrCutoff, res.MRRBase, res.MRRAM, out.String())
	}
	if ex := res.Explained; ex == nil || ex.Source != vectorizer.SourceAM || len(ex.Contexts) < 2 {
		t.Errorf("explanation of %q: %+v; want AM over several remembered contexts", DefaultExplainWord, ex)
	}
}
