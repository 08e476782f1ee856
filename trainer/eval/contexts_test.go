package eval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSampleContexts(t *testing.T) {
	dir := t.TempDir()
	// Long enough that the reader's buffer is reused many times: counts must stay exact.
	var b strings.Builder
	for i := 0; i < 3000; i++ {
		b.WriteString("The good dog runs. A bad cat sleeps here.\n")
	}
	b.WriteString("Only one rare word appears: zyxt.\n")
	if err := os.WriteFile(filepath.Join(dir, "c.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cc, err := SampleContexts(context.Background(), []string{dir}, map[string]bool{"good": true, "zyxt": true, "absent": true}, 5, 2, true, 1)
	if err != nil {
		t.Fatal(err)
	}
	if cc.Counts["good"] != 3000 || cc.Counts["the"] != 3000 || cc.Counts["zyxt"] != 1 || len(cc.Counts) != 15 {
		t.Fatalf("counts: good %d, the %d, zyxt %d, %d words", cc.Counts["good"], cc.Counts["the"], cc.Counts["zyxt"], len(cc.Counts))
	}
	if len(cc.Contexts["good"]) != 5 || len(cc.Contexts["absent"]) != 0 {
		t.Fatalf("contexts: %d of good, %d of absent", len(cc.Contexts["good"]), len(cc.Contexts["absent"]))
	}
	// Sentences are units and the window is 2 words each side.
	if got := strings.Join(cc.Contexts["good"][0], " "); got != "the good dog runs" {
		t.Fatalf("context of good = %q", got)
	}
	if got := strings.Join(cc.Contexts["zyxt"][0], " "); got != "word appears zyxt" {
		t.Fatalf("context of zyxt = %q", got)
	}
	// By lines, the window crosses the sentence boundary.
	cc, err = SampleContexts(context.Background(), []string{dir}, map[string]bool{"runs": true}, 1, 2, false, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cc.Contexts["runs"][0], " "); got != "good dog runs a bad" {
		t.Fatalf("line context of runs = %q", got)
	}
}

func TestAMSkip(t *testing.T) {
	am, skip := []float32{1, 0}, []float32{0, 1}
	if v := AMSkip(am, skip, 8); v[0] != 0.75 || v[1] != 0.25 {
		t.Fatalf("AMSkip at f 8 = %v, want β 0.75", v)
	}
	if v := AMSkip(am, skip, 40); v[0] != 0 || v[1] != 1 {
		t.Fatalf("AMSkip at f 40 = %v, want the skipgram vector", v)
	}
	if v := AMSkip(am, nil, 3); v[0] != 1 {
		t.Fatalf("AMSkip without skipgram = %v", v)
	}
}
