package eval

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
)

// tinyFastText trains a small fastText model of dimension 3 on the words of
// tinyEmbeddings with the fasttext binary and returns the .bin path; it
// skips without fasttext.
func tinyFastText(t *testing.T) string { return tinyFastTextDim(t, 3) }

// tinyFastTextDim is tinyFastText with dimension dim.
func tinyFastTextDim(t *testing.T, dim int) string {
	t.Helper()
	bin, err := exec.LookPath("fasttext")
	if err != nil {
		t.Skip("fasttext not installed")
	}
	words := []string{"the", "music", "food", "guitar", "bread", "linux", "kernel", "driver"}
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for range 300 {
		for range 10 {
			b.WriteString(words[rng.IntN(len(words))] + " ")
		}
		b.WriteString("\n")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "c.txt")
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "ft")
	cmd := exec.Command(bin, "skipgram", "-input", in, "-output", out, "-dim", strconv.Itoa(dim), "-minCount", "1", "-minn", "3", "-maxn", "5",
		"-bucket", "1000", "-epoch", "1", "-thread", "1", "-verbose", "0")
	if o, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fasttext: %v\n%s", err, o)
	}
	return out + ".bin"
}

func TestEvalFastTextRows(t *testing.T) {
	ft := tinyFastText(t)
	pairs := writeFile(t, "ws.txt", "music guitar 9\nmusic bread 2\nfood bread 8\nfood guitars 5\n")
	out, _, err := run(t, "wordsim", "--fasttext", ft, pairs)
	if err != nil || !strings.Contains(out, "(3/4)") {
		t.Fatalf("wordsim --fasttext: %v\n%s", err, out)
	}
	out, _, err = run(t, "wordsim", "--fasttext", ft, "--oov", "form", pairs)
	if err != nil || !strings.Contains(out, "(3 + 1 / 4)") {
		t.Fatalf("wordsim --fasttext --oov form: %v\n%s", err, out)
	}
	emb, counts := tinyEmbeddings(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "guitars.txt"), []byte("the guitars music\nguitars and music\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rp := writeFile(t, "rp.txt", "music guitars 9\nbread guitars 1\nfood guitars 3\n")
	out, _, err = run(t, "rare-pairs", "--embeddings", emb, "--counts", counts, "--fasttext", ft, "--stopwords", "1", "--max-k", "2", rp, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| fastText form (n-grams only) ", "| ½ fastText form + ½ fastText additive − sw ", "| fastText own vector"} {
		if !strings.Contains(out, want) {
			t.Fatalf("rare-pairs output lacks %q:\n%s", want, out)
		}
	}
}

func TestEvalRetrievalFastText(t *testing.T) {
	ft := tinyFastText(t)
	docs := writeFile(t, "d.jsonl", `{"id":"a","text":"The linux kernel driver."}`+"\n"+`{"id":"b","text":"Music for guitars."}`+"\n"+`{"id":"c","text":"Bread and food."}`+"\n")
	qs := writeFile(t, "q.jsonl", `{"id":"q1","text":"kernel","relevant":["a"]}`+"\n"+`{"id":"q2","text":"guitars","relevant":["b"]}`+"\n")
	out, _, err := run(t, "retrieval", "--fasttext", ft, docs, qs)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "| dense fastText (n-grams for OOV words) ") {
		t.Fatalf("output:\n%s", out)
	}
	// "guitars" is not in the tiny model's dictionary: FastTextEmbeddings adds it from its n-grams.
	e, oov, err := FastTextEmbeddings(ft, []string{"Music for guitars."}, model.DefaultTokenizer())
	if err != nil {
		t.Fatal(err)
	}
	id, ok := e.ID("guitars")
	if !ok || e.Count(id) != 1 || oov != 2 { // "for" and "guitars" are outside the dictionary
		t.Fatalf("guitars: in %v, count %d; %d OOV words", ok, e.Count(id), oov)
	}
}
