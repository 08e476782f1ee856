package eval

import (
	"math"
	"strings"
	"testing"
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
	got := CleanSemEval([]ScoredTerm{
		{"#Love", 0.8}, {"love", 0.6}, {"can't wait", 0.5}, {"#1", 0.1}, {"x", 0.2}, {"b4", 0.3}, {"don't", -0.4},
	})
	want := []ScoredTerm{{"love", 0.7}, {"dont", -0.4}}
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
	test := []ScoredTerm{{"a", 0.9}, {"b", 0.1}, {"c", 0.5}, {"d", 0.7}}
	vecs := [][]float32{{2, 0}, {-2, 0}, nil, {-1, 0}}
	counts := []int64{5, 5, 0, 50}
	rho, n := SentimentScores(clf, test, vecs, counts, []int64{10, 100})
	// ≤ 10: a, b, c with predictions σ(2), σ(-2), σ(0) vs 0.9, 0.1, 0.5 → ρ 1.
	// ≤ 100: d adds σ(-1) vs 0.7 → ranks pred 4,1,3,2 vs gold 4,1,2,3 → ρ 0.8.
	if n[0] != 3 || n[1] != 4 || math.Abs(rho[0]-1) > 1e-12 || math.Abs(rho[1]-0.8) > 1e-12 {
		t.Fatalf("ρ %v over %v words", rho, n)
	}
}
