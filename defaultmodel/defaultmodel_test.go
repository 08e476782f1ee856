package defaultmodel

import (
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	m, err := Load()
	if len(weights) == 0 {
		if err == nil || !strings.Contains(err.Error(), "--model") {
			t.Fatalf("empty embedded model: error %v, want one pointing to --model", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if m.Dim < 1 || m.Vocab == nil || m.Base == nil {
		t.Fatalf("default model: dim %d, vocabulary %v, base %v; want a serving bundle", m.Dim, m.Vocab != nil, m.Base != nil)
	}
	again, err := Load()
	if err != nil || again == m {
		t.Fatal("Load must return a fresh model each call")
	}
}
