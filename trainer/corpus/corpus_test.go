package corpus

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func gzipped(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// units collects the tokens of every unit as space-joined strings.
func units(t *testing.T, paths []string, opts Options) []string {
	t.Helper()
	var got []string
	err := ForEachUnit(context.Background(), paths, opts, func(u Unit) error {
		got = append(got, strings.Clone(strings.Join(u.Tokens, " ")))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestForEachUnitFilesDirsGzip(t *testing.T) {
	dir := t.TempDir()
	// Directory order is by path; the gzip file has a misleading name.
	writeFile(t, filepath.Join(dir, "d", "b.txt"), []byte("Second FILE.\n\n  \nthird, line"))
	writeFile(t, filepath.Join(dir, "d", "a.dat"), gzipped(t, "first: gzipped\r\n"))
	writeFile(t, filepath.Join(dir, "d", "sub", "c.txt"), []byte("in sub\n"))
	writeFile(t, filepath.Join(dir, "d", ".hidden"), []byte("never read\n"))
	writeFile(t, filepath.Join(dir, "one.txt"), []byte("Single Ünïcode-Wörd 42\n"))

	got := units(t, []string{filepath.Join(dir, "d"), filepath.Join(dir, "one.txt")}, DefaultOptions())
	want := []string{"first gzipped", "second file", "third line", "in sub", "single ünïcode wörd 42"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("units = %q, want %q", got, want)
	}
	files, err := Files([]string{filepath.Join(dir, "d")})
	if err != nil {
		t.Fatal(err)
	}
	wantFiles := []string{filepath.Join(dir, "d", "a.dat"), filepath.Join(dir, "d", "b.txt"), filepath.Join(dir, "d", "sub", "c.txt")}
	if !reflect.DeepEqual(files, wantFiles) {
		t.Fatalf("Files = %q, want %q", files, wantFiles)
	}
}

func TestFilesFollowsALinkedDirectory(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "d", "a.txt"), []byte("first\n"))
	writeFile(t, filepath.Join(dir, "d", "sub", "b.txt"), []byte("second\n"))
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "d"), link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	files, err := Files([]string{link})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(link, "a.txt"), filepath.Join(link, "sub", "b.txt")}
	if !reflect.DeepEqual(files, want) {
		t.Fatalf("Files = %q, want %q", files, want)
	}
}

func TestSentencesAndLineNumbers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.txt")
	writeFile(t, path, []byte("One. Two words! Three?\n\nfour\n"))
	opts := DefaultOptions()
	opts.Sentences = true
	var got []string
	var lines []int
	err := ForEachUnit(context.Background(), []string{path}, opts, func(u Unit) error {
		got = append(got, strings.Clone(strings.Join(u.Tokens, " ")))
		lines = append(lines, u.Line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"one", "two words", "three", "four"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("sentences = %q, want %q", got, want)
	}
	if want := []int{1, 1, 1, 3}; !reflect.DeepEqual(lines, want) {
		t.Fatalf("line numbers = %v, want %v", lines, want)
	}
}

// lineUnits collects the units of path with their line numbers.
func lineUnits(t *testing.T, path string) (got []string, lines []int) {
	t.Helper()
	err := ForEachUnit(context.Background(), []string{path}, DefaultOptions(), func(u Unit) error {
		got = append(got, strings.Clone(strings.Join(u.Tokens, " ")))
		lines = append(lines, u.Line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, lines
}

func TestLongLine(t *testing.T) {
	// A 3 MiB line is cut at separators into units of at most MaxUnitBytes,
	// every one with the line's number, and no word is cut.
	words := strings.Repeat("abc ", 3*MaxUnitBytes/4)
	path := filepath.Join(t.TempDir(), "long.txt")
	writeFile(t, path, []byte("short\n"+words+"end\nlast"))
	got, lines := lineUnits(t, path)
	if len(got) < 5 || got[0] != "short" || got[len(got)-1] != "last" || lines[len(got)-1] != 3 {
		t.Fatalf("got %d units, first %q, last %q on line %d", len(got), got[0], got[len(got)-1], lines[len(got)-1])
	}
	n := 0
	for i, u := range got[1 : len(got)-1] {
		if lines[i+1] != 2 || len(u) > MaxUnitBytes {
			t.Fatalf("piece %d: line %d, %d bytes", i, lines[i+1], len(u))
		}
		for _, w := range strings.Fields(u) {
			if w != "abc" && w != "end" {
				t.Fatalf("piece %d has the word %q: a word was cut", i, w)
			}
			n++
		}
	}
	if n != 3*MaxUnitBytes/4+1 {
		t.Fatalf("long line has %d tokens, want %d", n, 3*MaxUnitBytes/4+1)
	}
}

func TestLongWordIsCutAtRunes(t *testing.T) {
	// A line with no separator (2.5 MiB of "中", three bytes each) is cut at
	// rune boundaries: every piece is valid text of at most MaxUnitBytes and
	// the pieces add up to the line.
	word := strings.Repeat("中", 5*MaxUnitBytes/6)
	path := filepath.Join(t.TempDir(), "word.txt")
	writeFile(t, path, []byte(word+"\nnext"))
	got, lines := lineUnits(t, path)
	if len(got) != 4 || got[3] != "next" || lines[3] != 2 {
		t.Fatalf("got %d units, last %q on line %d; want 3 pieces and next on line 2", len(got), got[len(got)-1], lines[len(got)-1])
	}
	total := 0
	for i, u := range got[:3] {
		if lines[i] != 1 || len(u) > MaxUnitBytes || strings.Trim(u, "中") != "" {
			t.Fatalf("piece %d: line %d, %d bytes, not whole runes", i, lines[i], len(u))
		}
		total += len(u)
	}
	if total != len(word) {
		t.Fatalf("pieces hold %d bytes, the line %d", total, len(word))
	}
}

func TestLongLineNonASCIISeparators(t *testing.T) {
	// Separators outside ASCII ("、") are cut at too: no word is cut.
	group := "中文字、"
	line := strings.Repeat(group, 3*MaxUnitBytes/len(group))
	path := filepath.Join(t.TempDir(), "cjk.txt")
	writeFile(t, path, []byte(line+"\n"))
	got, _ := lineUnits(t, path)
	if len(got) < 3 {
		t.Fatalf("got %d units, want the line in pieces", len(got))
	}
	n := 0
	for i, u := range got {
		for _, w := range strings.Fields(u) {
			if w != "中文字" {
				t.Fatalf("piece %d has the word %q: a word was cut", i, w)
			}
			n++
		}
	}
	if want := 3 * MaxUnitBytes / len(group); n != want {
		t.Fatalf("%d words, want %d", n, want)
	}
}

func TestCutPoint(t *testing.T) {
	for _, c := range []struct {
		in        string
		max, want int
	}{
		{"ab cdx", 5, 3}, {"ab-cdx", 5, 3}, {"abcde", 4, 4}, {" abcdx", 5, 1},
		{"aéx", 3, 3}, {"aéx", 2, 1}, {"\x80\x80\x80", 2, 2}, {"ab", 1, 1}, {"ab c", 2, 2},
		{"中、文字x", 8, 6}, {"中文\u00a0字x", 9, 8}, {"a\xffbcd", 4, 2}, {"中文字x", 8, 6}, {"ab中x", 4, 2},
	} {
		if got := cutPoint([]byte(c.in), c.max); got != c.want {
			t.Errorf("cutPoint(%q, %d) = %d, want %d", c.in, c.max, got, c.want)
		}
	}
}

func TestReadCountsVocabEncode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.txt")
	writeFile(t, path, []byte("b a c a\nB d a\n\nc b zz\n"))
	c, err := Read(context.Background(), []string{path}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Words, []string{"b", "a", "c", "d", "zz"}) || !reflect.DeepEqual(c.Counts, []int64{3, 3, 2, 1, 1}) {
		t.Fatalf("dictionary %q counts %v", c.Words, c.Counts)
	}
	if c.NumTokens() != 10 || c.NumUnits() != 3 || !reflect.DeepEqual(c.Offsets, []int64{0, 4, 7, 10}) {
		t.Fatalf("tokens %d units %d offsets %v", c.NumTokens(), c.NumUnits(), c.Offsets)
	}
	all := c.Vocab(0)
	if !reflect.DeepEqual(all.Words, []string{"a", "b", "c", "d", "zz"}) || all.Total() != 10 {
		t.Fatalf("vocab(0) = %q total %d", all.Words, all.Total())
	}
	v := c.Vocab(2)
	if !reflect.DeepEqual(v.Words, []string{"a", "b", "c"}) || !reflect.DeepEqual(v.Counts, []int64{3, 3, 2}) {
		t.Fatalf("vocab(2) = %q %v", v.Words, v.Counts)
	}
	if id, ok := v.ID("c"); !ok || id != 2 {
		t.Fatalf("ID(c) = %d %v", id, ok)
	}
	if _, ok := v.ID("d"); ok {
		t.Fatal("d is below min-count but in the vocabulary")
	}
	e := c.Encode(v, false)
	if !reflect.DeepEqual(e.IDs, []int32{1, 0, 2, 0, 1, 0, 2, 1}) || !reflect.DeepEqual(e.Offsets, []int64{0, 4, 6, 8}) {
		t.Fatalf("encode: ids %v offsets %v", e.IDs, e.Offsets)
	}
	// A unit made only of unknown words disappears; kept unknowns are -1.
	only := mustVocab(t, []string{"zz"})
	if e := c.Encode(only, false); e.NumUnits() != 1 || !reflect.DeepEqual(e.Unit(0), []int32{0}) {
		t.Fatalf("encode with {zz}: %v %v", e.IDs, e.Offsets)
	}
	if e := c.Encode(only, true); e.NumTokens() != 10 || e.NumUnits() != 3 || e.IDs[9] != 0 || e.IDs[0] != Unknown {
		t.Fatalf("encode keeping unknowns: %v", e.IDs)
	}
}

func mustVocab(t *testing.T, words []string) *Vocab {
	t.Helper()
	v, err := NewVocab(words, nil)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestNewVocabErrors(t *testing.T) {
	for _, tc := range []struct {
		words  []string
		counts []int64
		want   string
	}{
		{[]string{"a", "b", "a"}, nil, `word "a" at 0 and 2`},
		{[]string{"a", ""}, nil, "word 1 is empty"},
		{[]string{"a"}, []int64{1, 2}, "2 counts for 1 words"},
		{[]string{"a"}, []int64{-1}, "negative count"},
	} {
		if _, err := NewVocab(tc.words, tc.counts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewVocab(%q, %v) error %v, want %q", tc.words, tc.counts, err, tc.want)
		}
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.txt")
	writeFile(t, good, []byte("fine words\n"))
	empty := filepath.Join(dir, "empty.txt")
	writeFile(t, empty, nil)
	punct := filepath.Join(dir, "punct.txt")
	writeFile(t, punct, []byte("... !!! \n -- \n"))
	badgz := filepath.Join(dir, "bad.gz")
	writeFile(t, badgz, []byte{0x1f, 0x8b, 0, 1, 2, 3, 4})
	z := gzipped(t, strings.Repeat("some text\n", 1000))
	truncgz := filepath.Join(dir, "trunc.gz")
	writeFile(t, truncgz, z[:len(z)/2])
	emptyDir := filepath.Join(dir, "emptydir")
	os.MkdirAll(emptyDir, 0o755)
	blankDir := filepath.Join(dir, "blankdir")
	writeFile(t, filepath.Join(blankDir, "a.txt"), []byte("\n\n"))

	for _, tc := range []struct {
		paths []string
		want  string
	}{
		{nil, "no path given"},
		{[]string{filepath.Join(dir, "missing.txt")}, "missing.txt: no such file"},
		{[]string{good, empty}, "corpus file " + empty + ": empty"},
		{[]string{punct}, "corpus file " + punct + ": empty (no words)"},
		{[]string{badgz}, "read corpus file " + badgz + ": invalid gzip"},
		{[]string{truncgz}, "read corpus file " + truncgz},
		{[]string{emptyDir}, "corpus directory " + emptyDir + ": no files"},
		{[]string{blankDir}, "corpus directory " + blankDir + ": empty (no words in its 1 files)"},
	} {
		_, err := Read(context.Background(), tc.paths, DefaultOptions())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Read(%q) error %v, want it to contain %q", tc.paths, err, tc.want)
		}
	}
}

func TestCancelAndCallbackError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.txt")
	writeFile(t, path, []byte(strings.Repeat("a b c\n", 3*checkEvery)))
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err := ForEachUnit(ctx, []string{path}, DefaultOptions(), func(Unit) error {
		if n++; n == 10 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || n > checkEvery+10 {
		t.Fatalf("after cancel: err %v after %d units", err, n)
	}
	stop := errors.New("stop")
	if err := ForEachUnit(context.Background(), []string{path}, DefaultOptions(), func(Unit) error { return stop }); err != stop {
		t.Fatalf("callback error: got %v", err)
	}
}

func TestProgress(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.txt")
	data := []byte(strings.Repeat("a b c\n", 3*checkEvery))
	writeFile(t, path, data)
	opts := DefaultOptions()
	var last, total int64
	calls := 0
	opts.Progress = func(done, tot int64) { last, total = done, tot; calls++ }
	units(t, []string{path}, opts)
	if calls < 2 || last != int64(len(data)) || total != int64(len(data)) {
		t.Fatalf("progress: %d calls, last %d/%d, want %d", calls, last, total, len(data))
	}
}

// NumUnits returns the number of units (lines or sentences) in the corpus.
func (c *Corpus) NumUnits() int { return len(c.Offsets) - 1 }

// NewVocab wraps a given word list (for instance the vocabulary of a set of
// base embeddings) in a Vocab. counts may be nil (all zero); otherwise it has
// one non-negative entry per word. Words must be distinct and non-empty.
func NewVocab(words []string, counts []int64) (*Vocab, error) {
	if counts == nil {
		counts = make([]int64, len(words))
	}
	if len(counts) != len(words) {
		return nil, fmt.Errorf("new vocabulary: %d counts for %d words", len(counts), len(words))
	}
	if len(words) > math.MaxInt32 {
		return nil, fmt.Errorf("new vocabulary: %d words, more than %d", len(words), math.MaxInt32)
	}
	v := &Vocab{Words: words, Counts: counts, index: make(map[string]int32, len(words))}
	for i, w := range words {
		if w == "" {
			return nil, fmt.Errorf("new vocabulary: word %d is empty", i)
		}
		if counts[i] < 0 {
			return nil, fmt.Errorf("new vocabulary: word %q has negative count %d", w, counts[i])
		}
		if j, dup := v.index[w]; dup {
			return nil, fmt.Errorf("new vocabulary: word %q at %d and %d", w, j, i)
		}
		v.index[w] = int32(i)
	}
	return v, nil
}

// Total returns the sum of the counts.
func (v *Vocab) Total() int64 {
	var t int64
	for _, n := range v.Counts {
		t += n
	}
	return t
}

// Unit returns the ids of unit i (a subslice of IDs).
func (e *Encoded) Unit(i int) []int32 { return e.IDs[e.Offsets[i]:e.Offsets[i+1]] }

func TestReadsFile(t *testing.T) {
	dir := t.TempDir()
	for path, want := range map[string]bool{
		filepath.Join(dir, "a.ckpt"):               true,
		filepath.Join(dir, "sub", "a.ckpt"):        true,
		filepath.Join(dir, ".hidden", "a.ckpt"):    false,
		filepath.Join(dir, "sub", ".a.ckpt"):       false,
		filepath.Join(filepath.Dir(dir), "a.ckpt"): false,
		filepath.Join(dir+"-sibling", "a.ckpt"):    false,
	} {
		if got := ReadsFile(dir, path); got != want {
			t.Errorf("ReadsFile(%s, %s) = %v, want %v", dir, path, got, want)
		}
	}
}
