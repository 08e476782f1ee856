package eval

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/internal/outpath"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/corpus"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
)

func TestBuildRareDev(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "c.txt")
	text := strings.Repeat("the guitar plays music. the zorb plays music. ", 3) + "a zorb eats bread.\n" +
		strings.Repeat("blip blip food.\n", 2) + strings.Repeat("common word here. ", 10) + "\n"
	if err := os.WriteFile(corpus, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	pairs := []dataset.WordPair{
		{A: "zorb", B: "music", Score: 7},   // zorb: 4 occurrences, 2 distinct sentences: kept
		{A: "blip", B: "food", Score: 5},    // blip: 4 occurrences but 1 distinct context ("blip blip food" twice)
		{A: "common", B: "music", Score: 3}, // 10 occurrences: not rare
		{A: "zorb", B: "nowhere", Score: 2}, // the other word never occurs
	}
	set, err := BuildRareDev(context.Background(), []string{corpus}, pairs, RareDevOptions{MinSentences: 2, MaxCount: 5, MinCommon: 1, MaxContexts: 10, Window: 25, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Pairs) != 1 || set.Pairs[0] != (RarePair{Common: "music", Rare: "zorb", Score: 7}) || len(set.Contexts) != 1 || len(set.Contexts["zorb"]) != 2 {
		t.Fatalf("pairs %+v, contexts %q", set.Pairs, set.Contexts)
	}
	out := filepath.Join(dir, "dev")
	if skipped, err := set.Write(out); err != nil || len(skipped) != 0 {
		t.Fatalf("Write: skipped %q, %v", skipped, err)
	}
	// eval rare-pairs reads it back: the rare word is the second, its sentences without it.
	wp, err := dataset.LoadWordPairs(filepath.Join(out, "pairs.txt"))
	if err != nil {
		t.Fatal(err)
	}
	rp, ctx, without, err := RarePairsSetup(wp, filepath.Join(out, "contexts"), model.DefaultTokenizer())
	if err != nil || without != 0 || rp[0].Rare != "zorb" || len(ctx["zorb"]) != 2 {
		t.Fatalf("read back: %+v %q %d %v", rp, ctx, without, err)
	}
	for _, c := range ctx["zorb"] {
		for _, w := range c {
			if w == "zorb" {
				t.Fatalf("context %q still holds the rare word", c)
			}
		}
	}
}

// rare-dev writes a rare word's contexts only inside DIR/contexts: a word
// that cannot name a file there ("../evil", ".", a\b) is skipped with its
// pairs and logged, and the other words are still written.
func TestRareDevWriteSkipsUnsafeWord(t *testing.T) {
	var logs bytes.Buffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	parent := t.TempDir()
	dir := filepath.Join(parent, "dev")
	set := &RareDevSet{
		Pairs:    []RarePair{{"music", "../evil", 3}, {"music", "zorb", 7}, {"bread", ".", 1}, {"food", `a\b`, 2}, {"bread", "zorb", 2}},
		Contexts: map[string][][]string{"../evil": {{"a", "b"}}, "zorb": {{"the", "zorb", "plays"}}, ".": {{"c"}}, `a\b`: {{"d"}}},
	}
	skipped, err := set.Write(dir)
	if err != nil {
		t.Fatalf("Write: %v, want the unsafe words skipped", err)
	}
	if want := []string{".", "../evil", `a\b`}; !slices.Equal(skipped, want) {
		t.Errorf("skipped %q, want %q", skipped, want)
	}
	if len(set.Pairs) != 2 || len(set.Contexts) != 1 || set.Contexts["zorb"] == nil {
		t.Errorf("set after Write: pairs %+v, contexts %q: want zorb's alone", set.Pairs, set.Contexts)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "pairs.txt")); err != nil || string(got) != "music\tzorb\t7\nbread\tzorb\t2\n" {
		t.Errorf("pairs.txt %q (%v), want zorb's two pairs", got, err)
	}
	if ents, err := os.ReadDir(filepath.Join(dir, "contexts")); err != nil || len(ents) != 1 || ents[0].Name() != "zorb.txt" {
		t.Errorf("contexts/ %v (%v), want zorb.txt alone", ents, err)
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 1 {
		t.Errorf("%d entries beside the output directory, want none (no evil.txt)", len(ents)-1)
	}
	for _, w := range []string{`word=../evil`, `word=.`, `word=a\b`, "path separator", "names a directory"} {
		if !strings.Contains(logs.String(), w) {
			t.Errorf("log %q does not say %q", logs.String(), w)
		}
	}
	var summary strings.Builder
	writeRareDevSummary(&summary, set, 5, len(skipped), RareDevOptions{MaxCount: 99, MinSentences: 1}, dir)
	if !strings.Contains(summary.String(), "2 of 5 pairs, 1 rare words") || !strings.Contains(summary.String(), "skipped 3 rare words") {
		t.Errorf("summary %q: want the pairs written and the words skipped counted", summary.String())
	}
}

// A set whose every rare word is skipped is an error, and nothing is written.
func TestRareDevWriteAllSkipped(t *testing.T) {
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.DiscardHandler))
	dir := t.TempDir()
	set := &RareDevSet{Pairs: []RarePair{{"music", "../evil", 3}}, Contexts: map[string][][]string{"../evil": {{"a", "b"}}}}
	if _, err := set.Write(dir); err == nil || !strings.Contains(err.Error(), "no pair to write") {
		t.Fatalf("Write: %v, want no pair to write", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("Write wrote %d entries in %s, want none", len(ents), dir)
	}
}

// TestEvalRareDevCorpusOut: eval rare-dev --corpus-out writes the corpus
// without the set's rare words beside the set.
func TestEvalRareDevCorpusOut(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "c.txt")
	text := strings.Repeat("the guitar plays music. the zorb plays music. ", 3) + "a zorb eats bread.\n" +
		strings.Repeat("common word here. ", 10) + "\n"
	pairs := filepath.Join(dir, "pairs.txt")
	if err := os.WriteFile(corpus, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pairs, []byte("zorb music 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub.txt")
	stdout, _, err := run(t, "rare-dev", "--corpus", corpus, "--out", filepath.Join(dir, "dev"), "--corpus-out", sub,
		"--min-sentences", "2", "--max-count", "5", "--min-common", "1", pairs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(sub)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSuffix(strings.Repeat("the guitar plays music ", 3), " ") + "\n" +
		strings.TrimSuffix(strings.Repeat("common word here ", 10), " ") + "\n"
	if string(got) != want || !strings.Contains(stdout, "dropped 4 sentences") {
		t.Fatalf("subcorpus %q (stdout %q), want %q", got, stdout, want)
	}
}

// TestEvalRareDevOutputsCheckedFirst: a --corpus-out that is a file of the
// corpus (here inside its directory), or an --out directory inside it, is
// refused by a usage error naming it and the directory, before the set is
// built or anything written.
func TestEvalRareDevOutputsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	if err := os.Mkdir(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("the guitar plays music. the zorb plays music. ", 3) + "\n"
	if err := os.WriteFile(filepath.Join(docs, "c.txt"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	pairs := filepath.Join(dir, "pairs.txt")
	if err := os.WriteFile(pairs, []byte("zorb music 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub, dev := filepath.Join(docs, "sub.txt"), filepath.Join(dir, "dev")
	_, _, err := run(t, "rare-dev", "--corpus", docs, "--out", dev, "--corpus-out", sub,
		"--min-sentences", "2", "--max-count", "5", "--min-common", "1", pairs)
	want := "--corpus-out " + sub + " is inside the --corpus directory " + docs
	if !errors.Is(err, cli.ErrUsage) || !errors.Is(err, corpus.ErrOutputInCorpus) ||
		!strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want a usage error containing %q", err, want)
	}
	for _, p := range []string{sub, dev} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a refused run left %s (%v)", p, err)
		}
	}
	inside := filepath.Join(docs, "dev")
	_, _, err = run(t, "rare-dev", "--corpus", docs, "--out", inside,
		"--min-sentences", "2", "--max-count", "5", "--min-common", "1", pairs)
	want = "--out " + inside + " is inside the --corpus directory " + docs
	if !errors.Is(err, corpus.ErrOutputInCorpus) || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want an error containing %q", err, want)
	}
	if _, err := os.Stat(inside); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused run left %s (%v)", inside, err)
	}
}

// TestEvalRareDevOutSparesItsInputs: the files rare-dev writes in --out
// (pairs.txt, contexts/WORD.txt) are refused when they are a corpus file, the
// PAIRS file or --corpus-out, spelt so or reached by a link: every input
// keeps its bytes, and no output overwrites another.
func TestEvalRareDevOutSparesItsInputs(t *testing.T) {
	text := strings.Repeat("the guitar plays music. the zorb plays music. ", 3) + "a zorb eats bread.\n" +
		strings.Repeat("common word here. ", 10) + "\n"
	for _, c := range []struct {
		name     string
		corpus   string // relative to the test's directory, as the files below
		pairs    string
		subOut   string            // --corpus-out, "" for none
		links    map[string]string // link → target
		want     string
		inCorpus bool // the error wraps corpus.ErrOutputInCorpus
	}{
		{name: "a corpus file as pairs.txt", corpus: "dev/pairs.txt", pairs: "rw.txt",
			want: "--out dev/pairs.txt is the --corpus file", inCorpus: true},
		{name: "the PAIRS file as pairs.txt", corpus: "c.txt", pairs: "dev/pairs.txt",
			want: "--out dev/pairs.txt is the input PAIRS: writing it would destroy that input"},
		{name: "a corpus directory as contexts", corpus: "dev/contexts", pairs: "rw.txt",
			want: "--out dev/contexts/zorb.txt is inside the --corpus directory dev/contexts", inCorpus: true},
		{name: "the PAIRS file as a contexts file", corpus: "c.txt", pairs: "dev/contexts/zorb.txt",
			want: "--out dev/contexts/zorb.txt is the input PAIRS: writing it would destroy that input"},
		{name: "--corpus-out as pairs.txt", corpus: "c.txt", pairs: "rw.txt", subOut: "dev/pairs.txt",
			want: "--corpus-out dev/pairs.txt is also --out dev/pairs.txt"},
		{name: "--corpus-out as a contexts file", corpus: "c.txt", pairs: "rw.txt", subOut: "dev/contexts/zorb.txt",
			want: "--out dev/contexts/zorb.txt is also --corpus-out dev/contexts/zorb.txt: one output would overwrite the other"},
		{name: "--corpus-out as a contexts file through a link", corpus: "c.txt", pairs: "rw.txt", subOut: "zorb.txt",
			links: map[string]string{"dev/contexts": ".."},
			want:  "--out dev/contexts/zorb.txt is also --corpus-out zorb.txt"},
		{name: "a link to a corpus file as a contexts file", corpus: "c.txt", pairs: "rw.txt",
			links: map[string]string{"dev/contexts/zorb.txt": "../../c.txt"},
			want:  "--out dev/contexts/zorb.txt is the --corpus file c.txt", inCorpus: true},
		{name: "a link to a corpus file as pairs.txt", corpus: "c.txt", pairs: "rw.txt",
			links: map[string]string{"dev/pairs.txt": "../c.txt"},
			want:  "--out dev/pairs.txt is the --corpus file c.txt", inCorpus: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			rareDevSparesItsInputs(t, text, c.corpus, c.pairs, c.subOut, c.links, c.want, c.inCorpus)
		})
	}
}

// rareDevSparesItsInputs runs one case of TestEvalRareDevOutSparesItsInputs in
// a directory of its own.
func rareDevSparesItsInputs(t *testing.T, text, corpusPath, pairs, subOut string, links map[string]string, want string,
	inCorpus bool) {
	t.Chdir(t.TempDir())
	for _, f := range []struct{ path, text string }{{corpusPath, text}, {pairs, "zorb music 7\n"}} {
		if strings.HasSuffix(f.path, "contexts") {
			f.path = filepath.Join(f.path, "zorb.txt")
		}
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f.path, []byte(f.text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for l, target := range links {
		if err := os.MkdirAll(filepath.Dir(l), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, l); err != nil {
			t.Skip("no symbolic links here:", err)
		}
	}
	_, _, err := run(t, "rare-dev", "--corpus", corpusPath, "--out", "dev", "--corpus-out", subOut,
		"--min-sentences", "2", "--max-count", "5", "--min-common", "1", pairs)
	if !errors.Is(err, cli.ErrUsage) || errors.Is(err, corpus.ErrOutputInCorpus) != inCorpus ||
		!strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want a usage error containing %q", err, want)
	}
	corpusFile := corpusPath
	if strings.HasSuffix(corpusFile, "contexts") {
		corpusFile = filepath.Join(corpusFile, "zorb.txt")
	}
	if b, err := os.ReadFile(corpusFile); string(b) != text {
		t.Errorf("the corpus file became %q (%v)", b, err)
	}
	if b, err := os.ReadFile(pairs); string(b) != "zorb music 7\n" {
		t.Errorf("the PAIRS file became %q (%v)", b, err)
	}
}

// checkContextsOutputs refuses two contexts files whose names differ only
// in case or Unicode normalization (one file on macOS or Windows), naming
// both, and takes names that differ otherwise.
func TestCheckContextsOutputsFoldedNames(t *testing.T) {
	dir := t.TempDir()
	corpusFile, pairs := filepath.Join(dir, "c.txt"), filepath.Join(dir, "rw.txt")
	for _, p := range []string{corpusFile, pairs} {
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cdir := filepath.Join(dir, "dev", "contexts")
	ctxs := func(words ...string) []outpath.File {
		var fs []outpath.File
		for _, w := range words {
			fs = append(fs, outpath.File{Flag: "--out", Path: filepath.Join(cdir, w+".txt")})
		}
		return fs
	}
	outs := []outpath.File{{Flag: "--out", Path: filepath.Join(dir, "dev", "pairs.txt")}}
	if err := checkContextsOutputs([]string{corpusFile}, pairs, ctxs("zorb", "zorbs", "σοφος", "éa"), outs); err != nil {
		t.Errorf("distinct names: %v", err)
	}
	for _, c := range [][2]string{
		{"σοφος", "σοφοσ"},               // final and medial sigma: one capital Σ
		{"ſun", "sun"},                   // long s
		{"\uD55C", "\u1112\u1161\u11AB"}, // a Hangul syllable, composed and not
	} {
		err := checkContextsOutputs([]string{corpusFile}, pairs, ctxs("zorb", c[0], c[1]), outs)
		want := filepath.Join(cdir, c[0]+".txt") + " and " + filepath.Join(cdir, c[1]+".txt") + " differ only in case"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q and %q: err = %v, want one containing %q", c[0], c[1], err, want)
		}
	}
}

// TestRareDevWriteStoppedLeavesNoPairs: a Write that stops before its end
// (here a contexts file it cannot replace) leaves no pairs.txt, not the
// one of an earlier run beside contexts of this one.
func TestRareDevWriteStoppedLeavesNoPairs(t *testing.T) {
	dir := t.TempDir()
	set := &RareDevSet{
		Pairs:    []RarePair{{"music", "zorb", 7}},
		Contexts: map[string][][]string{"zorb": {{"the", "zorb", "plays"}}},
	}
	if _, err := set.Write(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "contexts", "zorb.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "contexts", "zorb.txt"), 0o755); err != nil { // cannot be replaced
		t.Fatal(err)
	}
	set.Pairs[0].Score = 9
	if _, err := set.Write(dir); err == nil {
		t.Fatal("Write over a directory named as a contexts file: no error")
	}
	if _, err := os.Stat(filepath.Join(dir, "pairs.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("pairs.txt after a Write that stopped: %v, want none", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "contexts")); len(ents) != 1 {
		t.Errorf("contexts/ holds %d entries, want no temporary file left", len(ents))
	}
}
