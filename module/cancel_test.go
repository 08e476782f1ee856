package module

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRootHandlerStopsWhenTheClientLeaves: /vectors/batch on a node with a
// memory of its own does no work for a client that has gone (as the memory
// kept in Weaviate and text2vec-am serve).
func TestRootHandlerStopsWhenTheClientLeaves(t *testing.T) {
	m := newTestModule(t, true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/vectors/batch", strings.NewReader(`{"texts":["w1 w2 unseenword","w5 r7"]}`)).WithContext(ctx)
	m.RootHandler().ServeHTTP(rec, req)
	if strings.Contains(rec.Body.String(), `"vectors":[[`) {
		t.Errorf("vectors computed for a client that had gone: %d %.200s", rec.Code, rec.Body.String())
	}
}
