package model

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func TestFloat16(t *testing.T) {
	// Every half value survives half → single → half.
	for h := 0; h < 1<<16; h++ {
		f := f16ToF32(uint16(h))
		if math.IsNaN(float64(f)) {
			continue
		}
		if back := f32ToF16(f); back != uint16(h) {
			t.Fatalf("half %04x → %v → %04x", h, f, back)
		}
	}
	// Rounding to nearest: no half value is closer than the one chosen.
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 100000; i++ {
		x := float32(rng.NormFloat64() * math.Pow(2, float64(rng.IntN(40)-28)))
		h := f32ToF16(x)
		got := float64(f16ToF32(h))
		for _, nb := range []uint16{h - 1, h + 1} {
			alt := float64(f16ToF32(nb))
			if math.Abs(alt-float64(x)) < math.Abs(got-float64(x)) && !math.IsInf(alt, 0) {
				t.Fatalf("f32ToF16(%v) = %v, but %v is closer", x, got, alt)
			}
		}
	}
	if f32ToF16(1e6) != 0x7c00 || f32ToF16(-1e-9) != 0x8000 {
		t.Error("overflow or underflow mishandled")
	}
}

func equalModels(t *testing.T, got, want *Model, exact bool) {
	t.Helper()
	if got.Config != want.Config || !reflect.DeepEqual(got.Vocab.ngrams, want.Vocab.ngrams) {
		t.Fatalf("config or vocabulary differ: %+v vs %+v", got.Config, want.Config)
	}
	same := func(name string, a, b []float32, tol float64) {
		t.Helper()
		if len(a) != len(b) {
			t.Fatalf("%s: %d values, want %d", name, len(a), len(b))
		}
		for i := range a {
			if exact && math.Float32bits(a[i]) != math.Float32bits(b[i]) || math.Abs(float64(a[i]-b[i])) > tol {
				t.Fatalf("%s[%d] = %v, want %v", name, i, a[i], b[i])
			}
		}
	}
	same("M", got.M, want.M, 0)
	same("A", got.A, want.A, 0)
	same("U", got.U, want.U, 0)
	same("B", []float32{got.B}, []float32{want.B}, 0)
	tol := 0.0
	if !exact {
		tol = 0.02
	}
	same("Ngrams", got.Ngrams, want.Ngrams, tol)
}

func TestWeightsRoundTrip(t *testing.T) {
	for _, mode := range allModes {
		m := testModel(t, mode, 12, 6)
		m.Tokenizer.Lowercase = mode != ModeFCM
		var buf bytes.Buffer
		if err := m.Save(&buf, SaveOptions{}); err != nil {
			t.Fatal(err)
		}
		got, err := Load(&buf, "w")
		if err != nil {
			t.Fatal(err)
		}
		equalModels(t, got, m, true)
		if got.Base != nil {
			t.Fatal("a file without IncludeBase came back with base embeddings")
		}
	}
	// A serving bundle with counts, through a file.
	m := testModel(t, ModeAM, 12, 7)
	m.Base.Counts = make([]int64, m.Base.Len())
	for i := range m.Base.Counts {
		m.Base.Counts[i] = int64(i * 1000)
	}
	path := filepath.Join(t.TempDir(), "m.am")
	if err := m.SaveFile(path, SaveOptions{IncludeBase: true}); err != nil {
		t.Fatal(err)
	}
	got, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	equalModels(t, got, m, true)
	if got.Base == nil || !reflect.DeepEqual(got.Base.Words, m.Base.Words) || !reflect.DeepEqual(got.Base.Counts, m.Base.Counts) || !reflect.DeepEqual(got.Base.Vectors, m.Base.Vectors) {
		t.Fatal("serving bundle: base embeddings differ")
	}
	// Same inference from the loaded bundle.
	ctxs := randomContexts(rand.New(rand.NewPCG(1, 1)), 5, 8, m.Base.Len())
	a, b := make([]float32, 12), make([]float32, 12)
	m.Infer(m.NewWorkspace(), "apple", ctxs, a)
	got.Infer(got.NewWorkspace(), "apple", ctxs, b)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the loaded model infers differently")
	}
}

func TestWeightsCompressedStorage(t *testing.T) {
	m := testModel(t, ModeAM, 16, 8)
	var sizes []int
	for _, s := range []Storage{StorageFloat32, StorageFloat16, StorageInt8, StorageInt4} {
		var buf bytes.Buffer
		if err := m.Save(&buf, SaveOptions{NgramStorage: s, BaseStorage: s, IncludeBase: true}); err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, buf.Len())
		got, err := Load(&buf, s.String())
		if err != nil {
			t.Fatal(err)
		}
		if s == StorageInt4 { // the n-grams' error: TestInt4RowError
			got.Ngrams = m.Ngrams
		}
		equalModels(t, got, m, s == StorageFloat32)
		// Relative error per row: float16 ≤ 2⁻¹¹, int8 ≤ 1/254 of the row's
		// max; int4 has its own test (TestInt4RowError).
		if s == StorageInt4 {
			continue
		}
		for _, pair := range [][2][]float32{{got.Ngrams, m.Ngrams}, {got.Base.Vectors, m.Base.Vectors}} {
			for r := 0; r < len(pair[1])/16; r++ {
				var mx float64
				for _, v := range pair[1][r*16 : (r+1)*16] {
					mx = math.Max(mx, math.Abs(float64(v)))
				}
				for k := r * 16; k < (r+1)*16; k++ {
					err := math.Abs(float64(pair[0][k] - pair[1][k]))
					bound := map[Storage]float64{StorageFloat32: 0, StorageFloat16: math.Abs(float64(pair[1][k])) / 2048, StorageInt8: mx/254 + 1e-7}[s]
					if err > bound*1.0001 {
						t.Fatalf("%v: value %d off by %v (bound %v)", s, k, err, bound)
					}
				}
			}
		}
	}
	if !(sizes[1] < sizes[0] && sizes[2] < sizes[1] && sizes[3] < sizes[2]) {
		t.Errorf("sizes float32/float16/int8/int4 = %v, want decreasing", sizes)
	}
	if _, err := ParseStorage("int2"); err == nil {
		t.Error("ParseStorage accepted int2")
	}
}

// rewrap builds a weights file around payload with a correct length and checksum.
func rewrap(payload []byte) []byte {
	b := append([]byte(weightsMagic), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(b[8:], weightsVersion)
	binary.LittleEndian.PutUint64(b[12:], uint64(len(payload)))
	b = append(b, payload...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(payload, castagnoli))
}

func TestWeightsRejectsBadFiles(t *testing.T) {
	m := testModel(t, ModeAM, 8, 9)
	var buf bytes.Buffer
	if err := m.Save(&buf, SaveOptions{IncludeBase: true}); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	payload := good[headerLen : len(good)-4]
	expect := func(name string, data []byte, want string) {
		t.Helper()
		_, err := Load(bytes.NewReader(data), "f")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to contain %q", name, err, want)
		}
	}
	expect("empty", nil, "bad magic")
	expect("text", []byte("hello world, not a model"), "bad magic")
	bad := append([]byte(nil), good...)
	bad[8] = 9
	expect("version", bad, "format version 9")
	for _, n := range []int{10, headerLen + 3, len(good) / 2, len(good) - 1} {
		expect("truncated", good[:n], "truncated")
	}
	bad = append(append([]byte(nil), good...), 0)
	expect("trailing", bad, "unexpected bytes after the payload")
	// A single flipped bit anywhere in the payload is caught by the checksum.
	rng := rand.New(rand.NewPCG(4, 4))
	for i := 0; i < 200; i++ {
		bad = append([]byte(nil), good...)
		bad[headerLen+rng.IntN(len(payload))] ^= 1 << rng.IntN(8)
		expect("bit flip", bad, "checksum mismatch")
	}
	// Structurally bad payloads with a valid checksum.
	p := append([]byte(nil), payload...)
	binary.LittleEndian.PutUint32(p, 1<<30)
	expect("huge dimension", rewrap(p), "dimension is 1073741824")
	p = append([]byte(nil), payload...)
	p[4] = 7
	expect("mode", rewrap(p), "unknown mode 7")
	p = append([]byte(nil), payload...)
	binary.LittleEndian.PutUint32(p[19:], 0x7fffffff) // n-gram vocabulary size
	expect("huge vocabulary", rewrap(p), "n-gram vocabulary size is 2147483647")
	// NaN in M.
	mm := testModel(t, ModeAM, 8, 9)
	mm.M[3] = float32(math.NaN())
	if err := mm.Save(&buf, SaveOptions{}); err == nil || !strings.Contains(err.Error(), "M[3] is NaN") {
		t.Errorf("saving NaN parameters: %v", err)
	}
	// Each truncation of the payload with a fixed-up checksum is refused.
	for n := 0; n < len(payload); n += 1 + n/20 {
		if _, err := Load(bytes.NewReader(rewrap(payload[:n])), "f"); err == nil {
			t.Fatalf("payload truncated to %d bytes loaded", n)
		}
	}
}

func FuzzLoad(f *testing.F) {
	m := testModel(f, ModeAM, 4, 10)
	for _, opts := range []SaveOptions{{}, {IncludeBase: true, NgramStorage: StorageInt8, BaseStorage: StorageFloat16},
		{IncludeBase: true, NgramStorage: StorageInt4, BaseStorage: StorageInt4}} {
		var buf bytes.Buffer
		if err := m.Save(&buf, opts); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes(), false)
		f.Add(buf.Bytes()[headerLen:buf.Len()-4], true)
	}
	f.Fuzz(func(t *testing.T, data []byte, wrap bool) {
		if wrap {
			data = rewrap(data) // exercise the parser behind the checksum
		}
		got, err := Load(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		// Whatever loads is usable and saves again identically.
		ws := got.NewWorkspace()
		dst := make([]float32, got.Dim)
		var ctx [][]int32
		if got.Base != nil && got.Base.Len() > 0 {
			ctx = [][]int32{{0}}
		}
		got.Infer(ws, "fuzz", ctx, dst)
		var buf bytes.Buffer
		if err := got.Save(&buf, SaveOptions{IncludeBase: got.Base != nil}); err != nil {
			t.Fatalf("re-saving a loaded model: %v", err)
		}
	})
}

// Weights in memory (a *bytes.Reader) whose header announces far more than
// they hold are refused without allocating for the announced size.
func TestLoadFromMemoryBoundedByItsLength(t *testing.T) {
	data := append([]byte(weightsMagic), 1, 0, 0, 0)
	data = binary.LittleEndian.AppendUint64(data, 1<<39)
	data = append(data, make([]byte, 64)...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Load(bytes.NewReader(data), "w")
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("err = %v, want truncated", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("%d bytes of weights: %d bytes allocated", len(data), grew)
	}
}
