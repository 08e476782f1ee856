package amtrain

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/model"
)

// synth is a small synthetic corpus with base embeddings whose words carry
// topic information: every line draws its words from one topic, and a word's
// vector is its topic's vector plus noise, so contexts predict the vector.
type synth struct {
	dir, corpus, embeddings string
	base                    *model.Embeddings
	words                   []string
}

const synthDim = 16

func newSynth(t testing.TB, lines int) *synth {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(7))
	const topics = 4
	syll := []string{"ka", "lo", "mi", "ne", "pu", "ro", "si", "tu"}
	suffix := []string{"ion", "ing", "er", "ly"}
	topicVec := make([][]float32, topics)
	for k := range topicVec {
		topicVec[k] = make([]float32, synthDim)
		for i := range topicVec[k] {
			topicVec[k][i] = float32(rng.NormFloat64())
		}
	}
	var words []string
	byTopic := make([][]string, topics)
	var vecs []float32
	for k := 0; k < topics; k++ {
		for j := 0; j < 12; j++ {
			w := syll[(k*3+j)%len(syll)] + syll[(j*5+k)%len(syll)] + suffix[k]
			w += fmt.Sprint(string(rune('a' + j)))
			words = append(words, w)
			byTopic[k] = append(byTopic[k], w)
			for i := 0; i < synthDim; i++ {
				vecs = append(vecs, topicVec[k][i]+0.3*float32(rng.NormFloat64()))
			}
		}
	}
	var sb strings.Builder
	for l := 0; l < lines; l++ {
		k := rng.Intn(topics)
		n := 3 + rng.Intn(12)
		for i := 0; i < n; i++ {
			if i > 0 {
				sb.WriteByte(' ')
			}
			if rng.Intn(10) == 0 {
				sb.WriteString("Zzunknown") // no base vector
			} else {
				sb.WriteString(byTopic[k][rng.Intn(len(byTopic[k]))])
			}
		}
		sb.WriteString(".\n")
	}
	s := &synth{dir: dir, corpus: filepath.Join(dir, "corpus.txt"), embeddings: filepath.Join(dir, "emb.vec"), words: words}
	if err := os.WriteFile(s.corpus, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	base, err := model.NewEmbeddings(synthDim, words, vecs, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.base = base
	if err := model.SaveEmbeddings(s.embeddings, base, false); err != nil {
		t.Fatal(err)
	}
	return s
}

func quietLog() *slog.Logger { return slog.New(slog.DiscardHandler) }

func (s *synth) data(t testing.TB) *Data {
	t.Helper()
	x, err := OpenIndex(context.Background(), []string{s.corpus}, model.DefaultTokenizer(), s.dir, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	counts, _ := baseCounts(s.base, x, nil)
	return &Data{Index: x, Base: s.base, Counts: counts, Tokenizer: model.DefaultTokenizer()}
}

// smallOptions trains every synthetic word (counts are in the hundreds).
func smallOptions() Options {
	o := DefaultOptions()
	o.MinCountTrain = 20
	o.CountPerInstance = 20
	o.Epochs = 3
	o.Batch = 16
	o.Threads = 2
	o.MaxContexts = 8
	o.Ngram = model.NgramConfig{MinN: 3, MaxN: 5, MinCount: 1}
	return o
}

func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
