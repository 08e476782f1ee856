package amtrain

import (
	"slices"
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
	s := newSynth(t, 1500)
	d := s.data(t)
	o := smallOptions()
	plain := train(t, d, o)
	o.SharedForm = true
	r1 := train(t, d, o)
	first, last := r1.Epochs[0].Loss, r1.Epochs[len(r1.Epochs)-1].Loss
	if !(last < 0.8*first) {
		t.Errorf("loss %v → %v with SharedForm: did not fall by 20%%", first, last)
	}
	if slices.Equal(paramsOf(plain.Model), paramsOf(r1.Model)) {
		t.Error("SharedForm changed nothing")
	}
	if r2 := train(t, d, o); !slices.Equal(paramsOf(r1.Model), paramsOf(r2.Model)) {
		t.Error("two SharedForm runs with the same seed differ")
	}
}

// TestSharedFormNeedsForm: a mode without a form refuses SharedForm.
func TestSharedFormNeedsForm(t *testing.T) {
	o := smallOptions()
	o.SharedForm, o.Mode = true, model.ModeContext
	if err := o.Validate(); err == nil {
		t.Fatal("SharedForm with mode context validated")
	}
	o.Mode = model.ModeAM
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
}
