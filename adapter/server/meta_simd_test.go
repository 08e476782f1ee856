package server_test

import (
	"encoding/json"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/server"
	"github.com/text2vec-am/text2vec-am/internal/testhttp"
	"github.com/text2vec-am/text2vec-am/simd"
)

// TestMetaSIMD checks that /meta names the instruction set of every kernel,
// as simd.Sets reports them.
func TestMetaSIMD(t *testing.T) {
	_, _, url := startServer(t, server.DefaultLimits())
	code, _, body := testhttp.Get(t, url+"/meta")
	if code != 200 {
		t.Fatalf("meta: %d %s", code, body)
	}
	var resp struct {
		Vectorizer struct {
			SIMD map[string]string `json:"simd"`
		} `json:"vectorizer"`
	}
	if err := json.Unmarshal([]byte(body), &resp); err != nil {
		t.Fatalf("meta: %v: %s", err, body)
	}
	sets := simd.Sets()
	if len(resp.Vectorizer.SIMD) != len(sets) {
		t.Errorf("meta names %d kernels, want %d: %s", len(resp.Vectorizer.SIMD), len(sets), body)
	}
	for _, k := range sets {
		if got := resp.Vectorizer.SIMD[k.Kernel]; got != k.Set {
			t.Errorf("meta: %s runs from %q, want %q", k.Kernel, got, k.Set)
		}
	}
}
