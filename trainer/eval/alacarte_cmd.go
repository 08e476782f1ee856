package eval

import (
	"context"
	"flag"
	"fmt"

	"github.com/text2vec-am/text2vec-am/model"
)

// alaCarteFlag is --alacarte-corpus, the A La Carte row of eval nonce,
// chimeras and rare-pairs.
type alaCarteFlag struct {
	corpus string
}

// register defines the flag on fs; leftOut says what the command's fit
// leaves out.
func (f *alaCarteFlag) register(fs *flag.FlagSet, leftOut string) {
	fs.StringVar(&f.corpus, "alacarte-corpus", "", fmt.Sprintf("corpus `PATH` (text, .gz ok, or a directory of such files, as train --corpus reads it): "+
		"the A La Carte row,\nA·(the mean of the base vectors of the contexts' words), A fitted by least squares on the base "+
		"words\nthe corpus holds %d times or more (context window ±%d within a sentence);\n%s",
		alaCarteMinOccurrences, alaCarteWindow, leftOut))
}

// nonce fits the map on the flag's corpus, leaving out h, and returns the
// row's nonce function (AlaCarteNonce) and a line saying what the map was
// fitted on; nil and "" without the flag. Errors name the flag.
func (f *alaCarteFlag) nonce(ctx context.Context, e *model.Embeddings, h AlaCarteHoldout) (NonceFunc, string, error) {
	if f.corpus == "" {
		return nil, "", nil
	}
	a, st, err := AlaCarteFit(ctx, e, f.corpus, h)
	if err != nil {
		return nil, "", fmt.Errorf("--alacarte-corpus: %w", err)
	}
	line := fmt.Sprintf("A La Carte: A fitted on %d base words seen %d times or more in %s (context window ±%d)",
		st.Words, alaCarteMinOccurrences, f.corpus, alaCarteWindow)
	switch {
	case h.Sentences:
		line += fmt.Sprintf("; left out: the %d evaluated words and the %d of its %d sentences that hold one", len(h.Words), st.LeftOut, st.Sentences)
	case len(h.Words) > 0:
		line += fmt.Sprintf("; not fitted on: the %d evaluated words", len(h.Words))
	}
	return AlaCarteNonce(e, a), line + ".", nil
}
