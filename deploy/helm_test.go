package deploy

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/text2vec-am/text2vec-am/module"
)

// chartDir is the vendored part of weaviate-helm's chart (testdata/weaviate-helm/README.md).
var chartDir = filepath.Join("testdata", "weaviate-helm")

// helmVersion is the helm .ci/run installs.
const helmVersion = "v3.22.0"

// renderChart runs `helm template` on the vendored chart with the values
// file at path and extra --set arguments, and decodes what it
// renders into the Kubernetes API types. It skips the test when no helm is on PATH.
func renderChart(t *testing.T, values string, set ...string) []runtime.Object {
	t.Helper()
	helm, err := exec.LookPath("helm")
	if err != nil {
		t.Skipf("no helm on PATH to render weaviate-helm's templates (go install helm.sh/helm/v3/cmd/helm@%s)", helmVersion)
	}
	args := []string{"template", "weaviate", chartDir, "--namespace", "weaviate", "-f", values}
	for _, s := range set {
		args = append(args, "--set", s)
	}
	cmd := exec.Command(helm, args...)
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+home, "HELM_CONFIG_HOME="+home, "HELM_DATA_HOME="+home)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	objs, err := decodeObjects(apiScheme(t), "helm template -f "+filepath.Base(values), out)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// weaviateContainer returns the rendered StatefulSet and its container weaviate.
func weaviateContainer(t *testing.T, objs []runtime.Object) (*appsv1.StatefulSet, corev1.Container) {
	t.Helper()
	sts := only[*appsv1.StatefulSet](t, objs)
	for _, c := range sts.Spec.Template.Spec.Containers {
		if c.Name == "weaviate" {
			return sts, c
		}
	}
	t.Fatal("the rendered StatefulSet has no container weaviate")
	return nil, corev1.Container{}
}

// envProblems lists what is wrong with a container's env as Kubernetes
// applies it (the last of duplicated names wins): duplicated names, and
// each name of want whose value is not the wanted one.
func envProblems(env []corev1.EnvVar, want map[string]string) []string {
	var problems []string
	seen := map[string]int{}
	final := map[string]string{}
	for _, e := range env {
		seen[e.Name]++
		final[e.Name] = e.Value
	}
	for _, e := range env {
		if seen[e.Name] > 1 {
			problems = append(problems, fmt.Sprintf("%s is set %d times", e.Name, seen[e.Name]))
			seen[e.Name] = 0
		}
	}
	for k, v := range want {
		if got, ok := final[k]; !ok || got != v {
			problems = append(problems, fmt.Sprintf("%s=%q, want %q", k, got, v))
		}
	}
	return problems
}

// envMap is the env as the container sees it (plain values only).
func envMap(env []corev1.EnvVar) map[string]string {
	m := map[string]string{}
	for _, e := range env {
		m[e.Name] = e.Value
	}
	return m
}

// inProcessValues is the path of the in-process module's Helm values.
const inProcessValues = manifestsDir + "/weaviate-values-inprocess.yaml"

// TestHelmRenderInProcess renders the in-process values with weaviate-helm's
// templates: the final env has exactly one DEFAULT_VECTORIZER_MODULE and one
// ENABLE_MODULES, both text2vec-am, and keeps the memory in Weaviate as
// checkMemoryInWeaviate wants; the image is the one Dockerfile.weaviate's
// build script tags; and the budget keeps a quorum of the three nodes.
func TestHelmRenderInProcess(t *testing.T) {
	objs := renderChart(t, inProcessValues)
	sts, c := weaviateContainer(t, objs)
	for _, p := range envProblems(c.Env, map[string]string{
		"DEFAULT_VECTORIZER_MODULE": module.Name,
		"ENABLE_MODULES":            module.Name,
	}) {
		t.Error(p)
	}
	if sts.Spec.Replicas == nil {
		t.Fatal("the rendered StatefulSet sets no replicas")
	}
	checkMemoryInWeaviate(t, envMap(c.Env), int(*sts.Spec.Replicas))
	script, err := os.ReadFile(filepath.Join("..", "scripts", "build-images.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if repo, _, _ := strings.Cut(c.Image, ":"); !strings.Contains(string(script), repo) ||
		!strings.HasSuffix(c.Image, ":1.39.0") {
		t.Errorf("image %s: not what scripts/build-images.sh tags (Weaviate 1.39.0 with the module)", c.Image)
	}
	checkImage(t, sts, c)
	checkRendered(t, sts, c, objs)
}

// checkImage checks the rendered pods against Dockerfile.weaviate: the
// chart's command is the binary the image holds, and the pods' fsGroup is
// the group the image runs Weaviate as, so that the data volume is writable.
func checkImage(t *testing.T, sts *appsv1.StatefulSet, c corev1.Container) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "Dockerfile.weaviate"))
	if err != nil {
		t.Fatal(err)
	}
	var gid, bin string
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "USER":
			_, gid, _ = strings.Cut(f[1], ":")
		case len(f) == 3 && f[0] == "COPY":
			bin = f[2]
		}
	}
	if len(c.Command) == 0 || c.Command[0] != bin {
		t.Errorf("the chart runs %v, Dockerfile.weaviate puts Weaviate at %q", c.Command, bin)
	}
	sc := sts.Spec.Template.Spec.SecurityContext
	if gid == "" || sc == nil || sc.FSGroup == nil || strconv.FormatInt(*sc.FSGroup, 10) != gid {
		t.Errorf("pod securityContext %+v: want fsGroup %q, the group Dockerfile.weaviate runs Weaviate as", sc, gid)
	}
}

// TestHelmRenderStock renders the stock values: text2vec-transformers is the
// default module and calls the stateless replicas; text2vec-cohere, which a
// collection's baseURL points at them, is enabled with an API key.
func TestHelmRenderStock(t *testing.T) {
	objs := renderChart(t, filepath.Join(manifestsDir, "weaviate-values-stock.yaml"))
	sts, c := weaviateContainer(t, objs)
	if !slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "COHERE_APIKEY" }) {
		t.Error("no COHERE_APIKEY: Weaviate's text2vec-cohere calls no server without a key")
	}
	for _, p := range envProblems(c.Env, map[string]string{
		"DEFAULT_VECTORIZER_MODULE":     "text2vec-transformers",
		"ENABLE_MODULES":                "text2vec-transformers,text2vec-cohere",
		"TRANSFORMERS_INFERENCE_API":    serveURL(t),
		"TRANSFORMERS_WAIT_FOR_STARTUP": "false",
	}) {
		t.Error(p)
	}
	checkRendered(t, sts, c, objs)
}

// TestHelmRenderCatchesDuplicates renders what the chart does with the
// default vectorizer set through env and a chart module enabled: the check
// above must see both duplicates.
func TestHelmRenderCatchesDuplicates(t *testing.T) {
	objs := renderChart(t, inProcessValues,
		"env.DEFAULT_VECTORIZER_MODULE="+module.Name, "modules.generative-openai.enabled=true")
	_, c := weaviateContainer(t, objs)
	got := strings.Join(envProblems(c.Env, map[string]string{"ENABLE_MODULES": module.Name}), "; ")
	for _, want := range []string{"DEFAULT_VECTORIZER_MODULE is set 2 times", "ENABLE_MODULES is set 2 times"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems %q lack %q", got, want)
		}
	}
}

// checkRendered checks what both values files share: three replicas with
// Raft expecting three, GOMEMLIMIT below the memory limit, probes on
// Weaviate's health endpoints, a PodDisruptionBudget that keeps a quorum,
// and pods labelled as the chart's template says, which the NetworkPolicies admit.
func checkRendered(t *testing.T, sts *appsv1.StatefulSet, c corev1.Container, objs []runtime.Object) {
	t.Helper()
	env := envMap(c.Env)
	if sts.Spec.Replicas == nil || *sts.Spec.Replicas != 3 || env["RAFT_BOOTSTRAP_EXPECT"] != "3" {
		t.Errorf("replicas %v, RAFT_BOOTSTRAP_EXPECT %q: want 3 and 3", sts.Spec.Replicas, env["RAFT_BOOTSTRAP_EXPECT"])
	}
	checkGoMemLimit(t, env["GOMEMLIMIT"], c.Resources)
	for name, p := range map[string]*corev1.Probe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
		if p == nil || p.HTTPGet == nil || !strings.HasPrefix(p.HTTPGet.Path, "/v1/.well-known/") {
			t.Errorf("%s probe %+v: want Weaviate's /v1/.well-known/ endpoint", name, p)
		}
	}
	pdb := only[*policyv1.PodDisruptionBudget](t, objs)
	if !selects(t, pdb.Spec.Selector, sts.Spec.Template.Labels, "PodDisruptionBudget.spec.selector") {
		t.Errorf("the PodDisruptionBudget does not select Weaviate's pods %v", sts.Spec.Template.Labels)
	}
	if pdb.Spec.MinAvailable != nil || pdb.Spec.MaxUnavailable == nil || pdb.Spec.MaxUnavailable.IntValue() != 1 {
		t.Errorf("PodDisruptionBudget minAvailable %v, maxUnavailable %v: want maxUnavailable 1 alone",
			pdb.Spec.MinAvailable, pdb.Spec.MaxUnavailable)
	}
	for k, v := range weaviatePodLabels(t) {
		if sts.Spec.Template.Labels[k] != v {
			t.Errorf("rendered pods are labelled %v, the chart's template says %s=%s", sts.Spec.Template.Labels, k, v)
		}
	}
}

// weaviatePodLabels returns the literal labels weaviate-helm's StatefulSet
// template gives Weaviate's pods (those without template actions).
func weaviatePodLabels(t *testing.T) map[string]string {
	t.Helper()
	path := filepath.Join(chartDir, "templates", "weaviateStatefulset.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "\n  template:\n    metadata:\n      labels:\n")
	if !ok {
		t.Fatalf("%s: no spec.template.metadata.labels", path)
	}
	labels := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(rest))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "        ") {
			break
		}
		k, v, ok := strings.Cut(strings.TrimSpace(line), ": ")
		if ok && !strings.Contains(v, "{{") {
			labels[k] = v
		}
	}
	if len(labels) == 0 {
		t.Fatalf("%s: no literal pod labels", path)
	}
	return labels
}
