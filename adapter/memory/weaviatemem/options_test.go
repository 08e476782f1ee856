package weaviatemem

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/memory"
)

// TestCheckRefusesBadAPIKeys: a key that cannot travel in an Authorization
// header is refused as the APIKey option, whatever its white space or
// control character; a plain key passes.
func TestCheckRefusesBadAPIKeys(t *testing.T) {
	for _, key := range []string{"a b", "a\tb", "a\nb", "a\x00b", "a\x1bb", "a\x7fb", "a\u0085b"} {
		err := Options{URL: "http://weaviate:8080", APIKey: key}.CheckAccess()
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Option != "APIKey" {
			t.Errorf("key %q: err %v, want an APIKey OptionError", key, err)
		}
	}
	if err := (Options{URL: "http://weaviate:8080", APIKey: "s3cr3t-K3y"}).CheckAccess(); err != nil {
		t.Errorf("plain key: %v", err)
	}
}

// TestCredentialsStayWithWeaviate: the user and password of the URL go to
// Weaviate's host only; a Weaviate (or something in its place) that
// redirects to another host does not get them sent there.
func TestCredentialsStayWithWeaviate(t *testing.T) {
	var mu sync.Mutex
	var atWeaviate, elsewhere []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		elsewhere = append(elsewhere, r.Header.Get("Authorization"))
		mu.Unlock()
		http.Error(w, "not Weaviate", http.StatusInternalServerError)
	}))
	defer other.Close()
	// Another host name for the same listener: "localhost" is not 127.0.0.1.
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		atWeaviate = append(atWeaviate, r.Header.Get("Authorization"))
		mu.Unlock()
		http.Redirect(w, r, otherURL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	o := Options{URL: strings.Replace(redirector.URL, "http://", "http://user:s3cret@", 1), Refresh: 20 * time.Millisecond,
		Timeout: time.Second, Memory: memory.DefaultOptions(), Logger: quiet()}
	s, err := Open(o, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitFor(t, "a redirected call", func() bool { mu.Lock(); defer mu.Unlock(); return len(elsewhere) > 0 })
	mu.Lock()
	defer mu.Unlock()
	if len(atWeaviate) == 0 || !strings.HasPrefix(atWeaviate[0], "Basic ") {
		t.Errorf("Weaviate got Authorization %q, want the basic authentication of the URL", atWeaviate)
	}
	for _, a := range elsewhere {
		if a != "" {
			t.Fatalf("the host redirected to got Authorization %q, want none", a)
		}
	}
}
