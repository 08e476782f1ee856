package vectorizer

import (
	"encoding/json"
	"math"
	"testing"
)

// TestExplainShares: an AM word reports form_share = 1 − α and
// context_share = α, and its form_coverage; a word AM saw without context
// reports 1 and 0; a base word carries none of the three keys.
func TestExplainShares(t *testing.T) {
	v := newVectorizer(t, nil)
	ex, err := v.Explain("zzzzunseen f1. qqqqunseen.", DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	words := map[string]WordExplanation{}
	for _, w := range ex.Words {
		words[w.Word] = w
	}
	am, base, alone := words["zzzzunseen"], words["f1"], words["qqqqunseen"]
	if am.Source != SourceAM || am.FormOnly || am.FormShare == nil || am.ContextShare == nil {
		t.Fatalf("word with context: %+v", am)
	}
	if *am.ContextShare != am.Alpha || math.Abs(float64(*am.FormShare+*am.ContextShare)-1) > 1e-6 {
		t.Errorf("shares %v + %v with α = %v", *am.FormShare, *am.ContextShare, am.Alpha)
	}
	if !(am.Alpha > 0 && am.Alpha < 1) {
		t.Errorf("α = %v, want in (0, 1)", am.Alpha)
	}
	for _, w := range []WordExplanation{am, alone} {
		if w.FormCoverage == nil || *w.FormCoverage != v.m.Coverage(w.Word) {
			t.Errorf("%s: form_coverage %v, want the model's coverage %v", w.Word, w.FormCoverage, v.m.Coverage(w.Word))
		}
	}
	if base.FormCoverage != nil {
		t.Errorf("base word f1: form_coverage %v", *base.FormCoverage)
	}
	if !alone.FormOnly || alone.FormShare == nil || *alone.FormShare != 1 || *alone.ContextShare != 0 {
		t.Errorf("word without context: %+v", alone)
	}
	raw, err := json.Marshal(ex)
	if err != nil {
		t.Fatal(err)
	}
	var decoded struct {
		Words []map[string]any `json:"words"`
	}
	if err := json.Unmarshal(raw, &decoded); err != nil {
		t.Fatal(err)
	}
	for _, w := range decoded.Words {
		_, fs := w["form_share"]
		_, cs := w["context_share"]
		_, fc := w["form_coverage"]
		if isBase := w["word"] == base.Word; fs == isBase || cs == isBase || fc == isBase {
			t.Errorf("%v: form_share present %v, context_share %v, form_coverage %v", w["word"], fs, cs, fc)
		}
	}
}
