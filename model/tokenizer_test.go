package model

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestAppendTokens(t *testing.T) {
	tok := DefaultTokenizer()
	cases := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"Hello, World!", []string{"hello", "world"}},
		{"state-of-the-art", []string{"state", "of", "the", "art"}},
		{"x86_64 GPUs 3.14", []string{"x86", "64", "gpus", "3", "14"}},
		{"Ünïcödé ÉTÉ straße", []string{"ünïcödé", "été", "straße"}},
		{"日本語 テキスト", []string{"日本語", "テキスト"}},
		{"don't", []string{"don", "t"}},
		{"a\xffb\xc3", []string{"a", "b"}}, // invalid bytes separate
		{"tab\tnew\nline", []string{"tab", "new", "line"}},
		{"ΣΊΣΥΦΟΣ", []string{"σίσυφοσ"}},             // per-rune lowercasing
		{"e\u0301t\u00e9", []string{"e", "t\u00e9"}}, // combining mark separates
	}
	for _, c := range cases {
		got := tok.AppendTokens(nil, c.in)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("AppendTokens(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	keep := Tokenizer{Lowercase: false}
	if got := keep.AppendTokens([]string{"x"}, "Hello World"); !reflect.DeepEqual(got, []string{"x", "Hello", "World"}) {
		t.Errorf("no-lowercase tokenizer: %q", got)
	}
}

func TestAppendTokensNoAllocs(t *testing.T) {
	tok := DefaultTokenizer()
	dst := make([]string, 0, 64)
	text := "the quick brown fox jumps over the lazy dog, 42 times."
	if n := testing.AllocsPerRun(100, func() { dst = tok.AppendTokens(dst[:0], text) }); n != 0 {
		t.Errorf("AppendTokens on lowercase text allocates %.1f times per call", n)
	}
}

func TestAppendSentences(t *testing.T) {
	tok := DefaultTokenizer()
	got := tok.AppendSentences(nil, "First one. Second? Third!\nFourth 3.14 is pi.  \n\n Fifth")
	want := []string{"First one.", "Second?", "Third!", "Fourth 3.14 is pi.", "Fifth"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("AppendSentences = %q, want %q", got, want)
	}
	if got := tok.AppendSentences(nil, " \n\r\n "); len(got) != 0 {
		t.Errorf("blank text gave sentences %q", got)
	}
}

// checkTokens verifies the tokenizer's invariants on arbitrary input.
// refTokens is the tokenizer's rule written plainly: maximal runs of letters
// and digits (an invalid byte decodes to U+FFFD, a separator), each
// lowercased with unicode.ToLower when lower is set.
func refTokens(in string, lower bool) []string {
	words := strings.FieldsFunc(in, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if lower {
		for i, w := range words {
			words[i] = strings.Map(unicode.ToLower, w)
		}
	}
	return words
}

func checkTokens(t *testing.T, in string) {
	for _, lower := range []bool{false, true} {
		got, want := Tokenizer{Lowercase: lower}.AppendTokens(nil, in), refTokens(in, lower)
		if !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("Lowercase=%v: tokens of %q = %q, want %q", lower, in, got, want)
		}
	}
	tok := DefaultTokenizer()
	toks := tok.AppendTokens(nil, in)
	for _, w := range toks {
		if w == "" {
			t.Fatalf("empty token from %q", in)
		}
		if !utf8.ValidString(w) {
			t.Fatalf("invalid UTF-8 token %q from %q", w, in)
		}
		for _, r := range w {
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				t.Fatalf("token %q from %q holds separator %q", w, in, r)
			}
		}
	}
	// Tokenizing the joined tokens again is the identity (lowercasing is idempotent
	// on letters that stay letters).
	again := tok.AppendTokens(nil, strings.Join(toks, " "))
	if len(again) != len(toks) {
		t.Fatalf("re-tokenizing %q: %d tokens, want %d", toks, len(again), len(toks))
	}
	// Tokens of the sentences are the tokens of the text.
	var viaSent []string
	for _, s := range tok.AppendSentences(nil, in) {
		viaSent = tok.AppendTokens(viaSent, s)
	}
	if !reflect.DeepEqual(viaSent, toks) && !(len(viaSent) == 0 && len(toks) == 0) {
		t.Fatalf("tokens via sentences %q != tokens %q for %q", viaSent, toks, in)
	}
}

func FuzzTokenizer(f *testing.F) {
	for _, s := range []string{"Hello, World!", "a\xffb", "ΣΊΣΥΦΟΣ. Next", "x86_64\n3.14", "İstanbul", "\u0130\u0131", "MiXeD CaSe ÀB", "ABC déf GHI"} {
		f.Add(s)
	}
	f.Fuzz(checkTokens)
}

// TestAppendTokenOffsets: every word's offsets span it in the text (before
// lowercasing), whether it ends at an ASCII separator, a non-ASCII one, an
// invalid byte or the end of the text.
func TestAppendTokenOffsets(t *testing.T) {
	tok := DefaultTokenizer()
	for _, text := range []string{
		"", "one", "The qx000001vz, and more.", "naïve café–bar\xffend", "  lead trail  ", "a—b c",
	} {
		words, offs := tok.AppendTokenOffsets(nil, nil, text)
		if len(offs) != 2*len(words) {
			t.Fatalf("%q: %d words, %d offsets", text, len(words), len(offs))
		}
		for i, w := range words {
			if got := strings.ToLower(text[offs[2*i]:offs[2*i+1]]); got != w {
				t.Errorf("%q: word %d is %q, its offsets span %q", text, i, w, got)
			}
		}
	}
}

// TestAppendSplitMatchesTwoPasses checks the one-pass split against its
// definition: AppendSentences, then AppendTokenOffsets on each sentence, then
// Embeddings.ID on each word, on
// random texts of words, punctuation, every kind of white space (ASCII and
// Unicode), line breaks, upper case, non-ASCII letters and invalid UTF-8.
func TestAppendSplitMatchesTwoPasses(t *testing.T) {
	pieces := []string{"word", "Word", "ÉCOLE", "naïve", "x", "42", ".", "!", "?", "...", " ", "  ", "\t", "\n", "\r\n", "\r",
		"\f", "\v", "\u00a0", "\u2003", "\u0085", ",", "-", "\xff", "\xe2\x82", "é", "ǅ", "a.b", "A!", "z?\n", "。"}
	rng := rand.New(rand.NewPCG(5, 6))
	vocabWords := []string{"word", "école", "naïve", "x", "42", "b", "é", "ǆ", "Word"}
	vocab, err := NewEmbeddings(1, vocabWords, make([]float32, len(vocabWords)), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []Tokenizer{DefaultTokenizer(), {}} {
		var got Split
		for range 20000 {
			var b strings.Builder
			for range rng.IntN(25) {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
			text := b.String()
			var want Split
			want.Sentences = tok.AppendSentences(nil, text)
			for _, s := range want.Sentences {
				want.Tokens, want.Offsets = tok.AppendTokenOffsets(want.Tokens, want.Offsets, s)
				want.SentEnd = append(want.SentEnd, len(want.Tokens))
			}
			got = Split{Sentences: got.Sentences[:0], Tokens: got.Tokens[:0], Offsets: got.Offsets[:0], SentEnd: got.SentEnd[:0],
				Vocab: vocab, IDs: got.IDs[:0]}
			tok.AppendSplit(&got, text)
			for i, w := range want.Tokens {
				id, ok := vocab.ID(w)
				if !ok {
					id = -1
				}
				if len(got.IDs) != len(want.Tokens) || got.IDs[i] != id {
					t.Fatalf("AppendSplit(%q): ids %v for words %q", text, got.IDs, want.Tokens)
				}
			}
			if !slices.Equal(got.Sentences, want.Sentences) || !slices.Equal(got.Tokens, want.Tokens) ||
				!slices.Equal(got.SentEnd, want.SentEnd) || !slices.Equal(got.Offsets, want.Offsets) && len(want.Offsets)+len(got.Offsets) > 0 {
				t.Fatalf("AppendSplit(%q) (lowercase %v):\n got %q %q %v %v\nwant %q %q %v %v", text, tok.Lowercase,
					got.Sentences, got.Tokens, got.Offsets, got.SentEnd, want.Sentences, want.Tokens, want.Offsets, want.SentEnd)
			}
		}
	}
}
