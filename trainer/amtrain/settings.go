package amtrain

import (
	"fmt"
	"hash/fnv"

	"github.com/text2vec-am/text2vec-am/model"
)

// Keys of the settings a checkpoint records for the training words.
const (
	settingWords   = "training words (--corpus, --counts, --min-count-train, --include, --only-words)"
	settingHoldout = "held-out words (--holdout, --seed)"
)

// settingsOf returns the options and inputs of a run that its checkpoint
// must share with a resume, one by one, keyed by the flag that sets them:
// what TrainState.Settings records.
func settingsOf(o *Options, p *Plan) map[string]string {
	pretrained := "none"
	if o.Pretrained != nil {
		pretrained = fmt.Sprintf("%d rows", o.Pretrained.rows())
	}
	return map[string]string{
		"--mode":                            o.Mode.String(),
		"--batch":                           fmt.Sprint(o.Batch),
		"--lr":                              fmt.Sprint(o.LR),
		"Adam β1, β2, ε":                    fmt.Sprint(o.Beta1, o.Beta2, o.Eps),
		"--seed":                            fmt.Sprint(o.Seed),
		"--max-contexts":                    fmt.Sprint(o.MaxContexts),
		"--window":                          fmt.Sprint(o.Window),
		"--holdout":                         fmt.Sprint(o.Holdout),
		"--nmin, --nmax, --ngram-min-count": fmt.Sprint(o.Ngram.MinN, o.Ngram.MaxN, o.Ngram.MinCount),
		"--ngrams (--ngram-max)":            pretrained,
		"--ngram-lr-scale":                  fmt.Sprint(o.NgramLRScale),
		"--context-draw":                    o.ContextDraw.String(),
		"--count-buckets":                   fmt.Sprint(o.CountBuckets),
		"--gate-agreement":                  fmt.Sprint(o.GateAgreement),
		"--gate-coverage":                   fmt.Sprint(o.GateCoverage, model.CoverageKnee),
		"--alacarte-a":                      fmt.Sprint(o.AlaCarteA),
		"--context-sif":                     fmt.Sprint(o.ContextSIF),
		"--shared-form":                     fmt.Sprint(o.SharedForm),
		"--form-share":                      fmt.Sprint(o.FormShare),
		settingWords:                        wordsSetting(p.Words),
		settingHoldout:                      wordsSetting(p.Holdout),
	}
}

// wordsSetting describes a list of training words by its length and a hash
// of the words and their instance counts.
func wordsSetting(words []TrainWord) string {
	h := fnv.New64a()
	for _, w := range words {
		fmt.Fprintf(h, "%s %d\n", w.Word, w.N)
	}
	return fmt.Sprintf("%d words, hash %016x", len(words), h.Sum64())
}
