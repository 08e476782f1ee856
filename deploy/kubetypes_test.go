package deploy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// manifestsDir holds the manifests applied with kubectl.
const manifestsDir = "kubernetes"

// apiScheme knows the Kubernetes API types the deployment files use.
func apiScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, policyv1.AddToScheme, networkingv1.AddToScheme,
	} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// decodeObjects decodes every YAML document of data (named name in errors)
// strictly into its Kubernetes API type: an unknown or duplicated field, a
// value of the wrong type or a kind the scheme does not know is an error.
func decodeObjects(s *runtime.Scheme, name string, data []byte) ([]runtime.Object, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var objs []runtime.Object
	for n := 1; ; n++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", name, n, err)
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &tm); err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", name, n, err)
		}
		obj, err := s.New(tm.GroupVersionKind())
		if err != nil {
			return nil, fmt.Errorf("%s: document %d (%s %s): %w", name, n, tm.APIVersion, tm.Kind, err)
		}
		if err := yaml.UnmarshalStrict(doc, obj); err != nil {
			return nil, fmt.Errorf("%s: document %d (%s): %w", name, n, tm.Kind, err)
		}
		objs = append(objs, obj)
	}
}

// objectsOf returns the objects of type T among objs.
func objectsOf[T runtime.Object](objs []runtime.Object) []T {
	var out []T
	for _, o := range objs {
		if v, ok := o.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

// only returns the one object of type T among objs.
func only[T runtime.Object](t *testing.T, objs []runtime.Object) T {
	t.Helper()
	l := objectsOf[T](objs)
	if len(l) != 1 {
		var zero T
		t.Fatalf("%d objects of type %T, want 1", len(l), zero)
	}
	return l[0]
}

// selects reports whether sel selects a pod labelled podLabels, failing on
// an invalid selector.
func selects(t *testing.T, sel *metav1.LabelSelector, podLabels map[string]string, where string) bool {
	t.Helper()
	if errs := metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{},
		field.NewPath(where)); len(errs) > 0 {
		t.Fatalf("%s: %v", where, errs.ToAggregate())
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	return !s.Empty() && s.Matches(labels.Set(podLabels))
}

// decodeFile decodes the manifest at path (decodeObjects).
func decodeFile(t *testing.T, path string) ([]runtime.Object, error) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return decodeObjects(apiScheme(t), path, data)
}

// TestManifestsDecodeStrictly decodes every manifest in deploy/kubernetes
// (the Helm values are not manifests) into the Kubernetes API types.
func TestManifestsDecodeStrictly(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(manifestsDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "weaviate-values") {
			continue
		}
		objs, err := decodeFile(t, f)
		if err != nil {
			t.Error(err)
		}
		n += len(objs)
	}
	if n == 0 {
		t.Fatal("no manifest decoded")
	}
}

// TestDecodeRefusesUnknownFields checks that the decoding above refuses
// what the API server would: a misspelt field, a duplicated one, an unknown kind.
func TestDecodeRefusesUnknownFields(t *testing.T) {
	s := apiScheme(t)
	for name, doc := range map[string]string{
		"misspelt":  "apiVersion: policy/v1\nkind: PodDisruptionBudget\nspec:\n  minAvailabel: 1\n",
		"duplicate": "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  name: b\n",
		"kind":      "apiVersion: v1\nkind: Servise\n",
		"type":      "apiVersion: apps/v1\nkind: StatefulSet\nspec:\n  replicas: many\n",
	} {
		if _, err := decodeObjects(s, name, []byte(doc)); err == nil {
			t.Errorf("%s: decoded without an error", name)
		}
	}
}

// serveObjects decodes text2vec-am-serve.yaml.
func serveObjects(t *testing.T) []runtime.Object {
	t.Helper()
	objs, err := decodeFile(t, filepath.Join(manifestsDir, "text2vec-am-serve.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// TestStatelessServeDisruptionAndNetwork checks the budget and the policy of
// text2vec-am-serve.yaml: the budget selects the replicas and lets one at a
// time go, never all; the policy admits only Weaviate's pods.
func TestStatelessServeDisruptionAndNetwork(t *testing.T) {
	objs := serveObjects(t)
	d := only[*appsv1.Deployment](t, objs)
	pod := d.Spec.Template.Labels
	pdb := only[*policyv1.PodDisruptionBudget](t, objs)
	if !selects(t, pdb.Spec.Selector, pod, "PodDisruptionBudget.spec.selector") {
		t.Errorf("the PodDisruptionBudget does not select the replicas %v", pod)
	}
	if d.Spec.Replicas == nil || *d.Spec.Replicas < 2 || pdb.Spec.MaxUnavailable == nil || pdb.Spec.MinAvailable != nil ||
		pdb.Spec.MaxUnavailable.IntValue() < 1 || pdb.Spec.MaxUnavailable.IntValue() >= int(*d.Spec.Replicas) {
		t.Errorf("replicas %v, PodDisruptionBudget maxUnavailable %v minAvailable %v: want at least 2 replicas, "+
			"and maxUnavailable alone, at least 1 and fewer than the replicas", d.Spec.Replicas, pdb.Spec.MaxUnavailable, pdb.Spec.MinAvailable)
	}
	checkNetworkPolicy(t, only[*networkingv1.NetworkPolicy](t, objs), pod, d.Spec.Template.Spec.Containers[0])
}

// checkNetworkPolicy checks that np selects the pods labelled pod and admits
// to container c's one port only Weaviate's pods of the namespace.
func checkNetworkPolicy(t *testing.T, np *networkingv1.NetworkPolicy, pod map[string]string, c corev1.Container) {
	t.Helper()
	if !selects(t, &np.Spec.PodSelector, pod, "NetworkPolicy.spec.podSelector") {
		t.Errorf("the NetworkPolicy does not select the pods %v", pod)
	}
	if len(np.Spec.PolicyTypes) != 1 || np.Spec.PolicyTypes[0] != networkingv1.PolicyTypeIngress {
		t.Errorf("policyTypes %v, want [Ingress]", np.Spec.PolicyTypes)
	}
	if len(np.Spec.Ingress) != 1 || len(np.Spec.Ingress[0].From) != 1 || len(np.Spec.Ingress[0].Ports) != 1 {
		t.Fatalf("ingress %+v: want one rule, one peer (Weaviate's pods), one port", np.Spec.Ingress)
	}
	peer, port := np.Spec.Ingress[0].From[0], np.Spec.Ingress[0].Ports[0]
	if peer.PodSelector == nil || peer.NamespaceSelector != nil || peer.IPBlock != nil {
		t.Errorf("ingress peer %+v: want Weaviate's pods of the same namespace only", peer)
	}
	if port.Port == nil || len(c.Ports) != 1 || port.Port.String() != c.Ports[0].Name {
		t.Errorf("ingress port %v, the container's ports %+v: want the container's one port by name", port.Port, c.Ports)
	}
	if !selects(t, peer.PodSelector, weaviatePodLabels(t), "NetworkPolicy ingress from") {
		t.Errorf("the NetworkPolicy admits %v, not weaviate-helm's pods %v", peer.PodSelector, weaviatePodLabels(t))
	}
	if selects(t, peer.PodSelector, pod, "NetworkPolicy ingress from") {
		t.Error("the NetworkPolicy's peer selector also selects the pods it guards")
	}
}
