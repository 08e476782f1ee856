//go:build unix

package e2e

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
	"github.com/text2vec-am/text2vec-am/adapter/vectorizer"
	"github.com/text2vec-am/text2vec-am/defaultmodel"
	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
	"github.com/text2vec-am/text2vec-am/trainer/eval/retrieval"
)

// EnvModel names the model the end-to-end tests use (a weights file); the
// embedded default model when unset.
const EnvModel = "T2V_E2E_MODEL"

// reference is what the vectorizer computes in-process for the debian-dev
// data with an empty context memory: what Weaviate must store and find.
type reference struct {
	modelPath string // "" = the embedded default model
	vec       *vectorizer.Vectorizer
	docs      []dataset.Document // documents that get a vector
	queries   []dataset.RetrievalQuery
	docVecs   [][]float32 // docVecs[i] is the vector of docs[i]
	metrics   retrieval.Metrics
}

var (
	refOnce sync.Once
	ref     *reference
	refErr  error
	refSkip string
)

// loadReference vectorizes the data in-process once per test process.
func loadReference(t testing.TB, e e2eEnv) *reference {
	t.Helper()
	refOnce.Do(func() { ref, refSkip, refErr = buildReference(t, e) })
	if refSkip != "" {
		t.Skip(refSkip)
	}
	if refErr != nil {
		t.Fatal(refErr)
	}
	return ref
}

func buildReference(t testing.TB, e e2eEnv) (*reference, string, error) {
	r := &reference{modelPath: os.Getenv(EnvModel)}
	var mdl *model.Model
	var err error
	if r.modelPath != "" {
		mdl, err = model.LoadFile(r.modelPath)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", EnvModel, err)
		}
	} else {
		mdl, err = defaultmodel.Load()
		if err != nil {
			return nil, fmt.Sprintf("end-to-end tests need a model: set %s to a weights file (the embedded default model is unavailable: %v)", EnvModel, err), nil
		}
	}
	mem, err := memory.Open("", memory.DefaultOptions()) // empty, in RAM: the state the servers start in
	if err != nil {
		return nil, "", err
	}
	r.vec, err = vectorizer.New(mdl, mem, vectorizer.DefaultOptions())
	if err != nil {
		return nil, "", err
	}
	docs, err := dataset.LoadDocuments(e.docs)
	if err != nil {
		return nil, "", err
	}
	queries, err := dataset.LoadQueries(e.queries)
	if err != nil {
		return nil, "", err
	}
	start := time.Now()
	texts := make([]string, len(docs))
	for i, d := range docs {
		texts[i] = d.Text
	}
	vecs, errs := r.vec.VectorizeBatch(texts, vectorizer.TaskQuery, r.vec.Options())
	kept := map[string]bool{}
	byText := map[string][]float32{}
	for i, d := range docs {
		if errs[i] != nil {
			t.Logf("document %s gets no vector in-process (%v): left out of the import", d.ID, errs[i])
			continue
		}
		r.docs = append(r.docs, d)
		r.docVecs = append(r.docVecs, vecs[i])
		kept[d.ID] = true
		byText[d.Text] = vecs[i]
	}
	for _, q := range queries {
		ok := true
		for _, id := range q.Relevant {
			ok = ok && kept[id]
		}
		if ok {
			r.queries = append(r.queries, q)
		}
	}
	vecOf := func(text string) []float32 {
		if v, ok := byText[text]; ok {
			return v
		}
		v, err := r.vec.Vectorize(text, vectorizer.TaskQuery, r.vec.Options())
		if err != nil {
			return nil // no usable word: retrieves nothing, as a failed nearText
		}
		return v
	}
	dv := make([][]float32, len(r.docs))
	for i, d := range r.docs {
		dv[i] = vecOf(d.Text)
	}
	qv := make([][]float32, len(r.queries))
	for i, q := range r.queries {
		qv[i] = vecOf(q.Text)
	}
	ix, err := retrieval.NewDenseIndexFromVectors(dv)
	if err == nil {
		r.metrics, _, err = retrieval.DenseRun(r.docs, r.queries, ix, qv, 10)
	}
	if err != nil {
		return nil, "", fmt.Errorf("in-process retrieval: %w", err)
	}
	t.Logf("in-process reference: %d documents, %d queries, dim %d, MRR@10 %.4f, R@1 %.4f, R@10 %.4f (%v)",
		len(r.docs), len(r.queries), r.vec.Dim(), r.metrics.MRR10, r.metrics.Recall1, r.metrics.Recall10, time.Since(start).Round(time.Millisecond))
	return r, "", nil
}
