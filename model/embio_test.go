package model

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/internal/shareddata"
)

func randomEmbeddings(t testing.TB, n, dim int, seed uint64) *Embeddings {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	words := make([]string, n)
	vecs := make([]float32, n*dim)
	for i := range words {
		words[i] = "w" + string(rune('a'+i%26)) + strings.Repeat("x", i/26%3) + itoa(i)
	}
	for i := range vecs {
		vecs[i] = float32(rng.NormFloat64())
	}
	e, err := NewEmbeddings(dim, words, vecs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func itoa(i int) string {
	var b [20]byte
	p := len(b)
	for {
		p--
		b[p] = byte('0' + i%10)
		i /= 10
		if i == 0 {
			return string(b[p:])
		}
	}
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func equalEmbeddings(t *testing.T, got, want *Embeddings) {
	t.Helper()
	if got.Dim != want.Dim || !reflect.DeepEqual(got.Words, want.Words) {
		t.Fatalf("got dim %d, %d words; want dim %d, %d words", got.Dim, got.Len(), want.Dim, want.Len())
	}
	for i := range want.Vectors {
		if math.Float32bits(got.Vectors[i]) != math.Float32bits(want.Vectors[i]) {
			t.Fatalf("value %d: got %v, want %v", i, got.Vectors[i], want.Vectors[i])
		}
	}
	for _, w := range want.Words {
		a, _ := got.ID(w)
		b, _ := want.ID(w)
		if a != b {
			t.Fatalf("ID(%q) = %d, want %d", w, a, b)
		}
	}
}

func TestEmbeddingsRoundTrip(t *testing.T) {
	e := randomEmbeddings(t, 300, 7, 1)
	var text, bin bytes.Buffer
	if err := WriteEmbeddingsText(&text, e); err != nil {
		t.Fatal(err)
	}
	if err := WriteEmbeddingsBinary(&bin, e); err != nil {
		t.Fatal(err)
	}
	// Headerless (GloVe) text: drop the first line.
	glove := text.Bytes()[bytes.IndexByte(text.Bytes(), '\n')+1:]
	// Binary without a line break after each vector (as some writers do).
	var noNL bytes.Buffer
	fmt.Fprintf(&noNL, "%d %d\n", e.Len(), e.Dim)
	for i, w := range e.Words {
		noNL.WriteString(w + " ")
		for _, x := range e.Row(int32(i)) {
			binary.Write(&noNL, binary.LittleEndian, x)
		}
	}
	for name, data := range map[string][]byte{
		"text": text.Bytes(), "binary": bin.Bytes(), "glove": glove,
		"text.gz": gz(text.Bytes()), "binary.gz": gz(bin.Bytes()), "glove.gz": gz(glove),
		"crlf":        bytes.ReplaceAll(text.Bytes(), []byte("\n"), []byte("\r\n")),
		"tabs":        bytes.ReplaceAll(text.Bytes(), []byte(" "), []byte("\t ")),
		"binary-nonl": noNL.Bytes(),
	} {
		t.Run(name, func(t *testing.T) {
			got, err := ReadEmbeddings(bytes.NewReader(data), name)
			if err != nil {
				t.Fatal(err)
			}
			equalEmbeddings(t, got, e)
		})
	}
	dir := t.TempDir()
	for _, p := range []string{"e.txt", "e.txt.gz", "e.bin", "e.bin.gz"} {
		path := filepath.Join(dir, p)
		if err := SaveEmbeddings(path, e, strings.Contains(p, "bin")); err != nil {
			t.Fatal(err)
		}
		got, err := LoadEmbeddings(path)
		if err != nil {
			t.Fatal(err)
		}
		equalEmbeddings(t, got, e)
	}
}

func TestReadEmbeddingsLarge(t *testing.T) {
	// Several parse chunks: line numbers in errors must stay right.
	e := randomEmbeddings(t, 40000, 30, 2)
	var text bytes.Buffer
	if err := WriteEmbeddingsText(&text, e); err != nil {
		t.Fatal(err)
	}
	got, err := ReadEmbeddings(bytes.NewReader(text.Bytes()), "big")
	if err != nil {
		t.Fatal(err)
	}
	equalEmbeddings(t, got, e)
	lines := strings.Split(text.String(), "\n")
	lines[35001] = lines[35001] + " 1.5"
	_, err = ReadEmbeddings(strings.NewReader(strings.Join(lines, "\n")), "big")
	if err == nil || !strings.Contains(err.Error(), "big:35002:") || !strings.Contains(err.Error(), "31 values, want 30") {
		t.Fatalf("error %v, want big:35002 with 31 values", err)
	}
	lines[35001] = lines[30000]
	_, err = ReadEmbeddings(strings.NewReader(strings.Join(lines, "\n")), "big")
	if err == nil || !strings.Contains(err.Error(), "big:35002: duplicate word") || !strings.Contains(err.Error(), "big:30001") {
		t.Fatalf("error %v, want a duplicate at big:35002 first at big:30001", err)
	}
}

func TestReadEmbeddingsErrors(t *testing.T) {
	bin := func(rows, dim int, recs ...string) string {
		return itoa(rows) + " " + itoa(dim) + "\n" + strings.Join(recs, "")
	}
	f32 := func(xs ...float32) string {
		b := make([]byte, 4*len(xs))
		for i, x := range xs {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
		}
		return string(b)
	}
	cases := []struct{ name, in, want string }{
		{"empty", "", "f: empty file"},
		{"few values", "2 3\na 1 2 3\nb 1 2\n", "f:3: word \"b\": 2 values, want 3"},
		{"many values", "a 1 2\nb 1 2 3\n", "f:2: word \"b\": 3 values, want 2"},
		{"not a number", "a 1 2\nb 1 x2\n", "f:2: word \"b\": value 2 \"x2\" is not a number"},
		{"nan", "a 1 2\nb nan 2\n", "f:2: word \"b\": value 1 is nan (NaN or infinite)"},
		{"inf", "a 1 2\nb 1 1e39\n", "f:2: word \"b\": value 2 is 1e39 (NaN or infinite)"},
		{"duplicate", "a 1 2\nb 1 2\na 3 4\n", "f:3: duplicate word \"a\" (first at f:1)"},
		{"header rows", "3 2\na 1 2\nb 1 2\n", "f:1: header declares 3 words but the body has 2"},
		{"header dim", "2 3\na 0.125 0.25\nb 1 2\n", "f:2: word \"a\": 2 values, want 3"},
		{"huge dim", "1 99999999\na 1\n", "header declares dimension 99999999"},
		{"one field", "word\n", "f:1: a word and at least one value expected"},
		{"binary truncated", bin(2, 2, "a "+f32(1, 2)+"\n", "b "+f32(1)[:3]), "f: record 2 (word \"b\"): truncated: 3 of 8 vector bytes"},
		{"binary short", bin(3, 2, "a "+f32(1, 2)+"\n", "b "+f32(1, 2)+"\n"), "f: record 3: file ends after 2 of the 3 words"},
		{"binary nan", bin(1, 2, "a "+f32(1, float32(math.NaN()))), "f: record 1 (word \"a\"): value 2 is NaN"},
		{"binary dup", bin(2, 2, "a "+f32(1, 2)+"\n", "a "+f32(1, 2)+"\n"), "f: record 2: duplicate word \"a\" (first at f: record 1)"},
		{"binary extra", bin(1, 2, "a "+f32(1, 2)+"\n", "b "+f32(1, 2)+"\n"), "data after the 1 records"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadEmbeddings(strings.NewReader(c.in), "f")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestParseFloat32(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 200000; i++ {
		x := float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(20)-10)))
		for _, s := range []string{
			string(appendG(nil, x)),
			string(appendF(nil, x, 6)),
		} {
			got, ok := parseFloat32([]byte(s))
			want, err := parseStd(s)
			if !ok || err != nil || got != want {
				t.Fatalf("parseFloat32(%q) = %v, %v; strconv says %v, %v", s, got, ok, want, err)
			}
		}
	}
	for _, s := range []string{"", "-", "+", ".", "1e", "1e+", "1.2.3", "0x10", "1,5", "--1", "e5"} {
		if _, ok := parseFloat32([]byte(s)); ok {
			t.Errorf("parseFloat32(%q) accepted", s)
		}
	}
	for s, want := range map[string]float32{"1": 1, "-0.5": -0.5, "+2.": 2, ".25": 0.25, "1E2": 100, "12345678901234567890123": 1.2345679e22, "1e-50": 0, "0.000000000000000000000000000001": 1e-30} {
		if got, ok := parseFloat32([]byte(s)); !ok || got != want {
			t.Errorf("parseFloat32(%q) = %v, %v; want %v", s, got, ok, want)
		}
	}
}

func FuzzParseFloat32(f *testing.F) {
	for _, s := range []string{"1", "-0.123456", "16777217", "1.00000005960464477539", "3.4028235e38", "1e-45", "nan", "0x1p-3", "1e", "."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseFloat32([]byte(s))
		want, err := parseStd(s)
		if err != nil {
			if ok && !math.IsInf(float64(got), 0) {
				t.Fatalf("parseFloat32(%q) = %v, strconv: %v", s, got, err)
			}
			return
		}
		if strings.ContainsAny(s, " \t") {
			return // strconv rejects those too, handled above
		}
		if !ok || math.Float32bits(got) != math.Float32bits(want) && !(math.IsNaN(float64(got)) && math.IsNaN(float64(want))) {
			t.Fatalf("parseFloat32(%q) = %v, %v; strconv gives %v", s, got, ok, want)
		}
	})
}

func TestCounts(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	if err := WriteCounts(&buf, []string{"the", "cat"}, []int64{100, 7}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "c.txt.gz")
	os.WriteFile(path, gz(buf.Bytes()), 0o644)
	c, err := LoadCounts(path)
	if err != nil || !reflect.DeepEqual(c, map[string]int64{"the": 100, "cat": 7}) {
		t.Fatalf("LoadCounts = %v, %v", c, err)
	}
	for in, want := range map[string]string{
		"a 1\nb\n":     "c:2: 1 fields",
		"a 1\nb -3\n":  "c:2: count \"-3\" is not a non-negative integer",
		"a 1\nb x\n":   "c:2: count \"x\"",
		"a 1\n\na 2\n": "c:3: duplicate word \"a\" (first on line 1)",
		"a 1 2\n":      "c:1: 3 fields",
	} {
		if _, err := ReadCounts(strings.NewReader(in), "c"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadCounts(%q) error %v, want %q", in, err, want)
		}
	}
	e := randomEmbeddings(t, 3, 2, 1)
	e.AttachCounts(map[string]int64{e.Words[1]: 9})
	if e.Count(0) != 0 || e.Count(1) != 9 {
		t.Errorf("AttachCounts: counts %v", e.Counts)
	}
}

func TestSharedReferenceEmbeddings(t *testing.T) {
	dir := filepath.Join(shareddata.Dir(t), "data", "embeddings")
	e, err := LoadEmbeddings(filepath.Join(dir, "general-sgns100.vec.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if e.Dim != 100 || e.Len() != 74504 {
		t.Fatalf("reference embeddings: %d × %d, want 74504 × 100", e.Len(), e.Dim)
	}
	if _, ok := e.ID("the"); !ok {
		t.Error(`"the" missing from the reference embeddings`)
	}
	counts, err := LoadCounts(filepath.Join(dir, "general-counts.txt.gz"))
	if err != nil {
		t.Fatal(err)
	}
	e.AttachCounts(counts)
	id, _ := e.ID("the")
	if e.Count(id) < 100000 {
		t.Errorf(`count of "the" = %d, implausibly small`, e.Count(id))
	}
	// An untrained model over the real vocabulary: contexts found, output finite,
	// and a bundle with float16 base vectors round-trips.
	cfg := Config{Dim: e.Dim, Mode: ModeAM, Ngram: DefaultNgramConfig(), Tokenizer: DefaultTokenizer()}
	m, err := New(cfg, BuildNgramVocab(e.Words, cfg.Ngram), e, 1)
	if err != nil {
		t.Fatal(err)
	}
	var ctxs [][]int32
	for _, s := range cfg.Tokenizer.AppendSentences(nil, "The Flurbix compiler emits code. A flurbix is a small program!") {
		ctxs = append(ctxs, m.ContextIDs(nil, cfg.Tokenizer.AppendTokens(nil, s), "flurbix"))
	}
	if len(ctxs) != 2 || len(ctxs[0]) != 4 || len(ctxs[1]) != 5 {
		t.Fatalf("context ids %v, want 2 contexts of 4 and 5 known words", ctxs)
	}
	v := make([]float32, e.Dim)
	if exp := m.Infer(m.NewWorkspace(), "flurbix", ctxs, v); exp.FormOnly || slices.ContainsFunc(v, func(x float32) bool { return !finite32(x) }) {
		t.Fatalf("inference on real contexts: %+v, %v", exp, v[:4])
	}
	var buf bytes.Buffer
	if err := m.Save(&buf, SaveOptions{IncludeBase: true, BaseStorage: StorageFloat16}); err != nil {
		t.Fatal(err)
	}
	back, err := Load(&buf, "bundle")
	if err != nil || back.Base.Len() != e.Len() || back.Base.Count(id) != e.Count(id) {
		t.Fatalf("bundle round trip: %v", err)
	}
}

func FuzzReadEmbeddings(f *testing.F) {
	f.Add([]byte("2 3\na 1 2 3\nb 4 5 6\n"))
	f.Add([]byte("a 1 2\nb 3 4\n"))
	f.Add([]byte("1 2\na \x00\x00\x80?\x00\x00\x00@\n"))
	f.Add(gz([]byte("a 1\n")))
	f.Add([]byte("1 2\n\n\na nan inf\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := ReadEmbeddings(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		if len(e.Vectors) != e.Len()*e.Dim {
			t.Fatalf("%d values for %d × %d", len(e.Vectors), e.Len(), e.Dim)
		}
		for i, w := range e.Words {
			if id, ok := e.ID(w); !ok || int(id) != i {
				t.Fatalf("index broken for %q", w)
			}
		}
		for _, x := range e.Vectors {
			if !finite32(x) {
				t.Fatalf("non-finite value accepted")
			}
		}
		// Whatever was accepted survives a binary round trip.
		var buf bytes.Buffer
		if err := WriteEmbeddingsBinary(&buf, e); err != nil {
			return // words that the binary format cannot hold (ValidWord)
		}
		if binaryLooksText(buf.Bytes(), e.Dim) {
			return // values whose bytes read as digits: read as text (ReadEmbeddings)
		}
		back, err := ReadEmbeddings(&buf, "again")
		if err != nil {
			t.Fatalf("re-reading written embeddings: %v", err)
		}
		if !reflect.DeepEqual(back.Words, e.Words) {
			t.Fatalf("round trip changed the words")
		}
	})
}

func FuzzReadCounts(f *testing.F) {
	f.Add([]byte("a 1\nb 2\n"))
	f.Add([]byte("a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ReadCounts(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		for w, n := range c {
			if w == "" || n < 0 {
				t.Fatalf("bad entry %q %d", w, n)
			}
		}
	})
}

func appendG(b []byte, x float32) []byte { return strconvAppend(b, x, 'g', -1) }

func appendF(b []byte, x float32, prec int) []byte { return strconvAppend(b, x, 'f', prec) }

// TestReadEmbeddingsBinaryLikeText: a binary file whose first values' bytes
// are digits looks like text and is read as text: the text parser's error
// names the line (a fuzz finding; real vectors never have such bytes).
func TestReadEmbeddingsBinaryLikeText(t *testing.T) {
	bits := func(s string) float32 { return math.Float32frombits(binary.LittleEndian.Uint32([]byte(s))) }
	e, err := NewEmbeddings(1, []string{"0", "000B00000"}, []float32{bits("0000"), bits("A000")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteEmbeddingsBinary(&buf, e); err != nil {
		t.Fatal(err)
	}
	if !binaryLooksText(buf.Bytes(), e.Dim) {
		t.Fatalf("the first record does not look like text: %q", buf.String())
	}
	if _, err := ReadEmbeddings(&buf, "f"); err == nil || !strings.Contains(err.Error(), `f:3: word "000B00000"`) {
		t.Fatalf("error %v, want the text parser's, naming line 3", err)
	}
}

// binaryLooksText reports whether the word2vec binary file b (header line
// first) is one ReadEmbeddings reads as text.
func binaryLooksText(b []byte, dim int) bool {
	nl := bytes.IndexByte(b, '\n')
	return !looksBinary(bufio.NewReaderSize(bytes.NewReader(b[nl+1:]), 256<<10), dim)
}

// A headerless file of a word and one number a line (a counts file) is not
// read as 1-d embeddings: it is refused, naming the file and line 1.
func TestReadEmbeddingsRefusesCounts(t *testing.T) {
	_, err := ReadEmbeddings(strings.NewReader("the 5000\nof 4000\nblorftd 7\n"), "counts.txt")
	if !errors.Is(err, ErrOneValue) || !strings.Contains(err.Error(), "counts.txt:1:") {
		t.Errorf("err = %v, want ErrOneValue naming counts.txt:1", err)
	}
	if e, err := ReadEmbeddings(strings.NewReader("a 0.5 1\nb 1 0.25\n"), "two.vec"); err != nil || e.Dim != 2 {
		t.Errorf("2-d headerless: %v", err)
	}
}

// gzipOfOneLine returns a gzip of n bytes without a line break, a few
// hundred KB.
func gzipOfOneLine(t *testing.T, n int) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(bytes.Repeat([]byte("x"), n))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A gzipped counts or embeddings file that expands to one line of 80 MB
// is refused, naming the line, having allocated a few times the bound on a
// line (1 MiB for counts, 64 MiB for embeddings) at most: it was read whole
// (above 400 MB allocated).
func TestOneHugeLineRefused(t *testing.T) {
	bomb := gzipOfOneLine(t, 80<<20)
	for _, c := range []struct {
		name  string
		read  func() error
		limit uint64
	}{
		{"counts", func() error { _, err := ReadCounts(bytes.NewReader(bomb), "c.gz"); return err }, 8 << 20},
		{"embeddings", func() error { _, err := ReadEmbeddings(bytes.NewReader(bomb), "e.gz"); return err }, 300 << 20},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := c.read()
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), ":1: line longer than") {
			t.Errorf("%s: err = %v, want line 1 refused as too long", c.name, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > c.limit {
			t.Errorf("%s: %d bytes allocated for a line of 80 MB", c.name, grew)
		}
	}
}

// A binary embeddings file of a few bytes whose header claims 10^9 rows of
// 300 values is refused as truncated without reserving room for the rows
// it claims, read from a file or from memory (it reserved 136 MB).
func TestBinaryHeaderClaimBoundedBySize(t *testing.T) {
	data := []byte("1000000000 300\na \x00\x00\x80\x3f")
	path := filepath.Join(t.TempDir(), "e.bin")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, read := range map[string]func() error{
		"file":   func() error { _, err := LoadEmbeddings(path); return err },
		"memory": func() error { _, err := ReadEmbeddings(bytes.NewReader(data), "e.bin"); return err },
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := read()
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), "truncated") {
			t.Errorf("%s: err = %v, want truncated", name, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
			t.Errorf("%s: %d bytes allocated for %d bytes", name, grew, len(data))
		}
	}
}
