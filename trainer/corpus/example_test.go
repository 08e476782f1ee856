package corpus_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/text2vec-am/text2vec-am/trainer/corpus"
)

// The corpus as the tokenizer reads it, without the sentences of a word
// left out (the CRW protocol's subcorpus; nil keeps every sentence).
func ExampleWriteTokens() {
	dir, err := os.MkdirTemp("", "corpus")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	text := "The Zorb sings. Birds fly!\nAn e-mail, sent.\n"
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte(text), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	st, err := corpus.WriteTokens(context.Background(), []string{dir}, map[string]bool{"zorb": true}, os.Stdout)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(st.Lines, st.Tokens, st.DroppedSentences)
	// Output:
	// birds fly
	// an e mail sent
	// 2 6 1
}
