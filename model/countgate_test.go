package model

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestCountBucket(t *testing.T) {
	for _, c := range []struct{ k, nb, want int }{
		{1, 7, 0}, {2, 7, 1}, {3, 7, 1}, {4, 7, 2}, {7, 7, 2}, {8, 7, 3}, {63, 7, 5}, {64, 7, 6}, {1000, 7, 6},
		{1, 1, 0}, {100, 1, 0}, {5, 3, 2}, {0, 7, 0},
	} {
		if got := CountBucket(c.k, c.nb); got != c.want {
			t.Errorf("CountBucket(%d, %d) = %d, want %d", c.k, c.nb, got, c.want)
		}
	}
	if err := (Config{Dim: 4, Ngram: DefaultNgramConfig(), CountBuckets: MaxCountBuckets + 1}).Validate(); err == nil {
		t.Error("a config with too many count buckets passed")
	}
}

// TestCountGateShiftsAlpha: the bias of a count bucket moves the gate of
// exactly the instances in that bucket.
func TestCountGateShiftsAlpha(t *testing.T) {
	m := testModelBuckets(t, ModeAM, 8, 3, 3)
	ws := m.NewWorkspace()
	dst := make([]float32, m.Dim)
	rng := rand.New(rand.NewPCG(2, 2))
	one := randomContexts(rng, 1, 6, m.Base.Len())
	four := randomContexts(rng, 4, 6, m.Base.Len())
	a1, a4 := m.Infer(ws, "apple", one, dst).Alpha, m.Infer(ws, "apple", four, dst).Alpha
	m.U[2*m.Dim] -= 3 // bucket 0: one context
	if b1 := m.Infer(ws, "apple", one, dst).Alpha; !(b1 < a1) {
		t.Errorf("lowering bucket 0's bias: α with one context %v → %v, want lower", a1, b1)
	}
	if b4 := m.Infer(ws, "apple", four, dst).Alpha; b4 != a4 {
		t.Errorf("lowering bucket 0's bias changed α with four contexts: %v → %v", a4, b4)
	}
}

// rewrapVersion builds a weights file of the given version around payload.
func rewrapVersion(payload []byte, version uint32) []byte {
	b := rewrap(payload)
	binary.LittleEndian.PutUint32(b[8:], version)
	return b
}

func TestWeightsCountBuckets(t *testing.T) {
	m := testModelBuckets(t, ModeAM, 12, 6, 5)
	var buf bytes.Buffer
	if err := m.Save(&buf, SaveOptions{IncludeBase: true}); err != nil {
		t.Fatal(err)
	}
	good := append([]byte(nil), buf.Bytes()...)
	if v := binary.LittleEndian.Uint32(good[8:]); v != weightsVersionCount {
		t.Fatalf("a model with count buckets was written as version %d", v)
	}
	got, err := Load(&buf, "w")
	if err != nil {
		t.Fatal(err)
	}
	equalModels(t, got, m, true)
	rng := rand.New(rand.NewPCG(1, 1))
	a, b := make([]float32, 12), make([]float32, 12)
	for _, n := range []int{1, 2, 3, 8, 40} {
		ctxs := randomContexts(rng, n, 8, m.Base.Len())
		m.Infer(m.NewWorkspace(), "apple", ctxs, a)
		got.Infer(got.NewWorkspace(), "apple", ctxs, b)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%d contexts: the loaded model infers differently", n)
		}
	}
	// The count byte follows the style byte: dim, mode, tokenizer, lowercase,
	// MinN, MaxN, MinCount, style take 20 bytes.
	payload := good[headerLen : len(good)-4]
	if payload[20] != 5 {
		t.Fatalf("count byte %d, want 5", payload[20])
	}
	for _, n := range []byte{0, MaxCountBuckets + 1} {
		p := append([]byte(nil), payload...)
		p[20] = n
		_, err := Load(bytes.NewReader(rewrapVersion(p, weightsVersionCount)), "f")
		if err == nil || !strings.Contains(err.Error(), "count buckets") {
			t.Errorf("count byte %d: error %v", n, err)
		}
	}
	// The same payload read as version 2 has no count byte: refused, not misread.
	if _, err := Load(bytes.NewReader(rewrapVersion(payload, weightsVersionStyle)), "f"); err == nil {
		t.Error("a version-3 payload loaded as version 2")
	}
}

// TestWeightsOldVersions: models without count buckets are written as
// before (version 1, or 2 for fastText-style n-grams, U of 2·dim values),
// and a file of an earlier release loads and infers by the paper's formulas.
func TestWeightsOldVersions(t *testing.T) {
	m := testModel(t, ModeAM, 8, 4)
	for _, style := range []NgramStyle{NgramReference, NgramFastText} {
		m.Ngram.Style = style
		m.Vocab.cfg.Style = style
		var buf bytes.Buffer
		if err := m.Save(&buf, SaveOptions{}); err != nil {
			t.Fatal(err)
		}
		want := uint32(weightsVersion)
		if style == NgramFastText {
			want = weightsVersionStyle
		}
		b := buf.Bytes()
		if v := binary.LittleEndian.Uint32(b[8:]); v != want {
			t.Errorf("style %v: version %d, want %d", style, v, want)
		}
		// The file ends with U (2·dim), B, the base flag and the checksum.
		tail := b[len(b)-4-1-4-4*2*m.Dim : len(b)-4-1-4]
		for i := range m.U {
			if got := binary.LittleEndian.Uint32(tail[4*i:]); got != math.Float32bits(m.U[i]) {
				t.Fatalf("style %v: U[%d] not where the old layout puts it", style, i)
			}
		}
		if crc32.Checksum(b[headerLen:len(b)-4], castagnoli) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
			t.Fatal("bad checksum")
		}
	}
	checkReleasedModel(t, "../defaultmodel/default.am")
}

// checkReleasedModel loads a weights file written by an earlier release
// (skipped when absent) and checks that it infers by the paper's formulas.
func checkReleasedModel(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		t.Skipf("%s not present", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v > weightsVersionStyle {
		t.Skipf("%s is version %d, not an earlier release's", path, v)
	}
	m, err := Load(bytes.NewReader(data), path)
	if err != nil {
		t.Fatal(err)
	}
	if m.CountBuckets != 0 || len(m.U) != 2*m.Dim {
		t.Fatalf("%s: %d count buckets, U of %d values", path, m.CountBuckets, len(m.U))
	}
	p := toParams64(m)
	ws := m.NewWorkspace()
	dst := make([]float32, m.Dim)
	rng := rand.New(rand.NewPCG(9, 9))
	for _, w := range []string{"unfathomable", "kubectl", "a"} {
		ctxs := randomContexts(rng, 1+rng.IntN(6), 20, m.Base.Len())
		m.Infer(ws, w, ctxs, dst)
		want, _, _, _ := naiveInfer(m, p, w, ctxs)
		for k := range want {
			if !closeTo(dst[k], want[k], 1e-4) {
				t.Fatalf("%s, %q: v[%d] = %v, the paper's formulas give %v", path, w, k, dst[k], want[k])
			}
		}
	}
}
