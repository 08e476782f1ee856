package model

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"reflect"
	"strings"
	"testing"
)

func TestNgramVocabFastTextStyle(t *testing.T) {
	cfg := NgramConfig{MinN: 3, MaxN: 6, MinCount: 1, Style: NgramFastText}
	v, err := NewNgramVocab(cfg, []string{"<ap", "app", "ple>", "<apple>", "<app>"})
	if err != nil {
		t.Fatal(err)
	}
	// fastText style: unknown n-grams are left out, not mapped to UNK.
	if got, want := v.AppendIDs(nil, "apple"), []int32{1, 2, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("apple: ids %v, want %v", got, want)
	}
	// "<apple>" is longer than MaxN; "<app>" is app's whole padded word.
	if got, want := v.AppendIDs(nil, "app"), []int32{1, 5, 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("app: ids %v, want %v", got, want)
	}
	if got := v.AppendIDs(nil, "zzz"); !reflect.DeepEqual(got, []int32{UnknownNgram}) {
		t.Errorf("a word without known n-grams: %v, want [UNK]", got)
	}
	// The reference style maps the same unknown n-grams to UNK.
	ref, err := NewNgramVocab(NgramConfig{MinN: 3, MaxN: 3, MinCount: 1}, []string{"\x00ap"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ref.AppendIDs(nil, "apple"), []int32{1, 0, 0, 0, 0}; !reflect.DeepEqual(got, want) {
		t.Errorf("reference style: %v, want %v", got, want)
	}
	if _, err := NewNgramVocab(cfg, []string{"app", "app"}); err == nil {
		t.Error("duplicate n-grams accepted")
	}
	if err := (NgramConfig{MinN: 3, MaxN: 6, MinCount: 1, Style: 7}).Validate(); err == nil {
		t.Error("style 7 accepted")
	}
}

// TestWeightsFastTextStyle round-trips a fastText-style model (format
// version 2) and checks that reference-style models are still written as
// version 1, and that a version-2 file with an unknown style is refused.
func TestWeightsFastTextStyle(t *testing.T) {
	m := testModel(t, ModeAM, 8, 3)
	var buf bytes.Buffer
	if err := m.Save(&buf, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(buf.Bytes()[8:]); v != 1 {
		t.Errorf("reference style written as version %d, want 1", v)
	}
	cfg := NgramConfig{MinN: 3, MaxN: 6, MinCount: 1, Style: NgramFastText}
	vocab, err := NewNgramVocab(cfg, cfg.AppendNgrams(nil, "apple"))
	if err != nil {
		t.Fatal(err)
	}
	fm, err := New(Config{Dim: 8, Mode: ModeAM, Ngram: cfg, Tokenizer: DefaultTokenizer()}, vocab, m.Base, 1)
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := fm.Save(&buf, SaveOptions{IncludeBase: true}); err != nil {
		t.Fatal(err)
	}
	data := bytes.Clone(buf.Bytes())
	if v := binary.LittleEndian.Uint32(data[8:]); v != 2 {
		t.Errorf("fastText style written as version %d, want 2", v)
	}
	got, err := Load(bytes.NewReader(data), "ft")
	if err != nil {
		t.Fatal(err)
	}
	equalModels(t, got, fm, true)
	if got.Ngram != cfg {
		t.Errorf("n-gram config %+v, want %+v", got.Ngram, cfg)
	}
	a, b := make([]float32, 8), make([]float32, 8)
	fm.Infer(fm.NewWorkspace(), "pineapple", nil, a)
	got.Infer(got.NewWorkspace(), "pineapple", nil, b)
	if !reflect.DeepEqual(a, b) {
		t.Error("the loaded model infers differently")
	}
	// Corrupt the style byte (after dim, mode, tokenizer, lowercase, MinN, MaxN, MinCount) and fix the checksum.
	off := headerLen + 4 + 3 + 12
	data[off] = 9
	payload := data[headerLen : len(data)-4]
	binary.LittleEndian.PutUint32(data[len(data)-4:], crc32.Checksum(payload, castagnoli))
	if _, err := Load(bytes.NewReader(data), "bad"); err == nil || !strings.Contains(err.Error(), "n-gram style 9") {
		t.Errorf("style 9: %v", err)
	}
}

func TestFastTextConfigOf(t *testing.T) {
	cfg, err := FastTextConfigOf([]string{"<ab", "abcd>", "é>x", "<abcd"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MinN != 3 || cfg.MaxN != 5 || cfg.Style != NgramFastText || cfg.MinCount != 1 {
		t.Fatalf("config %+v: want fastText-style 3..5 (runes, not bytes)", cfg)
	}
	if _, err := FastTextConfigOf(nil); err == nil {
		t.Fatal("no n-grams: no error")
	}
	if _, err := FastTextConfigOf([]string{strings.Repeat("a", 40)}); err == nil {
		t.Fatal("a 40-symbol n-gram: no error")
	}
	// A vocabulary's words (a word vectors file given as the n-gram table,
	// </s> included) mark no word ends: an error, not a 1..5-gram table.
	if _, err := FastTextConfigOf([]string{"</s>", "the", "of", "a", "house", "and", "in", "to", "is", "was", "for", "on", "as", "by", "with", "he", "at", "from", "his", "it", "an"}); err == nil {
		t.Fatal("a list of words taken for n-grams: no error")
	}
}
