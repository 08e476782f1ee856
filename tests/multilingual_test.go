//go:build unix

package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
)

// multilingual are two documents per script and a query cut from the first.
var multilingual = []struct {
	script string
	docs   [2]string
	query  string
}{
	{"english", [2]string{"The linux kernel loads the driver module.", "Music for guitar and voice."}, "kernel driver"},
	{"japanese", [2]string{"日本語のテキストを検索する", "東京の天気予報は晴れです"}, "テキストを検索"},
	{"chinese", [2]string{"机器学习是人工智能的一个分支", "长城是中国古代的军事工程"}, "人工智能"},
	{"korean", [2]string{"한국어 문장을 검색합니다", "서울은 대한민국의 수도입니다"}, "문장을 검색"},
	{"arabic", [2]string{"البحث عن النصوص العربية", "القاهرة عاصمة مصر"}, "النصوص العربية"},
	{"hindi", [2]string{"हिंदी पाठ की खोज करना", "दिल्ली भारत की राजधानी है"}, "पाठ की खोज"},
	{"emoji", [2]string{"🎉🎉 🚀", "🍕🍕 ☕"}, "🎉"},
}

// TestMultilingualImport: a stock Weaviate imports texts of many scripts
// (and of emoji alone) through the server, every object with a vector, and
// nearText in each script finds the document its query was cut from first.
func TestMultilingualImport(t *testing.T) {
	e := requireE2E(t)
	tmp := t.TempDir()
	port := freePorts(t, 1)[0]
	a := startAdapter(t, text2vecAM(t, e.repo), filepath.Join(tmp, "adapter.log"), port,
		[]string{"--memory-dir", filepath.Join(tmp, "memory")})
	w := startWeaviate(t, stockServer(t), filepath.Join(tmp, "data"), filepath.Join(tmp, "weaviate.log"), newWeaviatePorts(t), []string{
		"ENABLE_MODULES=text2vec-transformers",
		"TRANSFORMERS_INFERENCE_API=" + a.url(""),
	})
	c := newClient(t, w)
	const class = "Multilingual"
	createCollection(t, w, transformersCollection(class, map[string]any{"vectorizeClassName": false}))
	var docs []dataset.Document
	for _, s := range multilingual {
		for i, text := range s.docs {
			docs = append(docs, dataset.Document{ID: fmt.Sprintf("%s-%d", s.script, i), Text: text})
		}
	}
	res, err := importDocs(context.Background(), c, class, docs, nil, batchSize, nil)
	if err != nil || len(res.Failures) > 0 {
		t.Fatalf("import of %d documents in %d scripts: %v %v", len(docs), len(multilingual), err, res.Failures)
	}
	if got := listVectors(t, w, class, ""); len(got) != len(docs) {
		t.Fatalf("%d of %d objects stored with a vector", len(got), len(docs))
	}
	for _, s := range multilingual {
		top, err := searchTop10(context.Background(), w, class, fmt.Sprintf("nearText: {concepts: [%s]}", gqlString(s.query)))
		if err != nil {
			t.Fatalf("%s nearText %q: %v", s.script, s.query, err)
		}
		t.Logf("%s: nearText %q → %v", s.script, s.query, top[:min(3, len(top))])
		if len(top) == 0 || top[0] != s.script+"-0" {
			t.Errorf("%s: nearText %q ranks %v, want %s-0 first", s.script, s.query, top, s.script)
		}
	}
}
