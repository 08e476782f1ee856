package server_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"

	"github.com/text2vec-am/text2vec-am/adapter/server"
	"github.com/text2vec-am/text2vec-am/internal/testhttp"
	"github.com/text2vec-am/text2vec-am/internal/version"
	"github.com/text2vec-am/text2vec-am/simd"
)

// TestMetricsLint checks /metrics against Prometheus' own naming and help
// rules (promlint, as promtool check metrics) after some traffic, and that
// t2vam_build_info names this build.
func TestMetricsLint(t *testing.T) {
	_, _, url := startServer(t, server.DefaultLimits())
	if status, _, body := testhttp.Post(t, url, "/vectors", `{"text":"Zqlint f1 f2.","config":{"task_type":"passage"}}`); status != 200 {
		t.Fatalf("vectors: %d %s", status, body)
	}
	status, _, metrics := testhttp.Get(t, url+"/metrics")
	if status != 200 {
		t.Fatalf("metrics: %d", status)
	}
	problems, err := promlint.New(strings.NewReader(metrics)).Lint()
	if err != nil {
		t.Fatalf("lint: %v", err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
	want := `t2vam_build_info{goversion="` + runtime.Version() + `",simd="` + simd.SetsString() +
		`",version="` + version.String() + `"} 1` + "\n"
	if !strings.Contains(metrics, "\n"+want) {
		t.Errorf("metrics lack %q:\n%s", want, metrics)
	}
}
