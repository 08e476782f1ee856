package server_test

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"

	"github.com/text2vec-am/text2vec-am/adapter/server"
	"github.com/text2vec-am/text2vec-am/internal/shareddata"
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

// docMetricRE matches a metric quoted with its labels: t2vam_name{a,b}.
var docMetricRE = regexp.MustCompile(`(t2vam_[a-z_]+)\{([a-z_,]+)\}`)

// labelRE matches one label of a sample: name="value".
var labelRE = regexp.MustCompile(`([a-z_]+)="(?:[^"\\]|\\.)*"`)

// TestMetricLabelsInDocs checks that each metric docs/operations.md quotes
// with its labels has those labels, the request counter's and the latency
// histogram's among them.
func TestMetricLabelsInDocs(t *testing.T) {
	_, _, url := startServer(t, server.DefaultLimits())
	if status, _, body := testhttp.Post(t, url, "/vectors", `{"text":"f1 f2."}`); status != 200 {
		t.Fatalf("vectors: %d %s", status, body)
	}
	_, _, metrics := testhttp.Get(t, url+"/metrics")
	text, err := os.ReadFile(filepath.Join(shareddata.RepoRoot(t), "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	quoted := map[string]bool{}
	for _, m := range docMetricRE.FindAllStringSubmatch(string(text), -1) {
		quoted[m[1]] = true
		sample := regexp.MustCompile(`(?m)^` + m[1] + `(?:_bucket)?\{([^}]*)\}`).FindStringSubmatch(metrics)
		if sample == nil {
			t.Errorf("docs/operations.md quotes %s, which /metrics lacks", m[0])
			continue
		}
		var labels []string
		for _, l := range labelRE.FindAllStringSubmatch(sample[1], -1) {
			if l[1] != "le" {
				labels = append(labels, l[1])
			}
		}
		doc := strings.Split(m[2], ",")
		slices.Sort(doc)
		if !slices.Equal(labels, doc) { // /metrics sorts its labels
			t.Errorf("docs/operations.md quotes %s; its labels are %q", m[0], labels)
		}
	}
	for _, name := range []string{"t2vam_http_requests_total", "t2vam_http_request_duration_seconds"} {
		if !quoted[name] {
			t.Errorf("docs/operations.md does not quote %s with its labels", name)
		}
	}
}
