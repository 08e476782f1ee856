package refresh

import (
	"slices"
	"testing"
)

// TestTargetsOfStockModules: text2vec-cohere and text2vec-openai vectors are
// refresh's only where a baseURL names a text2vec-am server; without one
// they are their vendor's (another dimension), left as they are.
func TestTargetsOfStockModules(t *testing.T) {
	schema := `{"class":"Doc","vectorizer":"none","vectorConfig":{
		"am":{"vectorizer":{"text2vec-transformers":{}}},
		"oa":{"vectorizer":{"text2vec-openai":{"model":"text-embedding-3-small"}}},
		"co":{"vectorizer":{"text2vec-cohere":{"baseURL":"http://text2vec-am:8880"}}},
		"cv":{"vectorizer":{"text2vec-cohere":{}}}}}`
	_, targets, err := parseTargets([]byte(schema), nil, false)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tg := range targets {
		names = append(names, tg.Name)
	}
	if !slices.Equal(names, []string{"am", "co"}) {
		t.Errorf("targets %v, want [am co]", names)
	}
	if _, _, err := parseTargets([]byte(schema), []string{"oa"}, false); err == nil {
		t.Error("--vector oa (text2vec-openai without a baseURL) accepted")
	}
}
