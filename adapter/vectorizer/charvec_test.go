package vectorizer

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/simd"
)

// scriptDocs are two texts per script; the first of each pair is the query's
// own document.
var scriptDocs = map[string][2]string{
	"japanese": {"日本語のテキストを検索する", "東京の天気予報は晴れです"},
	"chinese":  {"机器学习是人工智能的一个分支", "长城是中国古代的军事工程"},
	"korean":   {"한국어 문장을 검색합니다", "서울은 대한민국의 수도입니다"},
	"arabic":   {"البحث عن النصوص العربية", "القاهرة عاصمة مصر"},
	"hindi":    {"हिंदी पाठ की खोज करना", "दिल्ली भारत की राजधानी है"},
}

// TestAnyScript: a text of any script gets a finite unit vector, the same on
// every call and every vectorizer (a view on other stores included), and a
// query shares more with the text it was cut from than with the other texts.
func TestAnyScript(t *testing.T) {
	v := newVectorizer(t, nil)
	mem := newMemory(t)
	v2, err := newVectorizer(t, nil).WithStores(mem, mem, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	vecs := map[string][]float32{}
	for name, docs := range scriptDocs {
		for i, d := range docs {
			vec, err := v.Vectorize(d, TaskPassage, o)
			if err != nil {
				t.Fatalf("%s %q: %v", name, d, err)
			}
			if !finite(vec) || isZero(vec) {
				t.Fatalf("%s %q: vector not finite or zero", name, d)
			}
			again, err := v2.Vectorize(d, TaskPassage, o)
			if err != nil || !equalVec(vec, again) {
				t.Errorf("%s %q: another vectorizer gives another vector (%v)", name, d, err)
			}
			vecs[name+string(rune('0'+i))] = vec
		}
	}
	if equalVec(vecs["japanese0"], vecs["korean0"]) {
		t.Error("texts of two scripts share a vector")
	}
}

// TestCharVectorSharesCharacters: at a serving dimension, a query's character
// vectors are closer to the text it was cut from than to every other text.
func TestCharVectorSharesCharacters(t *testing.T) {
	const dim = 300
	vec := func(text string) []float32 {
		sum := make([]float32, dim)
		x := make([]float32, dim)
		for _, w := range strings.Fields(text) {
			if !charVector(w, 1, x) {
				t.Fatalf("%q: no character vector", w)
			}
			simd.Axpy(1, x, sum)
		}
		return sum
	}
	queries := map[string]string{"japanese": "テキストを検索", "chinese": "人工智能", "korean": "문장을 검색",
		"arabic": "النصوص العربية", "hindi": "पाठ की खोज"}
	for name, q := range queries {
		qv := vec(q)
		own := cosine(qv, vec(scriptDocs[name][0]))
		for other, docs := range scriptDocs {
			for i, d := range docs {
				if (other != name || i != 0) && cosine(qv, vec(d)) >= own {
					t.Errorf("%s query %q: %q scores %.3f ≥ its own text's %.3f", name, q, d, cosine(qv, vec(d)), own)
				}
			}
		}
	}
}

func cosine(a, b []float32) float32 {
	return simd.Dot(a, b) / float32(math.Sqrt(float64(simd.Dot(a, a))*float64(simd.Dot(b, b))))
}

// TestSymbolsOnly: a text of emoji alone gets the character vector of its
// symbols, closer to a text of the same emoji than to another emoji; a text
// of punctuation alone has nothing to embed.
func TestSymbolsOnly(t *testing.T) {
	v := newVectorizer(t, nil)
	o := DefaultOptions()
	vec := func(text string) []float32 {
		x, err := v.Vectorize(text, TaskQuery, o)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if !finite(x) || isZero(x) {
			t.Fatalf("%q: vector not finite or zero", text)
		}
		return x
	}
	party, rocket := vec("🎉 🎉 🚀"), vec("🚀!")
	if near, far := simd.Dot(party, vec("🎉")), simd.Dot(party, vec("🍕")); near <= far {
		t.Errorf("cosine with the same emoji %.3f, with another %.3f", near, far)
	}
	if c := simd.Dot(rocket, vec("🚀")); c < 0.999 {
		t.Errorf("punctuation beside an emoji changed its vector: cosine %.4f", c)
	}
	vec("❤️")
	vec("🚀 ロケット") // an emoji beside a word
	for _, text := range []string{"!!! ...", " \t\n", "", "\xff\xfe"} {
		if _, err := v.Vectorize(text, TaskQuery, o); !errors.Is(err, ErrNoWords) {
			t.Errorf("%q: %v, want ErrNoWords", text, err)
		}
	}
}

func equalVec(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
