package eval

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
)

// swapFiles writes swapEmbeddings (12 pairs) to a word2vec file and returns
// it with the corpus, which ends with tail.
func swapFiles(t *testing.T, tail string) (emb, corpus string) {
	t.Helper()
	e, corpus := swapEmbeddings(t, 12, nil, tail)
	emb = filepath.Join(t.TempDir(), "swap.vec")
	if err := model.SaveEmbeddings(emb, e, false); err != nil {
		t.Fatal(err)
	}
	return emb, corpus
}

// tableRow returns the cells of the first Markdown table row of out named
// name, trimmed (nil when there is none).
func tableRow(out, name string) []string {
	for _, l := range strings.Split(out, "\n") {
		cells := strings.Split(l, "|")
		if len(cells) > 2 && strings.TrimSpace(cells[1]) == name {
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			return cells[2 : len(cells)-1]
		}
	}
	return nil
}

// The A La Carte row of rare-pairs applies the map (the swap) to the
// additive vector of the sampled contexts: zorb, seen beside xa only, gets
// ya's vector, which orders the pairs as the scores do (ρ = 1), where the
// additive vector (xa's) orders them backwards (ρ = −1). zorb's sentences in
// the corpus are left out of the fit and counted.
func TestEvalRarePairsAlaCarte(t *testing.T) {
	emb, corpus := swapFiles(t, strings.Repeat("zorb xa\n", 3))
	dir := contextDir(t, map[string]string{"zorb": "zorb xa\nxa zorb\n"})
	// cos with ya's vector (1, 2): ya 1, yb (4, 3) 0.89, xa (2, 1) 0.8; with xa's: the reverse order.
	pairs := writeFile(t, "rp.txt", "ya zorb 9\nyb zorb 5\nxa zorb 1\n")
	out, _, err := run(t, "rare-pairs", "--embeddings", emb, "--stopwords", "0", "--max-k", "2", "--trials", "2",
		"--alacarte-corpus", corpus, pairs, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := tableRow(out, "A La Carte"); strings.Join(got, " ") != "– 1.000 1.000" {
		t.Errorf("A La Carte row %q, want no value at k = 0 and ρ = 1 at k = 1, 2:\n%s", got, out)
	}
	if got := tableRow(out, "additive − sw"); strings.Join(got, " ") != "– -1.000 -1.000" {
		t.Errorf("additive − sw row %q, want ρ = −1:\n%s", got, out)
	}
	want := "A La Carte: A fitted on 24 base words seen 5 times or more in " + corpus +
		" (context window ±25); left out: the 1 evaluated words and the 3 of its 63 sentences that hold one."
	if !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}

// The A La Carte row of chimeras and nonce applies the map (the swap) to
// the additive vector: the nonce seen beside xa gets ya's vector, where the
// additive row gives it xa's. Chimeras leaves nothing out; nonce does not
// fit on the defined words.
func TestEvalChimerasNonceAlaCarte(t *testing.T) {
	emb, corpus := swapFiles(t, "")
	data := writeFile(t, "c.txt", "1\t___ xa @@ xa ___\tya,yb,xa\t9,5,1\n2\tthe ___ xa\tya,xa\t3,1\n")
	out, _, err := run(t, "chimeras", "--embeddings", emb, "--stopwords", "1", "--alacarte-corpus", corpus, data)
	if err != nil {
		t.Fatal(err)
	}
	if got := tableRow(out, "A La Carte"); len(got) != 1 || got[0] != "1.000" {
		t.Errorf("chimeras A La Carte row %q, want ρ = 1:\n%s", got, out)
	}
	if got := tableRow(out, "additive"); len(got) != 1 || got[0] != "-1.000" {
		t.Errorf("chimeras additive row %q, want ρ = −1:\n%s", got, out)
	}
	if want := "A La Carte: A fitted on 24 base words seen 5 times or more in " + corpus + " (context window ±25).\n"; !strings.Contains(out, want) {
		t.Errorf("chimeras output lacks %q:\n%s", want, out)
	}
	defs := writeFile(t, "n.txt", "ya\t___ xa\nyc\tthe ___ of xc\n")
	out, _, err = run(t, "nonce", "--embeddings", emb, "--stopwords", "1", "--alacarte-corpus", corpus, defs)
	if err != nil {
		t.Fatal(err)
	}
	if got := tableRow(out, "A La Carte"); len(got) < 3 || got[0] != "1.0000" || got[2] != "1" {
		t.Errorf("nonce A La Carte row %q, want MRR 1, median rank 1:\n%s", got, out)
	}
	if got := tableRow(out, "additive"); len(got) < 1 || got[0] == "1.0000" {
		t.Errorf("nonce additive row %q: ranks the gold word first too, the test cannot tell the rows apart", got)
	}
	if want := "A fitted on 22 base words seen 5 times or more in " + corpus + " (context window ±25); not fitted on: the 2 evaluated words."; !strings.Contains(out, want) {
		t.Errorf("nonce output lacks %q:\n%s", want, out)
	}
}

// --alacarte-corpus errors name the flag and the file, in every command.
func TestAlaCarteCorpusErrors(t *testing.T) {
	emb, _ := swapFiles(t, "")
	dir := contextDir(t, map[string]string{"zorb": "zorb xa\n"})
	pairs := writeFile(t, "rp.txt", "ya zorb 9\nxa zorb 1\n")
	chim := writeFile(t, "c.txt", "1\t___ xa\tya,xa\t3,1\n")
	defs := writeFile(t, "n.txt", "ya\t___ xa\n")
	missing := filepath.Join(t.TempDir(), "nosuch.txt")
	thin := writeFile(t, "thin.txt", "xa ya\n")
	for _, c := range []struct{ corpus, want string }{
		{missing, "--alacarte-corpus: corpus: "},
		{thin, "--alacarte-corpus: " + thin + ": no base word occurs 5 times or more"},
	} {
		for _, args := range [][]string{
			{"rare-pairs", "--embeddings", emb, "--stopwords", "0", "--max-k", "1", "--trials", "1", "--alacarte-corpus", c.corpus, pairs, dir},
			{"chimeras", "--embeddings", emb, "--stopwords", "1", "--alacarte-corpus", c.corpus, chim},
			{"nonce", "--embeddings", emb, "--stopwords", "1", "--alacarte-corpus", c.corpus, defs},
		} {
			_, _, err := run(t, args...)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.corpus) {
				t.Errorf("%s with --alacarte-corpus %s: error %v, want %q naming the file", args[0], c.corpus, err, c.want)
			}
		}
	}
}
