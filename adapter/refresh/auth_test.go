package refresh

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/text2vec-am/text2vec-am/adapter/weaviateapi"
	"github.com/text2vec-am/text2vec-am/cli"
)

// keyedWeaviate answers Weaviate's calls only with "Bearer admin" (every
// call) or "Bearer reader" (no writes), as Weaviate with API-key
// authentication does; the vectorizer's calls must carry no key.
type keyedWeaviate struct {
	*fakeWeaviate
	seen   int // calls to Weaviate with a key
	module int // of them, calls to the in-process module's endpoint
	leaked int // vectorizer calls that carried an Authorization header
}

func (k *keyedWeaviate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	auth := r.Header.Get("Authorization")
	if strings.HasPrefix(r.URL.Path, "/vec/") {
		if auth != "" {
			k.leaked++
		}
		k.fakeWeaviate.ServeHTTP(w, r)
		return
	}
	switch {
	case auth == "":
		http.Error(w, `{"code":401,"message":"anonymous access not enabled, please provide an auth scheme such as OIDC"}`, http.StatusUnauthorized)
		return
	case auth != "Bearer admin" && auth != "Bearer reader":
		http.Error(w, `{"code":401,"message":"invalid api key"}`, http.StatusUnauthorized)
		return
	case auth == "Bearer reader" && r.URL.Path == "/v1/batch/objects":
		http.Error(w, `{"error":[{"message":"forbidden: user 'reader' has insufficient permissions"}]}`, http.StatusForbidden)
		return
	}
	k.seen++
	if r.URL.Path == "/v1/modules/text2vec-am/vectors/batch" {
		k.module++
		r.URL.Path = "/vec/vectors/batch" // the fake vectorizes the same texts
		r.Body = io.NopCloser(strings.NewReader(`{"texts":["x"],"config":{"task_type":"query"}}`))
		k.fakeWeaviate.ServeHTTP(w, r)
		return
	}
	k.fakeWeaviate.ServeHTTP(w, r)
}

func TestRunSendsTheAPIKeyToWeaviateOnly(t *testing.T) {
	f, _ := newFake(t, 25)
	k := &keyedWeaviate{fakeWeaviate: f}
	srv := httptest.NewServer(k)
	defer srv.Close()
	vec := srv.URL + "/vec"
	st, err := Run(context.Background(), Options{Weaviate: srv.URL, Vectorizer: vec, Class: "Doc", Batch: 10, APIKey: "admin"})
	if err != nil || st.Updated != 11 {
		t.Fatalf("with the key: %+v, %v; want 11 updated", st, err)
	}
	if k.seen < 5 || k.leaked != 0 {
		t.Errorf("%d calls to Weaviate with the key (want schema, pages, write, count), %d vectorizer calls with it (want 0)", k.seen, k.leaked)
	}
	for _, c := range []struct {
		key, want string
		status    int
	}{
		{"", "no API key was given: give its key with --api-key or WEAVIATE_API_KEY", 401},
		{"wrong", "Weaviate refused the API key: it is wrong", 401},
		{"reader", "forbids this to the API key's user", 403},
	} {
		_, err := Run(context.Background(), Options{Weaviate: srv.URL, Vectorizer: vec, Class: "Doc", Batch: 10, APIKey: c.key, All: true})
		var ae *AuthError
		var he *weaviateapi.HTTPError
		if !errors.As(err, &ae) || !errors.As(err, &he) || he.Status != c.status || !strings.Contains(err.Error(), c.want) {
			t.Errorf("key %q: error %v, want an AuthError (status %d) saying %q", c.key, err, c.status, c.want)
		}
	}
	if _, err := Run(context.Background(), Options{Weaviate: srv.URL, Class: "Doc", APIKey: "a b"}); err == nil || !strings.Contains(err.Error(), "white space") {
		t.Errorf("a key with a space: %v", err)
	}
}

// TestRunSendsTheAPIKeyToTheModuleEndpoint: on the in-process path the
// vectorizer is Weaviate's module endpoint, which gets the key too.
func TestRunSendsTheAPIKeyToTheModuleEndpoint(t *testing.T) {
	f, _ := newFake(t, 1)
	f.schema = `{"class":"Doc","vectorizer":"text2vec-am","moduleConfig":{"text2vec-am":{"vectorizeClassName":false}},
 "properties":[{"name":"text","dataType":["text"]}]}`
	k := &keyedWeaviate{fakeWeaviate: f}
	srv := httptest.NewServer(k)
	defer srv.Close()
	if _, err := Run(context.Background(), Options{Weaviate: srv.URL, Class: "Doc", APIKey: "admin"}); err != nil {
		t.Fatalf("with the key: %v", err)
	}
	if k.module != 1 {
		t.Errorf("%d keyed calls to the module endpoint, want 1", k.module)
	}
}

// TestCommandAPIKeyFromEnvAndFlag: WEAVIATE_API_KEY gives the key; --api-key wins over it.
func TestCommandAPIKeyFromEnvAndFlag(t *testing.T) {
	f, _ := newFake(t, 5)
	srv := httptest.NewServer(&keyedWeaviate{fakeWeaviate: f})
	defer srv.Close()
	run := func(args ...string) error {
		var out strings.Builder
		args = append([]string{"--weaviate", srv.URL, "--vectorizer", srv.URL + "/vec", "--class", "Doc"}, args...)
		return Commands()[0].Run(context.Background(), cli.Env{Args: args, Stdout: &out, Stderr: &out})
	}
	t.Setenv(APIKeyEnv, "admin")
	if err := run(); err != nil {
		t.Errorf("key from %s: %v", APIKeyEnv, err)
	}
	if err := run("--api-key", "wrong"); err == nil || !strings.Contains(err.Error(), "refused the API key") {
		t.Errorf("--api-key wrong with a right %s: %v, want the flag's key refused", APIKeyEnv, err)
	}
	t.Setenv(APIKeyEnv, "wrong")
	if err := run("--api-key", "admin"); err != nil {
		t.Errorf("--api-key admin with a wrong %s: %v", APIKeyEnv, err)
	}
}
