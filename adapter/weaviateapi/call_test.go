package weaviateapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestRetryWaitCapped(t *testing.T) {
	for _, c := range []struct {
		attempt int
		header  string
		want    time.Duration
	}{
		{0, "", 100 * time.Millisecond},
		{2, "junk", 400 * time.Millisecond},
		{0, "3", 3 * time.Second},
		{0, "100000", MaxRetryAfter},
		{0, "99999999999999999", MaxRetryAfter},
		{0, "2147483647", MaxRetryAfter},
	} {
		if got := RetryWait(c.attempt, c.header); got != c.want {
			t.Errorf("RetryWait(%d, %q) = %v, want %v", c.attempt, c.header, got, c.want)
		}
	}
}

// TestCallBusyUntilTheDeadline: a server that answers 503 with a
// Retry-After longer than the caller's deadline fails the call at the
// deadline with an error naming the call and the status it retries, and
// wrapping the context's error.
func TestCallBusyUntilTheDeadline(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "60")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := Call(ctx, ts.Client(), http.MethodGet, ts.URL+"/v1/objects", "", nil, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want one wrapping context.DeadlineExceeded", err)
	}
	if want := "GET " + ts.URL + "/v1/objects: status 503, retrying after 1m0s"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q, want it to name %q", err, want)
	}
}

// TestCountRefusesANegativeCount: an Aggregate answer whose count is
// negative is an error naming the class and the number, not a count.
func TestCountRefusesANegativeCount(t *testing.T) {
	answer := func(n int) Caller {
		return func(_ context.Context, _, _ string, _, out any) error {
			return json.Unmarshal([]byte(fmt.Sprintf(`{"data":{"Aggregate":{"Doc":[{"meta":{"count":%d}}]}}}`, n)), out)
		}
	}
	if n, err := Count(context.Background(), answer(-5), "Doc", ""); err == nil || !strings.Contains(err.Error(), "count Doc") ||
		!strings.Contains(err.Error(), "-5") {
		t.Errorf("count -5: %d, %v; want an error naming the class and the number", n, err)
	}
	if n, err := Count(context.Background(), answer(7), "Doc", ""); n != 7 || err != nil {
		t.Errorf("count 7: %d, %v", n, err)
	}
}

// TestPageLargerThanAskedRefused: a page of objects longer than the limit
// asked for is an error naming the limit; one at the limit decodes.
func TestPageLargerThanAskedRefused(t *testing.T) {
	objs := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprintf(`{"id":"%d","class":"Doc","properties":{"t":"x"}}`, i)
		}
		return `{"deprecations":null,"objects":[` + strings.Join(s, ",") + `],"totalResults":1}`
	}
	n := 0
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, objs(n))
	}))
	defer ts.Close()
	for _, c := range []struct {
		n       int
		wantErr bool
	}{{100, false}, {101, true}, {16885, true}, {0, false}} {
		n = c.n
		page := Page{Limit: 100}
		err := Call(context.Background(), ts.Client(), http.MethodGet, ts.URL, "", nil, &page)
		switch {
		case c.wantErr && (err == nil || !strings.Contains(err.Error(), "more than the 100 objects asked for")):
			t.Errorf("%d objects: %v", c.n, err)
		case !c.wantErr && (err != nil || len(page.Objects) != c.n):
			t.Errorf("%d objects: %d decoded, %v", c.n, len(page.Objects), err)
		}
	}
	page := Page{Limit: 100}
	if err := page.UnmarshalJSON([]byte(`{"objects":null}`)); err != nil || len(page.Objects) != 0 {
		t.Errorf("null objects: %v", err)
	}
}

// TestPageSkipsWhatItIsTold: the objects Skip reports keep their id and
// creation time only; the others are decoded whole.
func TestPageSkipsWhatItIsTold(t *testing.T) {
	raw := `{"objects":[{"id":"a","creationTimeUnix":5,"properties":{"t":"x"},"vector":[1]},` +
		`{"id":"b","creationTimeUnix":6,"properties":{"t":"y"}}]}`
	page := Page{Limit: 2, Skip: func(id string) bool { return id == "a" }}
	if err := json.Unmarshal([]byte(raw), &page); err != nil {
		t.Fatal(err)
	}
	want := []Object{{ID: "a", CreationTimeUnix: 5}, {ID: "b", CreationTimeUnix: 6, Properties: map[string]any{"t": "y"}}}
	if !reflect.DeepEqual(page.Objects, want) {
		t.Errorf("decoded %+v, want %+v", page.Objects, want)
	}
}

// TestRedact: a URL's password is masked whether or not the URL parses,
// also one holding "/", "?" or "#" as is, and a URL without one (an "@" in
// the path after a port) is left as written.
func TestRedact(t *testing.T) {
	for raw, want := range map[string]string{
		"http://ann:pa55word@h:1/v1?x=1":   "http://ann:xxxxx@h:1/v1?x=1",
		"ann:pa55word@h:1/v1":              "ann:xxxxx@h:1/v1",
		"http://ann:pa55word@exa mple.com": "http://ann:xxxxx@exa mple.com",
		"http://ann:pa55word@h:badport":    "http://ann:xxxxx@h:badport",
		"http://a:b@c@d/e":                 "http://a:xxxxx@d/e",
		"http://ann@h:1":                   "http://ann@h:1",
		"http://h:8080/p@x":                "http://h:8080/p@x",
		"http://h:/p@x":                    "http://h:/p@x",
		"http://[::1]:8080/p@x":            "http://[::1]:8080/p@x",
		"http://h/p:q@x":                   "http://h/p:q@x",
		"http://user:pa/ss@host/ready":     "http://user:xxxxx@host/ready",
		"http://user:pa#ss@host/ready":     "http://user:xxxxx@host/ready",
		"http://user:pa?ss@host:8/ready":   "http://user:xxxxx@host:8/ready",
		"user:p/a@host/a@b":                "user:xxxxx@host/a@b",
		"http://user:pa/ss@host":           "http://user:xxxxx@host",
		"http://h:8080":                    "http://h:8080",
		"":                                 "",
	} {
		if got := Redact(raw); got != want {
			t.Errorf("Redact(%q) = %q, want %q", raw, got, want)
		}
	}
}

// TestCallNeverShowsThePassword: an error of a URL that does not parse or
// has no scheme names it without its password.
func TestCallNeverShowsThePassword(t *testing.T) {
	for _, raw := range []string{"http://ann:pa55word@127.0.0.1:badport/v1", "ann:pa55word@127.0.0.1:1/v1",
		"http://ann:pa55word@exa mple.com/v1"} {
		err := Call(context.Background(), http.DefaultClient, http.MethodGet, raw, "", nil, nil)
		if err == nil || strings.Contains(err.Error(), "pa55word") || !strings.Contains(err.Error(), "xxxxx") {
			t.Errorf("Call %q: %v, want an error naming the URL without its password", raw, err)
		}
	}
}

// TestRequestErrorHidesThePassword: the errors of building a request to a
// URL that does not parse, and of sending one to a URL without its scheme or
// to a server that does not answer, name the method and the URL without its
// password, and still wrap what failed.
func TestRequestErrorHidesThePassword(t *testing.T) {
	for _, raw := range []string{"http://user:secret@host:bad", "http://user:secret@exa mple.com", "user:secret@host",
		"http://user:secret@127.0.0.1:1/ready"} {
		req, err := http.NewRequest(http.MethodGet, raw, nil)
		if err == nil {
			_, err = http.DefaultClient.Do(req)
		}
		got := RequestError(http.MethodGet, raw, err)
		var ue *url.Error
		if !errors.As(err, &ue) || errors.Unwrap(got) != ue.Err || strings.Contains(got.Error(), "secret") ||
			!strings.HasPrefix(got.Error(), "GET "+Redact(raw)+": ") {
			t.Errorf("%q: %v, want GET and the URL without its password, wrapping %v", raw, got, err)
		}
	}
}
