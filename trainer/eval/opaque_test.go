package eval

import (
	"slices"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
)

// TestOpaqueWord: an opaque word is "q" and eight consonants, the same for
// the same word and different for different words.
func TestOpaqueWord(t *testing.T) {
	seen := map[string]string{}
	for _, w := range []string{"zstd", "nftables", "libssl3", "zstd2", "a", "é", "42"} {
		o := opaqueWord(w)
		if len(o) != 1+opaqueLen || o[0] != 'q' || strings.Trim(o[1:], opaqueLetters) != "" {
			t.Errorf("opaqueWord(%q) = %q, want q and %d of %q", w, o, opaqueLen, opaqueLetters)
		}
		if o != opaqueWord(w) {
			t.Errorf("opaqueWord(%q) is not deterministic", w)
		}
		if prev, dup := seen[o]; dup {
			t.Errorf("%q and %q share the opaque word %q", prev, w, o)
		}
		seen[o] = w
	}
}

// TestOpaqueText: the words known rejects are replaced, each by the opaque
// word of its lowercased token wherever it occurs; known words, punctuation
// and spacing stay; tokenizing the result gives the same words with the
// replaced ones swapped.
func TestOpaqueText(t *testing.T) {
	tok := model.DefaultTokenizer()
	known := func(w string) bool { return slices.Contains([]string{"the", "tool", "compresses", "with", "fast"}, w) }
	text := "The tool compresses with Zstd, fast.  ZSTD (v1.5)!"
	got := opaqueText(text, tok, known)
	z := opaqueWord("zstd")
	if !strings.HasPrefix(got, "The tool compresses with "+z+", fast.  "+z+" (") {
		t.Fatalf("opaqueText = %q", got)
	}
	long := "İstanbul tool: ÜBER-café with the Größe of ǅemal. Fast the tool compresses with zstd, again and again."
	for _, text := range []string{text, long} { // the second: lowercasing changes byte lengths, several sentences
		got := opaqueText(text, tok, known)
		before, after := tok.AppendTokens(nil, text), tok.AppendTokens(nil, got)
		if len(before) != len(after) {
			t.Fatalf("tokens %q became %q", before, after)
		}
		for i, w := range before {
			if want := map[bool]string{true: w, false: opaqueWord(w)}[known(w)]; after[i] != want {
				t.Errorf("word %q became %q, want %q", w, after[i], want)
			}
		}
	}
	if s := "the tool, fast."; opaqueText(s, tok, known) != s {
		t.Errorf("a text of known words changed: %q", opaqueText(s, tok, known))
	}
}
