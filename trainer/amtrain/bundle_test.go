package amtrain

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/model"
)

// TestBundleRows checks the AM+skip rows (β(f) mix, contexts from the corpus)
// and the rows added for corpus words without a base vector.
func TestBundleRows(t *testing.T) {
	s := newSynth(t, 600)
	d := s.data(t)
	o := smallOptions()
	o.Epochs = 1
	res := train(t, d, o)
	m := res.Model
	// Pretend some words are rare: counts 1, 8, 31, 32 and 0.
	rare := map[int]int64{0: 1, 1: 8, 2: 31, 3: 32, 4: 0}
	for id, f := range rare {
		d.Counts[id] = f
	}
	emb, st, err := BuildBundle(context.Background(), m, d, nil, BundleOptions{MaxContexts: 100000, Window: 25, OOVMaxCount: 5, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if st.AMSkip != 3 {
		t.Errorf("AM+skip rows = %d, want 3 (f = 1, 8, 31)", st.AMSkip)
	}
	sampler := NewSampler(d.Index, d.Base, 25)
	ws := m.NewWorkspace()
	v := make([]float32, m.Dim)
	// With more contexts allowed than exist, the AM vector uses all of them.
	allContexts := func(word string) [][]int32 {
		xid, ok := d.Index.ID(word)
		if !ok {
			return nil
		}
		var cs contextSet
		picks := make([]int, len(d.Index.Positions(xid)))
		for i := range picks {
			picks[i] = i
		}
		return cs.build(sampler, xid, d.Index.Positions(xid), picks)
	}
	for id, f := range rare {
		w := s.words[id]
		got := emb.Row(int32(id))
		want := make([]float32, m.Dim)
		copy(want, s.base.Row(int32(id)))
		if f >= 1 && f < 32 {
			m.Infer(ws, w, allContexts(w), v)
			beta := model.AMSkipBeta(f)
			if want := 1 - float32(f)/32; math.Abs(float64(beta-want)) > 1e-6 {
				t.Errorf("β(%d) = %v, want %v", f, beta, want)
			}
			for k := range want {
				want[k] = beta*v[k] + (1-beta)*want[k]
			}
		}
		if !close32(got, want, 1e-4) {
			t.Errorf("row of %s (f=%d) = %v, want %v", w, f, got[:3], want[:3])
		}
		if emb.Count(int32(id)) != f {
			t.Errorf("count of %s = %d, want %d", w, emb.Count(int32(id)), f)
		}
	}
	// "zzunknown" has no base vector and occurs often (f ≥ 5): no row.
	if _, ok := emb.ID("zzunknown"); ok {
		t.Error("a frequent word without a base vector got a row")
	}
	if st.OOV != 0 || emb.Len() != s.base.Len() {
		t.Errorf("OOV rows = %d, len %d", st.OOV, emb.Len())
	}
	// With a counts file saying zzunknown occurs 3 times, it gets a pure AM row.
	emb2, st2, err := BuildBundle(context.Background(), m, d, map[string]int64{"zzunknown": 3}, BundleOptions{MaxContexts: 100000, Window: 25, OOVMaxCount: 5, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	id, ok := emb2.ID("zzunknown")
	if !ok || st2.OOV != 1 || emb2.Count(id) != 3 {
		t.Fatalf("OOV row: ok=%v rows=%d", ok, st2.OOV)
	}
	m.Infer(ws, "zzunknown", allContexts("zzunknown"), v)
	if !close32(emb2.Row(id), v, 1e-4) {
		t.Errorf("OOV row %v, want the AM vector %v", emb2.Row(id)[:3], v[:3])
	}
	// OOVMaxCount 0 disables those rows.
	_, st3, _ := BuildBundle(context.Background(), m, d, map[string]int64{"zzunknown": 3}, BundleOptions{MaxContexts: 64, Window: 25, Seed: 3})
	if st3.OOV != 0 {
		t.Errorf("OOVMaxCount 0: %d OOV rows", st3.OOV)
	}
}

func close32(a, b []float32, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > tol*(1+math.Abs(float64(b[i]))) {
			return false
		}
	}
	return true
}

// TestTrainCommand runs the CLI end to end: weights, bundle, infer.
func TestTrainCommand(t *testing.T) {
	s := newSynth(t, 600)
	out := filepath.Join(s.dir, "m.am")
	bundle := filepath.Join(s.dir, "m.bundle.am")
	var stdout, stderr bytes.Buffer
	env := cli.Env{Stdout: &stdout, Stderr: &stderr, Args: []string{
		"--corpus", s.corpus, "--embeddings", s.embeddings, "--out", out, "--bundle-out", bundle,
		"--min-count-train", "20", "--epochs", "2", "--batch", "8", "--threads", "2", "--holdout", "4", "--quiet"}}
	if err := runTrain(context.Background(), env); err != nil {
		t.Fatalf("train: %v\n%s", err, stderr.String())
	}
	for _, want := range []string{"mode am", "inst/cpu_s", "held-out words: 4"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, stdout.String())
		}
	}
	m, err := model.LoadFile(bundle)
	if err != nil {
		t.Fatal(err)
	}
	if m.Base == nil || m.Base.Len() != s.base.Len() {
		t.Fatalf("bundle base: %v", m.Base)
	}
	if _, err := model.LoadFile(filepath.Join(s.dir, "m.am.ckpt")); err == nil {
		t.Error("the checkpoint must not load as a weights file")
	}
	if _, err := LoadCheckpoint(filepath.Join(s.dir, "m.am.ckpt")); err != nil {
		t.Errorf("epoch checkpoint: %v", err)
	}
	// infer with the bundle, and with the weights file plus --embeddings.
	in := writeFile(t, s.dir, "in.tsv", "Newword\t"+s.words[0]+" "+s.words[1]+"\t"+s.words[2]+"\n\n"+s.words[5]+"\n")
	for _, args := range [][]string{{"--model", bundle}, {"--model", out, "--embeddings", s.embeddings}} {
		vec := filepath.Join(s.dir, "out.vec")
		stdout.Reset()
		env := cli.Env{Stdout: &stdout, Stderr: &stderr, Args: append(args, "--input", in, "--out", vec)}
		if err := runInfer(context.Background(), env); err != nil {
			t.Fatalf("infer %v: %v", args, err)
		}
		e, err := model.LoadEmbeddings(vec)
		if err != nil {
			t.Fatal(err)
		}
		if e.Len() != 2 || e.Words[0] != "Newword" || e.Dim != synthDim {
			t.Errorf("infer output: %d words %v dim %d", e.Len(), e.Words, e.Dim)
		}
	}
	// infer without base embeddings is a usage error.
	err = runInfer(context.Background(), cli.Env{Stdout: &stdout, Stderr: &stderr, Args: []string{"--model", out, "--input", in, "--out", "-"}})
	if err == nil || !strings.Contains(err.Error(), "--embeddings") {
		t.Errorf("infer with a weights file and no embeddings: %v", err)
	}
}

func TestBundleCancelled(t *testing.T) {
	s := newSynth(t, 300)
	d := s.data(t)
	o := smallOptions()
	o.Epochs = 1
	m := train(t, d, o).Model
	d.Counts[0] = 3
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := BuildBundle(ctx, m, d, nil, BundleOptions{MaxContexts: 64, Window: 25, Seed: 1}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled bundle: err = %v", err)
	}
	if _, _, err := BuildBundle(context.Background(), m, d, nil, BundleOptions{MaxContexts: 0, Window: 25}); err == nil {
		t.Error("MaxContexts 0 must be refused")
	}
}

// TestTrainCorpusRepeatable: every --corpus is read, not just the last (a
// missing first corpus must fail, not be silently dropped).
func TestTrainCorpusRepeatable(t *testing.T) {
	s := newSynth(t, 300)
	missing := filepath.Join(s.dir, "no-such-corpus.txt")
	err := runTrainArgs(t, "--corpus", missing, "--corpus", s.corpus, "--embeddings", s.embeddings,
		"--out", filepath.Join(s.dir, "m.am"), "--epochs", "1")
	if err == nil || !strings.Contains(err.Error(), "no-such-corpus.txt") {
		t.Fatalf("train with a missing first --corpus: err = %v, want one naming it", err)
	}
}

// TestTrainBaseStorage checks that --base-storage reaches the bundle's base
// table alone: int4 n-grams with int8 base rows make a bundle larger than
// all-int4 by exactly the base rows' extra bytes, and --out is the same.
func TestTrainBaseStorage(t *testing.T) {
	s := newSynth(t, 300)
	sizes := map[string][2]int64{}
	var m *model.Model
	for _, base := range []string{"", "int8"} {
		out := filepath.Join(s.dir, "m"+base+".am")
		bundle := filepath.Join(s.dir, "b"+base+".am")
		args := []string{"--corpus", s.corpus, "--embeddings", s.embeddings, "--out", out, "--bundle-out", bundle,
			"--min-count-train", "20", "--epochs", "1", "--storage", "int4"}
		if base != "" {
			args = append(args, "--base-storage", base)
		}
		if err := runTrainArgs(t, args...); err != nil {
			t.Fatal(err)
		}
		var err error
		if m, err = model.LoadFile(bundle); err != nil {
			t.Fatal(err)
		}
		sizes[base] = [2]int64{fileSize(t, out), fileSize(t, bundle)}
	}
	rows, d := int64(m.Base.Len()), int64(m.Dim)
	if sizes[""][0] != sizes["int8"][0] {
		t.Errorf("--out sizes %d and %d differ: --base-storage changed the weights file", sizes[""][0], sizes["int8"][0])
	}
	if got, want := sizes["int8"][1]-sizes[""][1], rows*(d-(d+1)/2); got != want {
		t.Errorf("bundle grew by %d bytes with int8 base rows, want %d (%d rows × %d)", got, want, rows, d-(d+1)/2)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestBundleLeavesOutAVeryLongWord: a corpus word without a base vector
// that is longer than a vocabulary word may be (model.MaxWordBytes) gets no
// OOV row; the bundle is built with the others.
func TestBundleLeavesOutAVeryLongWord(t *testing.T) {
	s := newSynth(t, 300)
	long := strings.Repeat("q", model.MaxWordBytes+1)
	f, err := os.OpenFile(s.corpus, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "%s %s.\n", s.words[0], long)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	d := s.data(t)
	o := smallOptions()
	o.Epochs = 1
	m := train(t, d, o).Model
	emb, st, err := BuildBundle(context.Background(), m, d, map[string]int64{"zzunknown": 3},
		BundleOptions{MaxContexts: 64, Window: 25, OOVMaxCount: 5, Seed: 3})
	if err != nil {
		t.Fatalf("a bundle over a corpus with a word of %d bytes: %v", len(long), err)
	}
	if _, ok := emb.ID(long); ok || st.OOV != 1 {
		t.Errorf("the long word has a row: %v; OOV rows %d, want 1 (zzunknown)", ok, st.OOV)
	}
}
