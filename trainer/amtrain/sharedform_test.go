package amtrain

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
)

// TestSharedNgrams: an n-gram is shared when two or more words have it; a
// word that repeats an n-gram counts once.
func TestSharedNgrams(t *testing.T) {
	words := []string{"apple", "applet", "zzzq", "aaaa"}
	vocab := model.BuildNgramVocab(words, model.NgramConfig{MinN: 3, MaxN: 4, MinCount: 1})
	keep := sharedNgrams(vocab, words)
	kept := func(w string) (yes, no int) {
		for _, id := range vocab.AppendIDs(nil, w) {
			if keep[id] {
				yes++
			} else {
				no++
			}
		}
		return
	}
	if yes, _ := kept("zzzq"); yes != 0 {
		t.Errorf("zzzq shares %d n-grams with no other word", yes)
	}
	if yes, _ := kept("aaaa"); yes != 0 { // "aaa" twice in one word: still one word
		t.Errorf("aaaa: %d n-grams kept", yes)
	}
	if yes, no := kept("apple"); yes == 0 || no == 0 { // "<ap", "app", … shared; "le>" only in apple
		t.Errorf("apple: %d shared, %d own n-grams; want both", yes, no)
	}
}

// TestTrainSharedForm: SharedForm trains (the loss falls) and changes the
// weights, deterministically.
func TestTrainSharedForm(t *testing.T) {
	d := newSynth(t, 1500).data(t)
	o := smallOptions()
	with := o
	with.SharedForm = true
	checkTrainsDiffersRepeats(t, d, o, with, "SharedForm")
}

// checkTrainsDiffersRepeats checks that training with options with lowers the
// loss by 20 %, gives other weights than with options base, and repeats.
func checkTrainsDiffersRepeats(t *testing.T, d *Data, base, with Options, name string) {
	t.Helper()
	before := train(t, d, base)
	r1 := train(t, d, with)
	first, last := r1.Epochs[0].Loss, r1.Epochs[len(r1.Epochs)-1].Loss
	if !(last < 0.8*first) {
		t.Errorf("loss %v → %v with %s: did not fall by 20%%", first, last, name)
	}
	if slices.Equal(paramsOf(before.Model), paramsOf(r1.Model)) {
		t.Errorf("%s changed nothing", name)
	}
	if r2 := train(t, d, with); !slices.Equal(paramsOf(r1.Model), paramsOf(r2.Model)) {
		t.Errorf("two %s runs with the same seed differ", name)
	}
}

// TestSharedFormNeedsForm: a mode without a form refuses SharedForm.
func TestSharedFormNeedsForm(t *testing.T) {
	o := smallOptions()
	o.SharedForm, o.Mode = true, model.ModeContext
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "--mode context trains a model without a form, and --shared-form only applies") {
		t.Fatalf("SharedForm with mode context: err = %v, want one naming --mode context and --shared-form", err)
	}
	o.Mode = model.ModeAM
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestNgramMass: an n-gram's mass is the summed counts of the words that
// have it, each word's count once however often the n-gram occurs in it.
func TestNgramMass(t *testing.T) {
	words := []string{"apple", "applet", "zzzq", "banana", "canal"}
	counts := []int64{90, 10, 5, 30, -20}
	vocab := model.BuildNgramVocab(words, model.NgramConfig{MinN: 3, MaxN: 4, MinCount: 1})
	mass := ngramMass(vocab, words, counts)
	massOf := func(g string) float64 {
		for _, w := range words {
			for _, id := range vocab.AppendIDs(nil, w) {
				if vocab.Ngram(id) == g {
					return mass[id]
				}
			}
		}
		t.Fatalf("no n-gram %q", g)
		return 0
	}
	// "ana" twice in banana counts banana's 30 once; canal's negative count as 0.
	for g, want := range map[string]float64{"app": 100, "zzz": 5, "ana": 30, "nal": 0, "ban": 30} {
		if got := massOf(g); got != want {
			t.Errorf("%s: mass %v, want %v", g, got, want)
		}
	}
	if w := wordCount(counts, 4); w != 0 {
		t.Errorf("a negative count counts %v, want 0", w)
	}
	// The unknown n-gram (every n-gram below the vocabulary's min count) has no mass.
	rare := model.BuildNgramVocab(words, model.NgramConfig{MinN: 3, MaxN: 4, MinCount: 2})
	if !slices.Contains(rare.AppendIDs(nil, "zzzq"), model.UnknownNgram) {
		t.Fatal("zzzq has no unknown n-gram at min count 2")
	}
	if m := ngramMass(rare, words, counts)[model.UnknownNgram]; m != 0 {
		t.Errorf("the unknown n-gram has mass %v, want 0", m)
	}
}

// TestTrainFormShare: FormShare trains, changes the weights against
// SharedForm alone, and repeats with the same seed; 0 is SharedForm alone; it
// needs SharedForm and a share of 0 or in (0, 1).
func TestTrainFormShare(t *testing.T) {
	d := newSynth(t, 1500).data(t)
	o := smallOptions()
	o.SharedForm = true
	with := o
	with.FormShare = 0.5
	checkTrainsDiffersRepeats(t, d, o, with, "FormShare 0.5")
	low := with
	low.FormShare = 0.25 // leaves out at least as much: differs from 0.5
	checkTrainsDiffersRepeats(t, d, with, low, "FormShare 0.25")
	// FormShare 0 is SharedForm alone: the same weights and checkpoint fingerprint.
	off := o
	off.FormShare = 0
	if !slices.Equal(paramsOf(train(t, d, o).Model), paramsOf(train(t, d, off).Model)) {
		t.Error("FormShare 0 changed SharedForm's weights")
	}
	p, err := MakePlan(d, &o)
	if err != nil {
		t.Fatal(err)
	}
	w := d.Base.Words
	if p.fingerprint(&o, w, d.Counts) != p.fingerprint(&off, w, d.Counts) || p.fingerprint(&with, w, d.Counts) == p.fingerprint(&o, w, d.Counts) {
		t.Error("the fingerprint must change with FormShare 0.5 only")
	}
	// The counts decide what is left out: with FormShare they enter the fingerprint, without it not.
	other := slices.Clone(d.Counts)
	other[0]++
	if p.fingerprint(&with, w, other) == p.fingerprint(&with, w, d.Counts) || p.fingerprint(&o, w, other) != p.fingerprint(&o, w, d.Counts) {
		t.Error("the base counts must enter the fingerprint with FormShare only")
	}
	// The base words decide which n-grams are shared: with SharedForm they enter it, without it not.
	respelled := slices.Clone(w)
	respelled[len(respelled)-1] += "x"
	plain := o
	plain.SharedForm, plain.FormShare = false, 0
	if p.fingerprint(&o, respelled, d.Counts) == p.fingerprint(&o, w, d.Counts) || p.fingerprint(&plain, respelled, d.Counts) != p.fingerprint(&plain, w, d.Counts) {
		t.Error("the base words must enter the fingerprint with SharedForm only")
	}
	for _, c := range []struct {
		shared bool
		share  float64
	}{{false, 0.5}, {true, -0.1}, {true, 1}, {true, 1.5}, {true, math.NaN()}} {
		o.SharedForm, o.FormShare = c.shared, c.share
		if err := o.Validate(); err == nil {
			t.Errorf("SharedForm %v, FormShare %v validated", c.shared, c.share)
		}
	}
	o.SharedForm, o.FormShare = true, 0.25 // below 0.5 several words may hold more than the share
	if err := o.Validate(); err != nil {
		t.Errorf("FormShare 0.25: %v", err)
	}
}

// TestHoldingAll counts the training words that hold more than the share of
// every shared n-gram they have (they keep the n-grams they hold least); a
// word with no shared n-gram counts all of its n-grams.
func TestHoldingAll(t *testing.T) {
	words := []string{"apple", "applet", "zzzq", "banana", "canal"}
	counts := []int64{90, 10, 5, 30, 20}
	vocab := model.BuildNgramVocab(words, model.NgramConfig{MinN: 3, MaxN: 4, MinCount: 1})
	keep := sharedNgrams(vocab, words)
	mass := ngramMass(vocab, words, counts)
	tw := make([]TrainWord, len(words))
	for i, w := range words {
		tw[i] = TrainWord{Word: w, Base: int32(i)}
	}
	// apple holds 0.9 of what it shares with applet (applet 0.1); banana 0.6 of "ana" (canal 0.4);
	// zzzq shares nothing and holds all of its own n-grams.
	for share, want := range map[float64]int{0.5: 3, 0.3: 4, 0.05: 5, 0.95: 1} {
		if got := holdingAll(vocab, tw, keep, mass, counts, share); got != want {
			t.Errorf("share %v: %d words hold all their shared n-grams, want %d", share, got, want)
		}
	}
}

// TestHoldsIsTheOwnerRule: from a share of 0.5 on, a word holds an n-gram
// exactly when it is the n-gram's single owner as the owner rule chooses it
// (the word of the largest count, if that count is more than share of the
// n-gram's mass), ties and zero counts included.
func TestHoldsIsTheOwnerRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	words := make([]string, 300)
	counts := make([]int64, len(words))
	for i := range words {
		b := make([]byte, 2+rng.IntN(4))
		for j := range b {
			b[j] = "abc"[rng.IntN(3)]
		}
		words[i] = fmt.Sprintf("%s%d", b, i%7) // repeats and shared n-grams
		counts[i] = int64(rng.IntN(4)) * int64(rng.IntN(50))
	}
	vocab := model.BuildNgramVocab(words, model.NgramConfig{MinN: 2, MaxN: 3, MinCount: 1})
	mass := ngramMass(vocab, words, counts)
	for _, share := range []float64{0.5, 0.6, 0.75, 0.99} {
		top, owner := make([]float64, vocab.Len()), make([]int, vocab.Len())
		forDistinctNgrams(vocab, words, func(w int, id int32) {
			if c := wordCount(counts, int32(w)); c > top[id] {
				top[id], owner[id] = c, w
			}
		})
		forDistinctNgrams(vocab, words, func(w int, id int32) {
			isOwner := top[id] > share*mass[id] && owner[id] == w
			if held := model.Holds(wordCount(counts, int32(w)), share, mass[id]); held != isOwner {
				t.Fatalf("share %v, word %q (count %d), n-gram %q: holds %v, owner %v", share, words[w], counts[w], vocab.Ngram(id), held, isOwner)
			}
		})
	}
}
