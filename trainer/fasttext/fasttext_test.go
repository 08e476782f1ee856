package fasttext

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/fnv"
	"math"
	"testing"
)

// synthModel describes a tiny fastText model for writeBin.
type synthModel struct {
	dim, minn, maxn, bucket int
	words                   []string
	counts                  []int64
	quant                   bool
}

// writeBin writes m in fastText 0.9.2's .bin layout; row r of the input
// matrix holds r·10 + k in column k.
func writeBin(t *testing.T, m synthModel) []byte {
	t.Helper()
	var b bytes.Buffer
	w := func(v any) {
		if err := binary.Write(&b, binary.LittleEndian, v); err != nil {
			t.Fatal(err)
		}
	}
	w([2]int32{fileMagic, 12})
	// dim ws epoch minCount neg wordNgrams loss model bucket minn maxn lrUpdateRate, t
	w([12]int32{int32(m.dim), 5, 5, 1, 5, 1, 2, 2, int32(m.bucket), int32(m.minn), int32(m.maxn), 100})
	w(1e-4)
	w(int32(len(m.words)))
	w(int32(len(m.words)))
	w(int32(0))
	w(int64(1000))
	w(int64(-1))
	for i, word := range m.words {
		b.WriteString(word)
		b.WriteByte(0)
		w(m.counts[i])
		w(int8(0))
	}
	w(m.quant)
	rows := len(m.words) + m.bucket
	w(int64(rows))
	w(int64(m.dim))
	for r := 0; r < rows; r++ {
		for k := 0; k < m.dim; k++ {
			w(float32(r*10 + k))
		}
	}
	w(false) // qout; the output matrix follows in real files
	return b.Bytes()
}

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
	sm := synthModel{dim: 2, minn: 3, maxn: 3, bucket: 7, words: []string{"</s>", "ab", "café"}, counts: []int64{9, 5, 3}}
	data := writeBin(t, sm)
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
	good := synthModel{dim: 2, minn: 3, maxn: 3, bucket: 7, words: []string{"ab"}, counts: []int64{5}}
	data := writeBin(t, good)
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"bad magic", append([]byte{1, 2, 3, 4}, data[4:]...)},
		{"truncated dictionary", data[:90]},
		{"truncated matrix", data[:len(data)-12]},
		{"quantized", writeBin(t, synthModel{dim: 2, minn: 3, maxn: 3, bucket: 7, words: []string{"ab"}, counts: []int64{5}, quant: true})},
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
	f.Add(writeBin(&testing.T{}, synthModel{dim: 2, minn: 3, maxn: 3, bucket: 7, words: []string{"</s>", "ab", "café"}, counts: []int64{9, 5, 3}}))
	f.Add(writeBin(&testing.T{}, synthModel{dim: 1, minn: 1, maxn: 2, bucket: 2, words: []string{"x"}, counts: []int64{1}}))
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
