package eval

import (
	"math"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
)

func TestSentimentTrainingWords(t *testing.T) {
	words, labels := SentimentTrainingWords(
		[][]string{{"Good", "nice"}, {"good", "fair"}},
		[][]string{{"bad", "fair"}, {"awful"}})
	got := []string{}
	for i, w := range words {
		got = append(got, w+map[float64]string{0: "-", 1: "+"}[labels[i]])
	}
	// "fair" is on both sides and is dropped; "good" is merged across lists.
	if strings.Join(got, " ") != "awful- bad- good+ nice+" {
		t.Fatalf("training words = %q", got)
	}
}

func TestCleanSemEval(t *testing.T) {
	got := CleanSemEval([]dataset.ScoredTerm{
		{Term: "#Love", Score: 0.8}, {Term: "love", Score: 0.6}, {Term: "can't wait", Score: 0.5}, {Term: "#1", Score: 0.1}, {Term: "x", Score: 0.2}, {Term: "b4", Score: 0.3}, {Term: "don't", Score: -0.4},
	})
	want := []dataset.ScoredTerm{{Term: "love", Score: 0.7}, {Term: "dont", Score: -0.4}}
	if len(got) != len(want) {
		t.Fatalf("cleaned = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Term != want[i].Term || math.Abs(got[i].Score-want[i].Score) > 1e-12 {
			t.Fatalf("cleaned = %+v, want %+v", got, want)
		}
	}
}

func TestSentimentScores(t *testing.T) {
	clf := &LogReg{W: []float64{1, 0}, B: 0}
	test := []dataset.ScoredTerm{{Term: "a", Score: 0.9}, {Term: "b", Score: 0.1}, {Term: "c", Score: 0.5}, {Term: "d", Score: 0.7}}
	vecs := [][]float32{{2, 0}, {-2, 0}, nil, {-1, 0}}
	counts := []int64{5, 5, 0, 50}
	rho, n := SentimentScores(clf, test, vecs, counts, []int64{10, 100})
	// ≤ 10: a, b, c with predictions σ(2), σ(-2), σ(0) vs 0.9, 0.1, 0.5 → ρ 1.
	// ≤ 100: d adds σ(-1) vs 0.7 → ranks pred 4,1,3,2 vs gold 4,1,2,3 → ρ 0.8.
	if n[0] != 3 || n[1] != 4 || math.Abs(rho[0]-1) > 1e-12 || math.Abs(rho[1]-0.8) > 1e-12 {
		t.Fatalf("ρ %v over %v words", rho, n)
	}
}
