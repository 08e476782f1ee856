// Package trainer is the standalone trainer of text2vec-am: skipgram base
// embeddings (trainer/skipgram), Attentive Mimicking training and inference
// (trainer/amtrain), on corpora streamed by trainer/corpus. Evaluation lives in
// trainer/eval.
package trainer

import (
	"github.com/text2vec-am/text2vec-am/cli"
	"github.com/text2vec-am/text2vec-am/trainer/amtrain"
	"github.com/text2vec-am/text2vec-am/trainer/skipgram"
)

// Commands returns the trainer's subcommands: train-embeddings, train, infer, export,
// import-fasttext and tokenize.
func Commands() []cli.Command {
	var cmds []cli.Command
	cmds = append(cmds, skipgram.Commands()...)
	cmds = append(cmds, amtrain.Commands()...)
	cmds = append(cmds, exportCommand(), importFastTextCommand(), tokenizeCommand())
	return cmds
}
