package amtrain

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/text2vec-am/text2vec-am/internal/checkpoint"
	"github.com/text2vec-am/text2vec-am/model"
)

// Options configures AM training. DefaultOptions returns the paper's protocol.
type Options struct {
	// Mode selects AM, FCM, form-only or a context-only model.
	Mode model.Mode
	// Epochs is the number of passes over the training words.
	Epochs int
	// Batch is the number of instances per Adam step.
	Batch int
	// Adam settings.
	LR, Beta1, Beta2, Eps float64
	// Threads splits every batch; results are reproducible for a given Seed and Threads.
	Threads int
	// Seed fixes the model's initialisation, the held-out words, the epoch
	// orders and every instance's contexts.
	Seed int64
	// MinCountTrain: base-vocabulary words with at least this many occurrences are trained.
	MinCountTrain int64
	// A word w is trained n(w) = min(⌊f(w)/CountPerInstance⌋, MaxInstances) times per epoch.
	CountPerInstance int64
	// MaxInstances caps n(w).
	MaxInstances int
	// Each instance samples between 1 and MaxContexts contexts, drawn as ContextDraw says.
	MaxContexts int
	// ContextDraw is the distribution of an instance's number of contexts.
	ContextDraw ContextDraw
	// CountBuckets gives the gate a learned bias per bucket of the number of
	// contexts (model.Config.CountBuckets; 0: the paper's gate).
	CountBuckets int
	// GateAgreement gives the gate the contexts' agreement as one more
	// input (model.Config.GateAgreement).
	GateAgreement bool
	// GateCoverage gives the gate the form's coverage as one more input
	// (model.Config.GateCoverage).
	GateCoverage bool
	// ContextSIF weighs each context word by its SIF weight a/(a + p(w))
	// in the context's mean (model.Config.ContextSIF; 0: the paper's plain
	// mean), p(w) from the base embeddings' counts, or Data.Counts when they
	// have none.
	ContextSIF float64
	// AlaCarteA starts A from the A La Carte map of the training words
	// (least squares from their context vectors to their base vectors)
	// instead of a random matrix.
	AlaCarteA bool
	// Window is the number of tokens kept on either side of the word.
	Window int
	// IncludeInstances is the number of instances per epoch of each included word.
	IncludeInstances int
	// Holdout training words are set aside (chosen with Seed), never trained on,
	// and scored at the end of every epoch.
	Holdout int
	// Ngram configures the character n-gram vocabulary built from the training words.
	Ngram model.NgramConfig
	// Pretrained, when set, replaces that vocabulary: the n-gram table starts
	// from these vectors (fastText-style n-grams; Ngram is then ignored).
	Pretrained *PretrainedNgrams
	// NgramLRScale multiplies LR for the n-gram table (0 freezes it).
	NgramLRScale float64
	// SharedForm trains each word's form from the n-grams it shares with at
	// least one other base word, leaving out those only it has: with a
	// pretrained n-gram table they were trained on its own contexts, which a
	// new word's n-grams never were. The words counted are the base words, so
	// this is the leave-one-out it means when the base is the subword model
	// whose n-grams the table holds (the one-space design). Inference is
	// unchanged: rows inferred for base words (bundles) use the full form.
	SharedForm bool
	// FormShare, with SharedForm and in (0, 1), also leaves out of each
	// training word's form the n-grams of which it holds more than FormShare
	// of the occurrences (its count over the summed counts of the base words
	// that have the n-gram): those were
	// trained mostly on its own contexts, so its form would tell more about
	// its vector than a new word's form can, and the gate would learn to
	// trust the contexts less than a new word needs. A word that holds more
	// than FormShare of every SharedForm n-gram it has keeps those it holds
	// least (the largest summed counts), so a smaller FormShare never gives
	// an n-gram back. The unknown n-gram (n-grams below the vocabulary's min
	// count) is never left out. 0 leaves out only the n-grams no other word
	// has.
	FormShare float64
	// CheckpointPath, when set, receives a checkpoint after every
	// CheckpointEvery epochs, after the last and on cancellation.
	CheckpointPath string
	// CheckpointEvery is the number of epochs between checkpoints (0 or 1:
	// after every epoch).
	CheckpointEvery int
	// Resume, when set, is a checkpoint to continue from.
	Resume string
	// Progress, when set, receives a progress bar.
	Progress io.Writer
	// Log receives progress messages (nil: none).
	Log *slog.Logger

	// afterBatch, when set (tests), is called after every batch.
	afterBatch func(epoch, batch int)
}

// DefaultOptions returns the paper's protocol (appendix A): words with ≥ 100
// occurrences, n(w) = min(⌊f/100⌋, 5), 1–64 contexts of ±25 tokens, Adam with
// learning rate 0.01, batch 64, 5 epochs.
func DefaultOptions() Options {
	return Options{
		Mode:             model.ModeAM,
		Epochs:           5,
		Batch:            64,
		LR:               0.01,
		Beta1:            0.9,
		Beta2:            0.999,
		Eps:              1e-8,
		Threads:          runtime.NumCPU(),
		Seed:             1,
		MinCountTrain:    100,
		CountPerInstance: 100,
		MaxInstances:     5,
		MaxContexts:      64,
		Window:           DefaultWindow,
		IncludeInstances: 5,
		Ngram:            model.DefaultNgramConfig(),
		NgramLRScale:     1,
	}
}

// Validate reports the first invalid option.
func (o *Options) Validate() error {
	switch {
	case o.Epochs < 1:
		return fmt.Errorf("epochs must be ≥ 1, got %d", o.Epochs)
	case o.Batch < 1:
		return fmt.Errorf("batch must be ≥ 1, got %d", o.Batch)
	case !(o.LR > 0) || math.IsInf(o.LR, 0):
		return fmt.Errorf("learning rate must be a positive number, got %v", o.LR)
	case !(o.Beta1 >= 0 && o.Beta1 < 1) || !(o.Beta2 >= 0 && o.Beta2 < 1):
		return fmt.Errorf("Adam betas must be in [0, 1), got %v and %v", o.Beta1, o.Beta2)
	case !(o.Eps > 0):
		return fmt.Errorf("Adam epsilon must be positive, got %v", o.Eps)
	case o.Threads < 1:
		return fmt.Errorf("threads must be ≥ 1, got %d", o.Threads)
	case o.MinCountTrain < 1:
		return fmt.Errorf("min-count-train must be ≥ 1, got %d", o.MinCountTrain)
	case o.CountPerInstance < 1:
		return fmt.Errorf("count per instance must be ≥ 1, got %d", o.CountPerInstance)
	case o.MaxInstances < 1:
		return fmt.Errorf("max instances per word must be ≥ 1, got %d", o.MaxInstances)
	case o.MaxContexts < 1:
		return fmt.Errorf("max-contexts must be ≥ 1, got %d", o.MaxContexts)
	case o.ContextDraw > DrawLogUniform:
		return fmt.Errorf("unknown context draw %v", o.ContextDraw)
	case o.CountBuckets < 0 || o.CountBuckets > model.MaxCountBuckets:
		return fmt.Errorf("count buckets must be in 0..%d, got %d", model.MaxCountBuckets, o.CountBuckets)
	case o.SharedForm && !o.Mode.UsesForm():
		return noFormError(o.Mode, []string{"--shared-form"})
	case !(o.FormShare >= 0 && o.FormShare < 1):
		return fmt.Errorf("--form-share must be 0 (off) or in (0, 1), got %v", o.FormShare)
	case o.FormShare != 0 && !o.SharedForm:
		return fmt.Errorf("--form-share %v needs --shared-form", o.FormShare)
	case o.CountBuckets > 0 && !o.Mode.Gated():
		return fmt.Errorf("--count-buckets %d needs a gate, and --mode %v has no gate (only am and fcm have one)", o.CountBuckets, o.Mode)
	case o.GateAgreement && !o.Mode.Gated():
		return fmt.Errorf("--gate-agreement needs a gate, and --mode %v has no gate (only am and fcm have one)", o.Mode)
	case o.GateCoverage && !o.Mode.Gated():
		return fmt.Errorf("--gate-coverage needs a gate, and --mode %v has no gate (only am and fcm have one)", o.Mode)
	case !(o.ContextSIF >= 0) || math.IsInf(o.ContextSIF, 0) || o.ContextSIF > math.MaxFloat32:
		return fmt.Errorf("--context-sif must be a number ≥ 0, got %v", o.ContextSIF)
	case o.ContextSIF > 0 && o.Mode == model.ModeForm:
		return fmt.Errorf("--context-sif: --mode %v has no contexts", o.Mode)
	case o.AlaCarteA && o.Mode == model.ModeForm:
		return fmt.Errorf("--alacarte-a: --mode %v has no context part", o.Mode)
	case o.CountBuckets > bits.Len(uint(o.MaxContexts)):
		// An instance has at most MaxContexts contexts: a bucket beyond
		// ⌊log₂ MaxContexts⌋ would never be trained, and serving would use
		// its untrained bias for words with more contexts.
		return fmt.Errorf("count buckets %d: with max-contexts %d only %d can be trained", o.CountBuckets, o.MaxContexts, bits.Len(uint(o.MaxContexts)))
	case o.CheckpointEvery < 0:
		return fmt.Errorf("checkpoint-every must be ≥ 0, got %d", o.CheckpointEvery)
	case o.Window < 1:
		return fmt.Errorf("window must be ≥ 1, got %d", o.Window)
	case o.IncludeInstances < 1:
		return fmt.Errorf("include instances must be ≥ 1, got %d", o.IncludeInstances)
	case o.Holdout < 0:
		return fmt.Errorf("holdout must be ≥ 0, got %d", o.Holdout)
	case !(o.NgramLRScale >= 0) || math.IsInf(o.NgramLRScale, 0):
		return fmt.Errorf("n-gram learning-rate scale must be a number ≥ 0, got %v", o.NgramLRScale)
	}
	if err := o.Ngram.Validate(); err != nil {
		return err
	}
	return nil
}

// noFormError is the error of flags that only a model with a form uses
// (--shared-form, --ngrams …), given with mode, a mode without one.
func noFormError(mode model.Mode, flags []string) error {
	list, verb := flags[len(flags)-1], "applies"
	if len(flags) > 1 {
		list, verb = strings.Join(flags[:len(flags)-1], ", ")+" and "+list, "apply"
	}
	return fmt.Errorf("--mode %v trains a model without a form, and %s only %s to a model with a form (--mode am, fcm or form)", mode, list, verb)
}

// Data is what training reads: the corpus index, the base embeddings and the
// word frequencies.
type Data struct {
	// Index holds the corpus occurrences.
	Index *Index
	// Base holds the base embeddings, the training targets and context vectors.
	Base *model.Embeddings
	// Counts[id] is f(w) for base word id (from a counts file or the corpus).
	Counts []int64
	// Include lists extra base words trained IncludeInstances times per epoch
	// whatever their count (the paper's † variant).
	Include []string
	// Only, when not nil, restricts the training words that MinCountTrain
	// selects to these (Include words are trained whatever Only says).
	Only []string
	// Tokenizer is stored in the model; it must be the one the index was built with.
	Tokenizer model.Tokenizer
}

// TrainWord is one word of the training plan.
type TrainWord struct {
	// Word is the word itself.
	Word  string
	Index int32 // id in the Index
	Base  int32 // id in the base embeddings
	N     int   // instances per epoch
}

// Plan is the set of training and held-out words.
type Plan struct {
	// Words are the training words, in base-vocabulary order.
	Words []TrainWord
	// Holdout are the held-out words, never trained on.
	Holdout []TrainWord
	// Instances is the number of training instances per epoch.
	Instances int
	// NoContexts counts words with enough occurrences by their count that do
	// not occur in the corpus (counts from another corpus); they are skipped.
	NoContexts int
}

// NumInstances returns n(w) = min(⌊f/perInstance⌋, maxInstances) for a
// trained word (the paper's schedule), at least 1, so that a --min-count-train
// below perInstance still trains every selected word once per epoch.
func NumInstances(f, perInstance int64, maxInstances int) int {
	return int(max(1, min(f/perInstance, int64(maxInstances))))
}

// splitHoldout sets n of the words apart, drawn with seed: it returns the
// words kept and the words held out, each in their order in words.
func splitHoldout(words []TrainWord, n int, seed int64) (kept, held []TrainWord) {
	r := newRNG(uint64(seed), tagHoldout)
	perm := make([]int, len(words))
	for i := range perm {
		perm[i] = i
	}
	for i := len(perm) - 1; i > 0; i-- {
		j := r.intn(i + 1)
		perm[i], perm[j] = perm[j], perm[i]
	}
	out := make(map[int]bool, n)
	for _, i := range perm[:n] {
		out[i] = true
	}
	kept = words[:0:0]
	for i, tw := range words {
		if out[i] {
			held = append(held, tw)
		} else {
			kept = append(kept, tw)
		}
	}
	return kept, held
}

// MakePlan selects the training words (base words with f ≥ MinCountTrain that
// occur in the corpus, plus Include), their n(w), and the held-out words.
func MakePlan(d *Data, o *Options) (*Plan, error) {
	if len(d.Counts) != d.Base.Len() {
		return nil, fmt.Errorf("training data: %d counts for %d base words", len(d.Counts), d.Base.Len())
	}
	p := &Plan{}
	included := make(map[int32]bool, len(d.Include))
	for _, w := range d.Include {
		id, ok := d.Base.ID(w)
		if !ok {
			return nil, fmt.Errorf("include word %q has no base embedding", w)
		}
		included[id] = true
	}
	var only map[int32]bool
	if d.Only != nil {
		only = make(map[int32]bool, len(d.Only))
		for _, w := range d.Only {
			if id, ok := d.Base.ID(w); ok {
				only[id] = true
			}
		}
	}
	var regular []TrainWord
	for id := int32(0); int(id) < d.Base.Len(); id++ {
		word := d.Base.Words[id]
		f := d.Counts[id]
		inc := included[id]
		if (f < o.MinCountTrain || (only != nil && !only[id])) && !inc {
			continue
		}
		xid, ok := d.Index.ID(word)
		if !ok {
			if inc {
				return nil, fmt.Errorf("include word %q does not occur in the corpus", word)
			}
			p.NoContexts++
			continue
		}
		tw := TrainWord{Word: word, Index: xid, Base: id}
		if f >= o.MinCountTrain {
			tw.N = NumInstances(f, o.CountPerInstance, o.MaxInstances)
		}
		if inc {
			tw.N = max(tw.N, o.IncludeInstances)
			p.Words = append(p.Words, tw)
			continue
		}
		if tw.N > 0 {
			regular = append(regular, tw)
		}
	}
	if o.Holdout > 0 {
		if o.Holdout >= len(regular) {
			return nil, fmt.Errorf("holdout %d must be smaller than the %d training words", o.Holdout, len(regular))
		}
		regular, p.Holdout = splitHoldout(regular, o.Holdout, o.Seed)
	}
	p.Words = append(p.Words, regular...)
	sort.Slice(p.Words, func(i, j int) bool { return p.Words[i].Base < p.Words[j].Base })
	for _, tw := range p.Words {
		p.Instances += tw.N
	}
	if len(p.Words) == 0 {
		return nil, fmt.Errorf("no training words: no base word occurs at least %d times in the corpus counts", o.MinCountTrain)
	}
	return p, nil
}

// fingerprint identifies what a checkpoint's training run depends on; the
// base words enter it with SharedForm (they decide which n-grams are shared)
// and their counts with FormShare (they decide which are left out).
func (p *Plan) fingerprint(o *Options, words []string, counts []int64) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%v|%d|%g|%g|%g|%g|%d|%d|%d|%d|%v\n", o.Mode, o.Batch, o.LR, o.Beta1, o.Beta2, o.Eps,
		o.Seed, o.MaxContexts, o.Window, o.Holdout, o.Ngram)
	if o.Pretrained != nil { // only then, so that earlier checkpoints still match
		fmt.Fprintf(h, "pretrained n-grams %d %g\n", o.Pretrained.rows(), o.NgramLRScale)
	}
	if o.ContextDraw != DrawUniform || o.CountBuckets > 0 { // likewise
		fmt.Fprintf(h, "contexts %v, count buckets %d\n", o.ContextDraw, o.CountBuckets)
	}
	if o.GateAgreement || o.AlaCarteA { // likewise
		fmt.Fprintf(h, "gate agreement %v, A La Carte A %v\n", o.GateAgreement, o.AlaCarteA)
	}
	if o.ContextSIF != 0 { // likewise
		fmt.Fprintf(h, "context SIF %g\n", o.ContextSIF)
	}
	if o.GateCoverage { // likewise
		fmt.Fprintf(h, "gate coverage, knee %g\n", model.CoverageKnee)
	}
	if o.SharedForm { // likewise
		fmt.Fprintf(h, "shared form %d\n", len(words))
		for _, w := range words {
			fmt.Fprintf(h, "%s\n", w)
		}
	}
	if o.FormShare != 0 { // likewise
		fmt.Fprintf(h, "form share %g %v\n", o.FormShare, counts)
	}
	for _, w := range p.Words {
		fmt.Fprintf(h, "%s %d\n", w.Word, w.N)
	}
	for _, w := range p.Holdout {
		fmt.Fprintf(h, "-%s\n", w.Word)
	}
	return h.Sum64()
}

// RNG stream tags.
const (
	tagHoldout uint64 = iota + 0x51ab
	tagShuffle
	tagInstance
	tagEval
	tagBundle
	tagAlaCarte
)

// HoldoutContexts are the numbers of contexts the held-out words are scored
// with (the VecMap buckets of the paper, up to the 64 contexts of training).
var HoldoutContexts = [...]int{1, 2, 4, 8, 16, 32, 64}

// HoldoutScore is the mean cosine between inferred and base embeddings of the
// held-out words, inferred from up to HoldoutContexts[i] contexts.
type HoldoutScore struct {
	// Words is the number of held-out words scored.
	Words int
	// Cos[i] is the mean cosine with up to HoldoutContexts[i] contexts.
	Cos [len(HoldoutContexts)]float64
}

// Cos64 is the score with up to 64 contexts.
func (h *HoldoutScore) Cos64() float64 { return h.Cos[len(h.Cos)-1] }

// EpochStats records one epoch.
type EpochStats struct {
	// Epoch counts from 1.
	Epoch int
	// Loss is the mean squared distance to the target per instance.
	Loss float64
	// Instances is the number of training instances of the epoch.
	Instances int
	// Seconds is the wall time of the epoch (held-out scoring excluded).
	Seconds float64
	// CPUSeconds is the process's user+system CPU time during the epoch: on a
	// shared machine, instances per CPU second are what the code achieves.
	CPUSeconds float64
	// Flops counts the epoch's floating-point operations (InstanceFlops).
	Flops float64
	// Holdout is the held-out score after the epoch (nil without holdout).
	Holdout *HoldoutScore
}

// Result is the outcome of Train.
type Result struct {
	// Model is the trained model, with the base embeddings attached.
	Model *model.Model
	// Plan is the set of training and held-out words used.
	Plan *Plan
	// Epochs records every epoch, those before a resume included.
	Epochs []EpochStats
	// Holdout is the final score on the held-out words (nil without holdout).
	Holdout *HoldoutScore
}

// ErrInterrupted is returned (wrapping context.Canceled) when training was
// cancelled; a checkpoint was written when Options.CheckpointPath is set.
var ErrInterrupted = checkpoint.ErrInterrupted

type trainer struct {
	o       *Options
	d       *Data
	plan    *Plan
	sampler *Sampler
	m       *model.Model
	adam    *Adam
	workers []*worker
	log     *slog.Logger
	mass    []float64 // Options.FormShare: per n-gram, the summed counts of the base words that have it
}

type worker struct {
	ws     *model.Workspace
	g      *model.Grads
	cs     contextSet
	v      []float32
	ngrams []int32
	flops  float64
}

// Train runs AM training as configured and returns the trained model.
func Train(ctx context.Context, d *Data, o Options) (*Result, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	plan, err := MakePlan(d, &o)
	if err != nil {
		return nil, err
	}
	if plan.NoContexts > 0 {
		log.Warn("words with enough occurrences by their count do not occur in the corpus; skipped", "words", plan.NoContexts)
	}
	t := &trainer{o: &o, d: d, plan: plan, sampler: NewSampler(d.Index, d.Base, o.Window), log: log}
	fp, bfp := plan.fingerprint(&o, d.Base.Words, d.Counts), uint64(0)
	if o.CheckpointPath != "" || o.Resume != "" {
		bfp = baseFingerprint(d.Base)
	}
	start, err := t.init(fp, bfp)
	if err != nil {
		return nil, err
	}
	t.adam.NgramScale = o.NgramLRScale
	start.Fingerprint, start.BaseFingerprint, start.Threads, start.Seed = fp, bfp, o.Threads, o.Seed
	start.Epochs, start.Settings = o.Epochs, settingsOf(&o, plan)
	var keep []bool
	if o.SharedForm {
		keep = sharedNgrams(t.m.Vocab, d.Base.Words)
	}
	if o.FormShare != 0 {
		t.mass = ngramMass(t.m.Vocab, d.Base.Words, d.Counts)
		log.Info("form share", "share", o.FormShare, "training_words", len(plan.Words),
			"words_left_with_their_least_held_ngrams", holdingAll(t.m.Vocab, plan.Words, keep, t.mass, d.Counts, o.FormShare))
	}
	for i := 0; i < o.Threads; i++ {
		ws := t.m.NewWorkspace()
		ws.KeepNgrams(keep)
		t.workers = append(t.workers, &worker{ws: ws, g: t.m.NewGrads(), v: make([]float32, t.m.Dim)})
	}
	log.Info("training plan", "mode", o.Mode.String(), "words", len(plan.Words), "instances/epoch", plan.Instances,
		"holdout", len(plan.Holdout), "ngrams", t.m.Vocab.Len(), "threads", o.Threads)
	res := &Result{Model: t.m, Plan: plan, Epochs: start.History}
	prog := newProgress(o.Progress, int64(plan.Instances)*int64(o.Epochs-start.Epoch)-int64(start.Batch*o.Batch))
	sched := make([]int32, 0, plan.Instances)
	st := start
	for epoch := start.Epoch; epoch < o.Epochs; epoch++ {
		sched = t.schedule(sched[:0], epoch)
		b0 := 0
		if epoch == start.Epoch {
			b0 = start.Batch
			st.EpochLoss, st.EpochFlops, st.EpochSeconds, st.EpochCPU = start.EpochLoss, start.EpochFlops, start.EpochSeconds, start.EpochCPU
		} else {
			st.EpochLoss, st.EpochFlops, st.EpochSeconds, st.EpochCPU = 0, 0, 0, 0
		}
		if err := t.epoch(ctx, epoch, sched, b0, &st, res, prog); err != nil {
			return nil, err
		}
	}
	prog.finish()
	if res.Holdout == nil && len(plan.Holdout) > 0 {
		res.Holdout = t.evalHoldout()
	}
	return res, nil
}

// init sets the model and the optimizer: from the checkpoint o.Resume, whose
// fingerprints must be fp and bfp (checkResume), or new. It returns where
// training starts.
func (t *trainer) init(fp, bfp uint64) (TrainState, error) {
	o, d := t.o, t.d
	if o.Resume != "" {
		ck, err := LoadCheckpoint(o.Resume)
		if err != nil {
			return TrainState{}, err
		}
		if err := t.checkResume(&ck.State, fp, bfp); err != nil {
			return TrainState{}, err
		}
		if err := t.checkResumedModel(ck.Model); err != nil {
			return TrainState{}, err
		}
		if ck.State.Threads != o.Threads {
			t.log.Warn("resuming with another thread count: results will differ slightly from an uninterrupted run", "checkpoint", ck.State.Threads, "now", o.Threads)
		}
		if err := ck.Model.AttachBase(t.base()); err != nil {
			return TrainState{}, fmt.Errorf("resume %s: %w", o.Resume, err)
		}
		t.m, t.adam = ck.Model, ck.Adam
		t.adam.LR, t.adam.Beta1, t.adam.Beta2, t.adam.Eps = o.LR, o.Beta1, o.Beta2, o.Eps
		t.log.Info("resuming", "checkpoint", o.Resume, "position", ck.State.position(t.batches()))
		return ck.State, nil
	}
	words := make([]string, len(t.plan.Words))
	for i, w := range t.plan.Words {
		words[i] = w.Word
	}
	var m *model.Model
	var err error
	if o.Pretrained != nil {
		m, err = newPretrainedModel(o.Pretrained, t.arch(), t.base(), o.Seed)
	} else {
		cfg := t.arch()
		cfg.Dim, cfg.Ngram = d.Base.Dim, o.Ngram
		m, err = model.New(cfg, model.BuildNgramVocab(words, o.Ngram), t.base(), o.Seed)
	}
	if err != nil {
		return TrainState{}, err
	}
	t.m = m
	if o.AlaCarteA {
		if err := t.initAlaCarte(); err != nil {
			return TrainState{}, err
		}
	}
	t.adam = NewAdam(m, o.LR, o.Beta1, o.Beta2, o.Eps)
	return TrainState{}, nil
}

// arch returns the configuration of the run's model but its dimension and
// n-grams, which the base embeddings and the n-gram table give.
func (t *trainer) arch() model.Config {
	o := t.o
	return model.Config{Mode: o.Mode, Tokenizer: t.d.Tokenizer, CountBuckets: o.CountBuckets,
		GateAgreement: o.GateAgreement, GateCoverage: o.GateCoverage, ContextSIF: float32(o.ContextSIF)}
}

// checkResumedModel refuses the model of a checkpoint whose configuration
// is not the one the run builds (its fingerprint matched, so the file was
// edited): resuming would train, and write as the run's, a model of
// another mode, dimension or n-grams.
func (t *trainer) checkResumedModel(m *model.Model) error {
	want := t.arch()
	want.Dim, want.Ngram = t.d.Base.Dim, t.o.Ngram
	if p := t.o.Pretrained; p != nil {
		var err error
		if want.Ngram, err = p.config(want.Dim); err != nil {
			return err
		}
	}
	if m.Config != want {
		return fmt.Errorf("resume %s: the checkpoint's model is not the run's (%+v, the run's %+v): the file is damaged",
			t.o.Resume, m.Config, want)
	}
	return nil
}

// base returns the base embeddings the model reads contexts from: Data.Base
// with Data.Counts as its counts (the weights of Options.ContextSIF).
func (t *trainer) base() *model.Embeddings {
	if t.d.Base.Counts != nil || t.o.ContextSIF == 0 {
		return t.d.Base
	}
	b := *t.d.Base
	b.Counts = t.d.Counts
	return &b
}

// batches returns the number of batches of an epoch.
func (t *trainer) batches() int {
	return (t.plan.Instances + t.o.Batch - 1) / t.o.Batch
}

// checkResume refuses to resume from a checkpoint of state st made with
// other base embeddings (its BaseFingerprint is not bfp, baseFingerprint: the
// same words with other vector values are refused too), said first since
// other base words change the training words too, or with other training
// words or options (its Fingerprint is not fp), naming those that differ. A checkpoint written
// before base fingerprints were recorded cannot be checked: it is resumed
// with a warning.
func (t *trainer) checkResume(st *TrainState, fp, bfp uint64) error {
	switch {
	case st.BaseFingerprint != 0 && st.BaseFingerprint != bfp:
		return fmt.Errorf("resume %s: the checkpoint was made with other base embeddings (other words or other vector values); resume with the --embeddings it was trained with", t.o.Resume)
	case st.Fingerprint != fp:
		if diff := checkpoint.Diff(st.Settings, settingsOf(t.o, t.plan)); diff != "" {
			return fmt.Errorf("resume %s: the checkpoint was made with other training words or options: %s; use the same ones",
				t.o.Resume, diff)
		}
		return fmt.Errorf("resume %s: the checkpoint was made with other training words or options (mode, batch, lr, seed, contexts, window, holdout, n-grams, shared form, form share); use the same ones", t.o.Resume)
	case st.BaseFingerprint == 0:
		t.log.Warn("resume: the checkpoint does not record its base embeddings (written by an older version): make sure --embeddings are the ones it was trained with", "checkpoint", t.o.Resume)
	}
	return t.checkPosition(st)
}

// checkPosition refuses a checkpoint state that training cannot have
// written: a negative epoch or batch, a batch past the last of an epoch, a
// history of another length than the epochs completed, or a thread count
// below 1 (Options.Validate refuses it; a damaged or hand-edited checkpoint
// whose checksum was recomputed). It also refuses a state already beyond
// Options.Epochs, from which training would silently train nothing; a state
// at the end of exactly Options.Epochs (a finished run) is resumed, with
// nothing left to train.
func (t *trainer) checkPosition(st *TrainState) error {
	nb := t.batches()
	switch {
	case st.Epoch < 0 || st.Batch < 0:
		return fmt.Errorf("resume %s: the checkpoint's position (epoch %d, batch %d) is negative: the file is damaged", t.o.Resume, st.Epoch, st.Batch)
	case st.Batch >= max(nb, 1):
		return fmt.Errorf("resume %s: the checkpoint's batch %d is past the last of an epoch (%d batches): the file is damaged", t.o.Resume, st.Batch, nb)
	case len(st.History) != st.Epoch:
		return fmt.Errorf("resume %s: the checkpoint records %d epochs done but the history of %d: the file is damaged", t.o.Resume, st.Epoch, len(st.History))
	case st.Threads < 1:
		return fmt.Errorf("resume %s: the checkpoint records %d threads (training always runs at least 1): the file is damaged", t.o.Resume, st.Threads)
	}
	return t.checkEpochs(st)
}

// checkEpochs refuses a checkpoint state beyond Options.Epochs: more epochs
// done, or a batch of the epoch after the last (resuming would train
// nothing and return the checkpoint's weights as if trained to --epochs).
func (t *trainer) checkEpochs(st *TrainState) error {
	need := st.Epoch // the --epochs st needs
	if st.Batch > 0 {
		need++
	}
	if need > t.o.Epochs {
		return fmt.Errorf("resume %s: the checkpoint is %s, beyond --epochs %d: resuming would train nothing; give --epochs %d or more",
			t.o.Resume, st.position(t.batches()), t.o.Epochs, need)
	}
	if st.Epoch == t.o.Epochs {
		t.log.Info("resume: the checkpoint has done all --epochs: nothing left to train", "checkpoint", t.o.Resume, "epochs", t.o.Epochs)
	}
	return nil
}

// epoch trains the batches b0.. of sched, the schedule of epoch, adding to
// the partial sums in st, then records the epoch in res and writes the
// checkpoint. A cancelled ctx stops it with ErrInterrupted after a
// checkpoint.
func (t *trainer) epoch(ctx context.Context, epoch int, sched []int32, b0 int, st *TrainState, res *Result, prog *progress) error {
	o := t.o
	nb := (len(sched) + o.Batch - 1) / o.Batch
	began, cpuBegan := time.Now(), cpuSeconds()
	for b := b0; b < nb; b++ {
		if err := ctx.Err(); err != nil {
			prog.finish()
			st.Epoch, st.Batch = epoch, b
			st.EpochSeconds += time.Since(began).Seconds()
			st.EpochCPU += cpuSeconds() - cpuBegan
			st.History = res.Epochs
			return t.interrupt(err, st, nb)
		}
		lo, hi := b*o.Batch, min((b+1)*o.Batch, len(sched))
		loss, flops := t.batch(epoch, sched, lo, hi)
		if math.IsNaN(loss) || math.IsInf(loss, 0) {
			prog.finish()
			return fmt.Errorf("training diverged at epoch %d batch %d (loss %v); try a lower --lr", epoch+1, b, loss)
		}
		st.EpochLoss += loss
		st.EpochFlops += flops
		prog.add(int64(hi-lo), loss/float64(hi-lo), epoch+1, o.Epochs)
		if o.afterBatch != nil {
			o.afterBatch(epoch, b)
		}
	}
	st.EpochSeconds += time.Since(began).Seconds()
	st.EpochCPU += cpuSeconds() - cpuBegan
	return t.endEpoch(epoch, len(sched), st, res, prog)
}

// interrupt writes the checkpoint of st (when a path is set) after ctx
// failed with err, and returns the ErrInterrupted error saying where it
// stopped (epoch st.Epoch, batch st.Batch of nb) and how to continue.
func (t *trainer) interrupt(err error, st *TrainState, nb int) error {
	o := t.o
	if o.CheckpointPath == "" {
		return fmt.Errorf("%w %s (%w); no checkpoint path set, nothing saved", ErrInterrupted, st.position(nb), err)
	}
	if cerr := t.checkpoint(st); cerr != nil {
		return fmt.Errorf("%w (%w); writing the checkpoint failed too: %v", ErrInterrupted, err, cerr)
	}
	return fmt.Errorf("%w %s (%w); checkpoint written to %s: continue with --resume %s",
		ErrInterrupted, st.position(nb), err, o.CheckpointPath, o.CheckpointPath)
}

// endEpoch records the finished epoch (n instances, the sums in st) in res,
// scores the held-out words, logs it, resets st to the next epoch and
// writes the checkpoint.
func (t *trainer) endEpoch(epoch, n int, st *TrainState, res *Result, prog *progress) error {
	es := EpochStats{Epoch: epoch + 1, Loss: st.EpochLoss / float64(n), Instances: n,
		Seconds: st.EpochSeconds, CPUSeconds: st.EpochCPU, Flops: st.EpochFlops}
	if len(t.plan.Holdout) > 0 {
		es.Holdout = t.evalHoldout()
		res.Holdout = es.Holdout
	}
	res.Epochs = append(res.Epochs, es)
	prog.pause()
	attrs := []any{"epoch", es.Epoch, "loss", es.Loss, "seconds", es.Seconds, "instances/s", float64(es.Instances) / es.Seconds}
	if es.Holdout != nil {
		attrs = append(attrs, "holdout_cos64", es.Holdout.Cos64())
	}
	t.log.Info("epoch done", attrs...)
	st.Epoch, st.Batch, st.History = epoch+1, 0, res.Epochs
	st.EpochLoss, st.EpochFlops, st.EpochSeconds, st.EpochCPU = 0, 0, 0, 0
	if t.o.CheckpointPath != "" && (st.Epoch == t.o.Epochs || t.o.CheckpointEvery <= 1 || st.Epoch%t.o.CheckpointEvery == 0) {
		return t.checkpoint(st)
	}
	return nil
}

// schedule appends the epoch's instances (indices into plan.Words, word i
// repeated N times) in a random order fixed by (seed, epoch).
func (t *trainer) schedule(dst []int32, epoch int) []int32 {
	for i, w := range t.plan.Words {
		for k := 0; k < w.N; k++ {
			dst = append(dst, int32(i))
		}
	}
	r := newRNG(uint64(t.o.Seed), tagShuffle, uint64(epoch))
	for i := len(dst) - 1; i > 0; i-- {
		j := r.intn(i + 1)
		dst[i], dst[j] = dst[j], dst[i]
	}
	return dst
}

// batch runs instances sched[lo:hi] split over the workers, sums their
// gradients in worker order and takes one Adam step. It returns the summed
// loss and the flops spent.
func (t *trainer) batch(epoch int, sched []int32, lo, hi int) (loss, flops float64) {
	n := hi - lo
	nw := min(len(t.workers), n)
	var wg sync.WaitGroup
	for w := 0; w < nw; w++ {
		wk := t.workers[w]
		a, b := lo+w*n/nw, lo+(w+1)*n/nw
		wg.Add(1)
		go func() {
			defer wg.Done()
			wk.g.Reset()
			wk.flops = 0
			for i := a; i < b; i++ {
				t.instance(wk, epoch, i, &t.plan.Words[sched[i]])
			}
		}()
	}
	wg.Wait()
	g := t.workers[0].g
	for w := 1; w < nw; w++ {
		g.Add(t.workers[w].g)
	}
	for w := 0; w < nw; w++ {
		flops += t.workers[w].flops
	}
	t.adam.Apply(t.m, g, 1/float32(n))
	return g.Loss, flops
}

// instance runs forward and backward for instance i of the epoch. Its contexts
// come from a generator seeded by (seed, epoch, i) only.
func (t *trainer) instance(wk *worker, epoch, i int, tw *TrainWord) {
	r := newRNG(uint64(t.o.Seed), tagInstance, uint64(epoch), uint64(i))
	k := t.o.ContextDraw.draw(&r, t.o.MaxContexts)
	ctxs := wk.cs.sample(t.sampler, &r, tw.Index, k)
	if t.mass != nil {
		wk.ws.LeaveOut(t.mass, wordCount(t.d.Counts, tw.Base), t.o.FormShare)
	}
	t.m.Infer(wk.ws, tw.Word, ctxs, wk.v)
	t.m.Backward(wk.ws, t.d.Base.Row(tw.Base), wk.g)
	wk.ngrams = t.m.Vocab.AppendIDs(wk.ngrams[:0], tw.Word)
	wk.flops += InstanceFlops(t.m, len(wk.ngrams), ctxs)
}

// InstanceFlops counts the floating-point operations (a multiply-add is two)
// of one forward and backward pass of model m, as package model computes them,
// for a word with g character n-grams and m non-empty contexts holding L words
// in total (d = m.Dim):
//
//	forward:  g·d (form) + L·d + m·d (context means) + 2m·d (weighted sum) + 2d² (A·v_ctx)
//	          attention (am, context): 4d² (M·S, Mᵀ·M·S) + 3m·d; gate (am, fcm): 7d
//	backward: 3d (loss) + 2g·d (n-gram rows)
//	          attention: 6d² (M·w and two rank-1 updates of ∂M) + 4m·d
//	          gate: 4d² (∂A, Aᵀ·∂v) + 16d; context-only: 4d²
//
// The attention uses Σ_j s(C_i, C_j) = v_Ci·(MᵀM·S)/√d with S = Σ_j v_Cj, so
// it needs no per-context d×d products.
func InstanceFlops(m *model.Model, g int, contexts [][]int32) float64 {
	d := float64(m.Dim)
	mc := float64(len(contexts))
	var l float64
	for _, c := range contexts {
		l += float64(len(c))
	}
	usesForm := m.Mode.UsesForm()
	attentive := m.Mode == model.ModeAM || m.Mode == model.ModeContext
	gated := m.Mode == model.ModeAM || m.Mode == model.ModeFCM
	f := 3 * d
	if usesForm {
		f += 3*float64(g)*d + d
	}
	if m.Mode == model.ModeForm || l == 0 {
		return f
	}
	f += l*d + 3*mc*d + 2*d*d
	if attentive {
		f += 10*d*d + 7*mc*d
	}
	if gated {
		f += 4*d*d + 23*d
	} else {
		f += 4 * d * d
	}
	return f
}

// evalHoldout scores the held-out words: for each, contexts are drawn with a
// generator fixed by (seed, word), so every epoch and every mode sees the same ones.
func (t *trainer) evalHoldout() *HoldoutScore {
	return EvalHoldout(t.m, t.sampler, t.plan.Holdout, t.d.Base, t.o.Seed)
}

// sharedNgrams marks the n-grams of vocab that at least two of words have
// (Options.SharedForm).
func sharedNgrams(vocab *model.NgramVocab, words []string) []bool {
	seen := make([]uint8, vocab.Len()) // words holding the n-gram, capped at 2
	forDistinctNgrams(vocab, words, func(_ int, id int32) {
		if seen[id] < 2 {
			seen[id]++
		}
	})
	keep := make([]bool, len(seen))
	for i, n := range seen {
		keep[i] = n >= 2
	}
	return keep
}

// ngramMass returns, for each n-gram of vocab, the summed counts of the base
// words (counts aligned with words; a negative count as 0) that have it, each
// word's count once however often the n-gram occurs in it (Options.FormShare).
// The unknown n-gram (model.UnknownNgram, every n-gram missing from vocab)
// keeps mass 0: it is no n-gram of its own, and LeaveOut never leaves it out.
func ngramMass(vocab *model.NgramVocab, words []string, counts []int64) []float64 {
	mass := make([]float64, vocab.Len())
	forDistinctNgrams(vocab, words, func(w int, id int32) {
		if id != model.UnknownNgram {
			mass[id] += wordCount(counts, int32(w))
		}
	})
	return mass
}

// holdingAll returns how many of words hold more than share of every shared
// n-gram they have (keep; of every n-gram when they share none): their forms
// keep only the n-grams they hold least (model.HoldsAll).
func holdingAll(vocab *model.NgramVocab, words []TrainWord, keep []bool, mass []float64, counts []int64, share float64) int {
	n := 0
	var ids []int32
	for _, w := range words {
		ids = vocab.AppendIDs(ids[:0], w.Word)
		if model.HoldsAll(ids, keep, mass, wordCount(counts, w.Base), share) {
			n++
		}
	}
	return n
}

// wordCount returns base word w's count as ngramMass adds it.
func wordCount(counts []int64, w int32) float64 { return float64(max(counts[w], 0)) }

// forDistinctNgrams calls fn with each word's index in words and the id of
// each distinct n-gram of vocab it has (an n-gram it repeats comes once).
func forDistinctNgrams(vocab *model.NgramVocab, words []string, fn func(w int, id int32)) {
	var ids []int32
	for w, word := range words {
		ids = vocab.AppendIDs(ids[:0], word)
		slices.Sort(ids)
		for i, id := range ids {
			if i == 0 || ids[i-1] != id {
				fn(w, id)
			}
		}
	}
}

// EvalHoldout returns the mean cosine between the inferred and the base
// embeddings of words, inferring each from up to k of its corpus contexts for
// every k in HoldoutContexts (sampled with a generator fixed by seed and the
// word's position in words, so every epoch and every mode sees the same ones).
func EvalHoldout(m *model.Model, s *Sampler, words []TrainWord, base *model.Embeddings, seed int64) *HoldoutScore {
	hs := &HoldoutScore{Words: len(words)}
	if len(words) == 0 {
		return hs
	}
	ws := m.NewWorkspace()
	v := make([]float32, m.Dim)
	var cs contextSet
	for i := range words {
		w := &words[i]
		for j, k := range HoldoutContexts {
			r := newRNG(uint64(seed), tagEval, uint64(i))
			ctxs := cs.sample(s, &r, w.Index, k)
			m.Infer(ws, w.Word, ctxs, v)
			hs.Cos[j] += model.Cosine(v, base.Row(w.Base))
		}
	}
	for j := range hs.Cos {
		hs.Cos[j] /= float64(len(words))
	}
	return hs
}
