package fasttext

import (
	"bytes"
	"errors"
	"hash/fnv"
	"math"
	"testing"

	"github.com/text2vec-am/text2vec-am/internal/testfasttext"
)

func TestHash(t *testing.T) {
	for _, s := range []string{"", "a", "<ab", "ab>", "<word>", "xyz"} {
		h := fnv.New32a()
		h.Write([]byte(s))
		if got, want := Hash(s), h.Sum32(); got != want {
			t.Errorf("Hash(%q) = %#x, standard FNV-1a gives %#x (must agree on ASCII)", s, got, want)
		}
	}
	// fastText sign-extends every byte: 0xC3 is xored as 0xFFFFFFC3.
	prime, want := uint32(16777619), uint32(2166136261)
	want = (want ^ 0xFFFFFFC3) * prime
	want = (want ^ 0xFFFFFFA9) * prime
	if got := Hash("é"); got != want {
		t.Errorf("Hash(é) = %#x, want %#x (bytes sign-extended as in dictionary.cc)", got, want)
	}
}

func TestReadSynthetic(t *testing.T) {
	sm := testfasttext.Model{Dim: 2, MinN: 3, MaxN: 3, Bucket: 7, Words: []string{"</s>", "ab", "café"}, Counts: []int64{9, 5, 3}}
	data := testfasttext.Bin(sm)
	m, err := Read(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if m.Dim != 2 || m.MinN != 3 || m.MaxN != 3 || m.Bucket != 7 || len(m.Words) != 3 || m.Counts[1] != 5 {
		t.Fatalf("header/dictionary: %+v", m)
	}
	bucket := func(s string) int32 { return 3 + int32(Hash(s)%7) }
	// "<ab>": 3-grams "<ab", "ab>".
	if got := m.AppendSubwordRows(nil, "ab"); len(got) != 2 || got[0] != bucket("<ab") || got[1] != bucket("ab>") {
		t.Fatalf("subword rows of ab = %v, want [%d %d]", got, bucket("<ab"), bucket("ab>"))
	}
	// "<café>" has 6 characters (é is 2 bytes): 3-grams <ca, caf, afé, fé>.
	if got := m.AppendSubwordRows(nil, "café"); len(got) != 4 || got[2] != bucket("afé") || got[3] != bucket("fé>") {
		t.Fatalf("subword rows of café = %v", got)
	}
	row := func(r int32) []float64 { return []float64{float64(r * 10), float64(r*10 + 1)} }
	mean := func(rows ...int32) []float64 {
		out := make([]float64, 2)
		for _, r := range rows {
			for k, x := range row(r) {
				out[k] += x / float64(len(rows))
			}
		}
		return out
	}
	check := func(name string, got []float32, want []float64) {
		t.Helper()
		for k := range want {
			if math.Abs(float64(got[k])-want[k]) > 1e-4 {
				t.Fatalf("%s = %v, want %v", name, got, want)
			}
		}
	}
	v := make([]float32, 2)
	// In the dictionary: own row 1 and the n-gram rows.
	if ok, err := m.WordVector(v, "ab"); !ok || err != nil {
		t.Fatal(ok, err)
	}
	check("WordVector(ab)", v, mean(1, bucket("<ab"), bucket("ab>")))
	if ok, err := m.FormVector(v, "ab"); !ok || err != nil {
		t.Fatal(ok, err)
	}
	check("FormVector(ab)", v, mean(bucket("<ab"), bucket("ab>")))
	// Out of the dictionary: the n-grams only.
	if ok, err := m.WordVector(v, "abc"); !ok || err != nil {
		t.Fatal(ok, err)
	}
	check("WordVector(abc)", v, mean(bucket("<ab"), bucket("abc"), bucket("bc>")))
	// Too short for a 3-gram with the boundaries dropped? "<a>" has one: "<a>".
	if ok, _ := m.WordVector(v, "a"); !ok {
		t.Fatal("a: want the n-gram <a>")
	}
	check("WordVector(a)", v, mean(bucket("<a>")))

	e, err := m.Embeddings([]string{"ab", "zzz"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if e.Len() != 3 || e.Words[0] != "ab" || e.Words[2] != "zzz" || e.Counts[2] != 1 || e.Counts[0] != 5 {
		t.Fatalf("Embeddings: %v %v", e.Words, e.Counts)
	}
	check("Embeddings row zzz", e.Row(2), mean(bucket("<zz"), bucket("zzz"), bucket("zz>")))
}

func TestReadErrors(t *testing.T) {
	good := testfasttext.Model{Dim: 2, MinN: 3, MaxN: 3, Bucket: 7, Words: []string{"ab"}, Counts: []int64{5}}
	data := testfasttext.Bin(good)
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"bad magic", append([]byte{1, 2, 3, 4}, data[4:]...)},
		{"truncated dictionary", data[:90]},
		{"truncated matrix", data[:len(data)-12]},
		{"quantized", testfasttext.Bin(testfasttext.Model{Dim: 2, MinN: 3, MaxN: 3, Bucket: 7, Words: []string{"ab"}, Counts: []int64{5}, Quantized: true})},
	} {
		_, err := Read(bytes.NewReader(tc.data), int64(len(tc.data)))
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%s: err = %v, want ErrFormat", tc.name, err)
		}
	}
	if _, err := Open(t.TempDir() + "/missing.bin"); err == nil {
		t.Error("missing file: no error")
	}
}

// FuzzRead feeds corrupted models to Read: an error or a usable model, never
// a panic or an allocation the file cannot back.
func FuzzRead(f *testing.F) {
	f.Add(testfasttext.Bin(testfasttext.Model{Dim: 2, MinN: 3, MaxN: 3, Bucket: 7, Words: []string{"</s>", "ab", "café"}, Counts: []int64{9, 5, 3}}))
	f.Add(testfasttext.Bin(testfasttext.Model{Dim: 1, MinN: 1, MaxN: 2, Bucket: 2, Words: []string{"x"}, Counts: []int64{1}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Read(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v is not ErrFormat", err)
			}
			return
		}
		v := make([]float32, m.Dim)
		for _, w := range append([]string{"ab", "zzz", "é"}, m.Words...) {
			if _, err := m.WordVector(v, w); err != nil {
				t.Fatalf("WordVector(%q): %v", w, err)
			}
		}
	})
}
