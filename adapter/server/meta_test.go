package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/server"
	"github.com/text2vec-am/text2vec-am/internal/testhttp"
	"github.com/text2vec-am/text2vec-am/internal/version"
)

// TestMetaVersionAndLimits checks that /meta reports the version and its
// limits as JSON numbers and booleans, equal to the server's limits.
func TestMetaVersionAndLimits(t *testing.T) {
	lim := server.DefaultLimits()
	lim.MaxBatch, lim.MaxConcurrent, lim.NoExplain = 7, 3, true
	_, _, url := startServer(t, lim)
	code, _, body := testhttp.Get(t, url+"/meta")
	if code != 200 {
		t.Fatalf("meta: %d %s", code, body)
	}
	var meta map[string]any
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&meta); err != nil {
		t.Fatalf("meta: %v: %s", err, body)
	}
	if v, ok := meta["version"].(string); !ok || v != version.String() || v == "" {
		t.Errorf("meta version %v, want %q", meta["version"], version.String())
	}
	limits, ok := meta["limits"].(map[string]any)
	if !ok {
		t.Fatalf("meta limits %T: %s", meta["limits"], body)
	}
	want := map[string]int64{"max_body_bytes": lim.MaxBodyBytes, "max_text_bytes": int64(lim.MaxTextBytes),
		"max_words": int64(lim.MaxWords), "max_batch": 7, "max_concurrent": 3}
	for k, w := range want {
		n, ok := limits[k].(json.Number)
		if !ok {
			t.Errorf("limits.%s = %#v, want the number %d", k, limits[k], w)
			continue
		}
		if got, err := n.Int64(); err != nil || got != w {
			t.Errorf("limits.%s = %s, want %d", k, n, w)
		}
	}
	if e, ok := limits["explain"].(bool); !ok || e {
		t.Errorf("limits.explain = %#v, want false", limits["explain"])
	}
	if len(limits) != len(want)+1 {
		t.Errorf("limits has %d keys, want %d: %v", len(limits), len(want)+1, limits)
	}
}
