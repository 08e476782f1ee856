//go:build unix

package e2e

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/weaviate/weaviate-go-client/v5/weaviate"

	"github.com/text2vec-am/text2vec-am/model"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
)

// batchSize is the import batch size of every end-to-end import.
const batchSize = 100

// collection is a collection under test: its class, its named vector ("" for
// the class vector) and the server holding it.
type collection struct {
	w      *weaviateServer
	c      *weaviate.Client
	class  string
	target string
}

// docProperties are the properties of every test collection. moduleConfig
// (nil for none) is set on docId so that only text is vectorized.
func docProperties(docIDModuleConfig map[string]any) []map[string]any {
	docID := map[string]any{"name": "docId", "dataType": []string{"text"}, "tokenization": "field"}
	if docIDModuleConfig != nil {
		docID["moduleConfig"] = docIDModuleConfig
	}
	return []map[string]any{docID, {"name": "docIndex", "dataType": []string{"int"}}, {"name": "text", "dataType": []string{"text"}}}
}

// exactIndex is the vector index of the collections whose search is compared
// with the in-process brute force: "flat" searches exactly, so any difference
// is the integration's, not HNSW's approximation.
const exactIndex = "flat"

// hnswConfig is the HNSW index of the throughput benchmark.
var hnswConfig = map[string]any{"ef": 512, "efConstruction": 256, "maxConnections": 32}

// withHNSW switches a collection definition (class vector or named vectors)
// to the benchmark's HNSW index.
func withHNSW(class map[string]any) map[string]any {
	if vc, ok := class["vectorConfig"].(map[string]any); ok {
		for _, v := range vc {
			v := v.(map[string]any)
			v["vectorIndexType"], v["vectorIndexConfig"] = "hnsw", hnswConfig
		}
		return class
	}
	class["vectorIndexType"], class["vectorIndexConfig"] = "hnsw", hnswConfig
	return class
}

// importAll imports every reference document and checks that none failed.
func importAll(t *testing.T, col collection, r *reference) importResult {
	t.Helper()
	res, err := importDocs(context.Background(), col.c, col.class, r.docs, nil, batchSize, nil)
	if err != nil {
		t.Fatalf("import into %s: %v", col.class, err)
	}
	if len(res.Failures) > 0 {
		for i, msg := range res.Failures {
			t.Errorf("document %s: %s", r.docs[i].ID, msg)
			break
		}
		t.Fatalf("%d of %d documents failed to import into %s", len(res.Failures), len(r.docs), col.class)
	}
	t.Logf("imported %d documents into %s in %v: %.0f objects/s (batch %d)",
		res.Objects, col.class, res.Elapsed.Round(1e6), float64(res.Objects)/res.Elapsed.Seconds(), batchSize)
	return res
}

// checkStoredVectors checks every stored vector against the reference.
func checkStoredVectors(t *testing.T, col collection, r *reference) {
	t.Helper()
	checkVectors(t, listVectors(t, col.w, col.class, col.target), r.docs, r.docVecs)
}

// checkNearText runs every query through nearText and compares MRR@10 with
// the in-process computation (retrieval.DenseRun) for the same model.
func checkNearText(t *testing.T, col collection, r *reference) {
	t.Helper()
	top, failed := searchAll(t, col.w, col.class, r.queries, func(q dataset.RetrievalQuery) string {
		return fmt.Sprintf("nearText: {concepts: [%s]%s}", gqlString(q.Text), targetClause(col.target))
	})
	got := metricsOf(t, r.docs, r.queries, top)
	t.Logf("nearText over %d queries (%d failed): MRR@10 %.4f R@1 %.4f R@10 %.4f; in-process MRR@10 %.4f R@1 %.4f R@10 %.4f",
		len(r.queries), failed, got.MRR10, got.Recall1, got.Recall10, r.metrics.MRR10, r.metrics.Recall1, r.metrics.Recall10)
	if d := math.Abs(got.MRR10 - r.metrics.MRR10); d > 0.005 {
		t.Errorf("nearText MRR@10 %.4f differs from the in-process %.4f by %.4f (> 0.005)", got.MRR10, r.metrics.MRR10, d)
	}
}

// checkHybrid checks hybrid search: with alpha 1 (vector only) it ranks as
// nearText, with alpha 0.5 it answers every query and finds the relevant
// document for a fair share of them.
func checkHybrid(t *testing.T, col collection, r *reference) {
	t.Helper()
	qs := r.queries[:min(200, len(r.queries))]
	near, _ := searchAll(t, col.w, col.class, qs, func(q dataset.RetrievalQuery) string {
		return fmt.Sprintf("nearText: {concepts: [%s]%s}", gqlString(q.Text), targetClause(col.target))
	})
	pure, failed := searchAll(t, col.w, col.class, qs, func(q dataset.RetrievalQuery) string {
		return fmt.Sprintf("hybrid: {query: %s, alpha: 1%s}", gqlString(q.Text), targetClause(col.target))
	})
	if failed > 0 {
		t.Errorf("hybrid (alpha 1): %d of %d queries failed", failed, len(qs))
	}
	same := 0
	for i := range qs {
		if len(near[i]) > 0 && len(pure[i]) > 0 && near[i][0] == pure[i][0] {
			same++
		}
	}
	if same < len(qs)*95/100 {
		t.Errorf("hybrid with alpha 1 has the same top hit as nearText for only %d of %d queries", same, len(qs))
	}
	mixed, failed := searchAll(t, col.w, col.class, qs, func(q dataset.RetrievalQuery) string {
		return fmt.Sprintf("hybrid: {query: %s, alpha: 0.5%s}", gqlString(q.Text), targetClause(col.target))
	})
	if failed > 0 {
		t.Errorf("hybrid (alpha 0.5): %d of %d queries failed", failed, len(qs))
	}
	m := metricsOf(t, r.docs, qs, mixed)
	v := metricsOf(t, r.docs, qs, pure)
	t.Logf("hybrid over %d queries: alpha 1 MRR@10 %.4f (same top hit as nearText: %d), alpha 0.5 MRR@10 %.4f R@10 %.4f",
		len(qs), v.MRR10, same, m.MRR10, m.Recall10)
	if m.Recall10 < 0.2 {
		t.Errorf("hybrid (alpha 0.5) finds the relevant document in the top 10 for only %.1f%% of queries", 100*m.Recall10)
	}
}

// probeDocs are the documents whose vectors show the memory's state.
func probeDocs(r *reference) []dataset.Document { return r.docs[:min(20, len(r.docs))] }

// teachDocs are the documents imported with teaching on.
func teachDocs(r *reference) []dataset.Document { return r.docs[:min(1000, len(r.docs))] }

// insertProbes imports the probe documents into class (which must not teach)
// and returns their vectors by docId.
func insertProbes(t *testing.T, col collection, r *reference) map[int][]float32 {
	t.Helper()
	res, err := importDocs(context.Background(), col.c, col.class, probeDocs(r), nil, batchSize, nil)
	if err != nil || len(res.Failures) > 0 {
		t.Fatalf("insert probes into %s: %v %v", col.class, err, res.Failures)
	}
	return listVectors(t, col.w, col.class, col.target)
}

// checkTaught checks that teaching changed at least one probe's vector from
// the empty-memory reference.
func checkTaught(t *testing.T, probes map[int][]float32, r *reference) {
	t.Helper()
	changed := 0
	for i := range probeDocs(r) {
		if cosine(probes[i], r.docVecs[i]) < 0.9999 {
			changed++
		}
	}
	t.Logf("teaching changed %d of %d probe vectors", changed, len(probeDocs(r)))
	if changed == 0 {
		t.Errorf("teaching the memory with %d documents changed none of the %d probe documents' vectors", len(teachDocs(r)), len(probeDocs(r)))
	}
}

// checkPassagesCounted checks that a teaching import of docs counted each
// as one passage for the default sif-collection weighting (the memory
// summary's "passages"), so that the collection statistics match the
// import. A passage is counted once by its words: documents of the same
// words count once.
func checkPassagesCounted(t *testing.T, mem map[string]any, docs []dataset.Document) {
	t.Helper()
	if got, _ := mem["passages"].(float64); int(got) != distinctPassages(docs) {
		t.Errorf("teaching import of %d documents (%d distinct passages) counted %v passages: %v",
			len(docs), distinctPassages(docs), mem["passages"], mem)
	}
}

// distinctPassages counts the documents of distinct word sequences.
func distinctPassages(docs []dataset.Document) int {
	words := model.DefaultTokenizer()
	distinct := map[string]bool{}
	for _, d := range docs {
		distinct[strings.Join(words.AppendTokens(nil, d.Text), "\xff")] = true
	}
	return len(distinct)
}

// checkSameProbes checks that the probes vectorize as before a restart.
func checkSameProbes(t *testing.T, before, after map[int][]float32) {
	t.Helper()
	if len(after) != len(before) {
		t.Errorf("%d probe vectors after the restart, %d before", len(after), len(before))
	}
	for id, v := range before {
		if c := cosine(v, after[id]); c <= 0.9999 {
			t.Errorf("probe %d: vector after the restart has cosine %.6f with the one before: the context memory did not survive", id, c)
		}
	}
}
