package nn_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/nn"
	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/internal/testmodel"
	"github.com/text2vec-am/text2vec-am/model"
)

// animals are base words whose vectors put cat near kitten, dog near puppy
// and car near truck.
func animals() (*model.Embeddings, error) {
	words := []string{"cat", "kitten", "dog", "puppy", "car", "truck"}
	vecs := []float32{
		1, 0.1, 0, 0,
		0.9, 0.2, 0, 0.1,
		0.3, 1, 0, 0,
		0.2, 0.9, 0.1, 0,
		0, 0, 1, 0.2,
		0, 0.1, 0.9, 0.3,
	}
	return model.NewEmbeddings(4, words, vecs, []int64{500, 400, 500, 400, 500, 400})
}

func ExampleIndex_Nearest() {
	e, err := animals()
	if err != nil {
		panic(err)
	}
	ix, err := nn.NewIndex(e)
	if err != nil {
		panic(err)
	}
	cat, _ := e.ID("cat")
	nbs, err := ix.Nearest(e.Row(cat), 3, map[string]bool{"cat": true})
	if err != nil {
		panic(err)
	}
	for _, n := range nbs {
		fmt.Printf("%s %.3f\n", n.Word, n.Cosine)
	}
	// Output:
	// kitten 0.987
	// dog 0.381
	// puppy 0.311
}

// TestNearestMatchesBruteForce compares the SIMD search with cosines
// computed in float64 over a random model's 2,100 base words.
func TestNearestMatchesBruteForce(t *testing.T) {
	m, err := testmodel.New(testmodel.DefaultSpec())
	if err != nil {
		t.Fatal(err)
	}
	e := m.Base
	ix, err := nn.NewIndex(e)
	if err != nil {
		t.Fatal(err)
	}
	for _, qi := range []int32{0, 17, 2050} {
		q := e.Row(qi)
		skip := map[string]bool{e.Words[qi]: true}
		got, err := ix.Nearest(q, 20, skip)
		if err != nil {
			t.Fatal(err)
		}
		type cand struct {
			word string
			cos  float64
		}
		var all []cand
		for i := range e.Len() {
			if i == int(qi) {
				continue
			}
			all = append(all, cand{e.Words[i], cosine(q, e.Row(int32(i)))})
		}
		sort.SliceStable(all, func(a, b int) bool { return all[a].cos > all[b].cos })
		for j, n := range got {
			if n.Word != all[j].word && math.Abs(all[j].cos-float64(n.Cosine)) > 1e-5 {
				t.Errorf("query %s: neighbour %d is %s (%.6f), want %s (%.6f)", e.Words[qi], j, n.Word, n.Cosine, all[j].word, all[j].cos)
			}
			if math.Abs(float64(n.Cosine)-cosine(q, e.Row(mustID(t, e, n.Word)))) > 1e-5 {
				t.Errorf("query %s: %s has cosine %.6f, want %.6f", e.Words[qi], n.Word, n.Cosine, cosine(q, e.Row(mustID(t, e, n.Word))))
			}
		}
	}
	if _, err := ix.Nearest(e.Row(0), 0, nil); err == nil {
		t.Error("k = 0 accepted")
	}
	if _, err := ix.Nearest(make([]float32, e.Dim), 5, nil); err == nil {
		t.Error("a zero query accepted")
	}
	if _, err := ix.Nearest(make([]float32, e.Dim+1), 5, nil); err == nil {
		t.Error("a query of the wrong dimension accepted")
	}
}

func mustID(t *testing.T, e *model.Embeddings, w string) int32 {
	t.Helper()
	id, ok := e.ID(w)
	if !ok {
		t.Fatalf("%s is not a base word", w)
	}
	return id
}

// cosine is model.Cosine: float64 sums, no SIMD kernel.
func cosine(a, b []float32) float64 { return model.Cosine(a, b) }

// animalModel saves a serving bundle over animals().
func animalModel(t *testing.T) string {
	t.Helper()
	base, err := animals()
	if err != nil {
		t.Fatal(err)
	}
	cfg := model.Config{Dim: 4, Mode: model.ModeAM, Ngram: model.DefaultNgramConfig(), Tokenizer: model.DefaultTokenizer()}
	m, err := model.New(cfg, model.BuildNgramVocab(base.Words, cfg.Ngram), base, 1)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "animals.am")
	if err := m.SaveFile(path, model.SaveOptions{IncludeBase: true}); err != nil {
		t.Fatal(err)
	}
	return path
}

func runNN(stdin string, args ...string) (string, error) {
	var out, errb bytes.Buffer
	err := nn.Commands()[0].Run(context.Background(), cli.Env{Args: args, Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb})
	return out.String(), err
}

func TestCommandPrintsNeighbours(t *testing.T) {
	path := animalModel(t)
	out, err := runNN("", "--model", path, "cat", "-k", "2", "truck")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "cat\tkitten\t0.98") || !strings.HasPrefix(lines[2], "truck\tcar\t0.9") {
		t.Errorf("nn cat truck -k 2:\n%s\nwant cat's first neighbour kitten, truck's car", out)
	}
	out, err = runNN("dog\n\n  \npuppy\n", "--model", path, "-k", "1")
	if err != nil || out != "dog\tpuppy\t0.9915\npuppy\tdog\t0.9915\n" {
		t.Errorf("nn from stdin: %q, %v", out, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", path, "-k", "0", "cat"}, "-k 0: want 1 to 1000"},
		{[]string{"--model", path, "-k", "1001", "cat"}, "want 1 to 1000"},
		{[]string{"--model", filepath.Dir(path), "cat"}, "it is a directory"},
		{[]string{"--model", path, "!!!"}, "no word that yields a vector"},
		{[]string{"--model", path, "--kk", "3"}, `did you mean "--k"?`},
	} {
		if _, err := runNN("", c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("nn %q: %v, want an error saying %q", c.args, err, c.want)
		}
	}
	if _, err := runNN("cat\n!!!\n", "--model", path); err == nil || !strings.Contains(err.Error(), "stdin line 2") {
		t.Errorf("a stdin line without a word: %v, want an error naming line 2", err)
	}
	long := strings.Repeat("a", nn.MaxQueryBytes+1)
	if _, err := runNN(long+"\n", "--model", path); err == nil {
		t.Error("a stdin line over MaxQueryBytes accepted")
	}
	if _, err := runNN("", "--model", path, long); !errors.Is(err, cli.ErrUsage) {
		t.Errorf("an argument over MaxQueryBytes: %v, want a usage error", err)
	}
}
