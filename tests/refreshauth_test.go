//go:build unix

package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Weaviate's API keys in TestRefreshAPIKey: an admin and a read-only user.
const (
	adminKey  = "e2e-admin-key"
	readerKey = "e2e-reader-key"
)

// TestRefreshAPIKey runs "text2vec-am refresh" against a stock Weaviate
// with API-key authentication and no anonymous access: with the key (flag
// or WEAVIATE_API_KEY) it rewrites every vector; without one, with a wrong
// one, or with a read-only user's, it fails with an error saying so.
func TestRefreshAPIKey(t *testing.T) {
	e := requireE2E(t)
	tmp := t.TempDir()
	bin := text2vecAM(t, e.repo)
	a := startAdapter(t, bin, filepath.Join(tmp, "adapter.log"), freePorts(t, 1)[0], nil)
	w := startWeaviate(t, stockServer(t), filepath.Join(tmp, "data"), filepath.Join(tmp, "weaviate.log"), newWeaviatePorts(t), []string{
		"ENABLE_MODULES=text2vec-transformers",
		"TRANSFORMERS_INFERENCE_API=" + a.url(""),
		"AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=false",
		"AUTHENTICATION_APIKEY_ENABLED=true",
		"AUTHENTICATION_APIKEY_ALLOWED_KEYS=" + adminKey + "," + readerKey,
		"AUTHENTICATION_APIKEY_USERS=admin,reader",
		"AUTHORIZATION_ADMINLIST_ENABLED=true",
		"AUTHORIZATION_ADMINLIST_USERS=admin",
		"AUTHORIZATION_ADMINLIST_READONLY_USERS=reader",
	})
	const class, n = "KeyedDocs", 40
	keyedCall(t, w.url("/v1/schema"), adminKey, map[string]any{
		"class": class, "vectorizer": "text2vec-transformers",
		"moduleConfig": map[string]any{"text2vec-transformers": map[string]any{"vectorizeClassName": false}},
		"properties":   []map[string]any{{"name": "text", "dataType": []string{"text"}}},
	})
	objs := make([]map[string]any, n)
	for i := range objs {
		objs[i] = map[string]any{"class": class, "properties": map[string]any{
			"text": fmt.Sprintf("package %d installs the kernel modules and firmware for device %d", i, i%7)}}
	}
	keyedCall(t, w.url("/v1/batch/objects"), adminKey, map[string]any{"objects": objs})

	args := []string{"--weaviate", w.url(""), "--vectorizer", a.url(""), "--class", class, "--all"}
	for _, c := range []struct {
		name, env string
		args      []string
		want      string
	}{
		{"NoKey", "", nil, "no API key was given: give its key with --api-key or WEAVIATE_API_KEY"},
		{"WrongKey", "WEAVIATE_API_KEY=not-a-key", nil, "Weaviate refused the API key: it is wrong"},
		{"ReadOnlyUser", "", []string{"--api-key", readerKey}, "forbids this to the API key's user"},
	} {
		out, err := refreshCommand(bin, c.env, append(args, c.args...)...)
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(out, c.want) {
			t.Errorf("%s: refresh exited with %v, want status 1 and an error saying %q:\n%s", c.name, err, c.want, tailString(out, 2000))
		}
		t.Logf("%s: %s", c.name, lastLine(out))
	}
	for _, c := range []struct {
		name, env string
		args      []string
	}{
		{"Flag", "WEAVIATE_API_KEY=not-a-key", []string{"--api-key", adminKey}},
		{"Env", "WEAVIATE_API_KEY=" + adminKey, nil},
	} {
		out, err := refreshCommand(bin, c.env, append(args, c.args...)...)
		want := fmt.Sprintf("refresh done %s: %d objects read, %d updated", class, n, n)
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("%s: refresh with the admin key: %v, want %q:\n%s", c.name, err, want, tailString(out, 2000))
		}
		t.Logf("%s: %s", c.name, lastLine(out))
	}
}

// refreshCommand runs "text2vec-am refresh args" with WEAVIATE_API_KEY unset
// or, when env is not empty, set as env says.
func refreshCommand(bin, env string, args ...string) (string, error) {
	cmd := exec.Command(bin, append([]string{"refresh"}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "WEAVIATE_API_KEY=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if env != "" {
		cmd.Env = append(cmd.Env, env)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// keyedCall posts body to url with the API key and fails the test unless
// Weaviate answers 200 (a batch answer's per-object errors fail it too).
func keyedCall(t testing.TB, url, key string, body any) {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || bytes.Contains(raw, []byte(`"errors":{`)) {
		t.Fatalf("POST %s: status %d: %.1000s", url, resp.StatusCode, raw)
	}
}
