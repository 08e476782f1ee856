package deploy

import (
	"fmt"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/text2vec-am/text2vec-am/internal/fakeweaviate"
)

// TestStatelessServeManifest checks the stateless replicas' Service and
// Deployment: several replicas, no volume but the token, the memory kept in
// weaviate-helm's Service at the replication factor of its nodes; then runs
// `serve` with the manifest's arguments against a fake Weaviate.
func TestStatelessServeManifest(t *testing.T) {
	docs := readDocs(t, filepath.Join("kubernetes", "text2vec-am-serve.yaml"))
	svc, dep := kind(t, docs, "Service"), kind(t, docs, "Deployment")
	if r, ok := get(t, dep, "spec", "replicas").(int); !ok || r < 2 {
		t.Errorf("%v replicas: a stateless server runs several", get(t, dep, "spec", "replicas"))
	}
	labels := get(t, dep, "spec", "template", "metadata", "labels").(map[string]any)
	for k, v := range get(t, svc, "spec", "selector").(map[string]any) {
		if labels[k] != v {
			t.Errorf("Service selects %s=%v, the pods are labelled %v", k, v, labels)
		}
	}
	spec := get(t, dep, "spec", "template", "spec").(map[string]any)
	for _, v := range spec["volumes"].([]any) {
		if v.(map[string]any)["secret"] == nil {
			t.Errorf("volume %v: a stateless replica mounts nothing but its token", v)
		}
	}
	c := get(t, dep, "spec", "template", "spec", "containers", 0)
	var args []string
	for _, a := range get(t, c, "args").([]any) {
		args = append(args, fmt.Sprint(a))
	}
	port := get(t, c, "ports", 0, "containerPort").(int)
	if addr := flagValue(t, args, "--addr"); addr != "0.0.0.0:"+strconv.Itoa(port) {
		t.Errorf("--addr %q, want 0.0.0.0:%d (the containerPort)", addr, port)
	}
	if flagValue(t, args, "--memory-dir") != "" {
		t.Error("a stateless replica keeps no --memory-dir")
	}
	values := readDocs(t, filepath.Join("testdata", "weaviate-helm", "values.yaml"))[0]
	weaviateSvc := fmt.Sprintf("http://%v:%v", get(t, values, "service", "name"), get(t, values, "service", "ports", 0, "port"))
	if u := flagValue(t, args, "--memory-weaviate"); u != weaviateSvc {
		t.Errorf("--memory-weaviate %q, want weaviate-helm's Service %s", u, weaviateSvc)
	}
	stock := readDocs(t, filepath.Join("kubernetes", "weaviate-values-stock.yaml"))[0]
	if r := flagValue(t, args, "--memory-weaviate-replicas"); r != fmt.Sprint(get(t, stock, "replicas")) {
		t.Errorf("--memory-weaviate-replicas %s, the stock values run %v nodes", r, get(t, stock, "replicas"))
	}
	var probes []string
	for _, p := range []string{"startupProbe", "readinessProbe", "livenessProbe"} {
		if get(t, c, p, "httpGet", "port") != get(t, c, "ports", 0, "name") {
			t.Errorf("%s probes port %v, not the container's", p, get(t, c, p, "httpGet", "port"))
		}
		probes = append(probes, get(t, c, p, "httpGet", "path").(string))
	}
	_, fake := fakeweaviate.New(t)
	runServe(t, args, probes, fake.URL)
}
