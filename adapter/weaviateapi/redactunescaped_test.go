package weaviateapi

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestRequestErrorHidesUnescapedPassword: a URL whose password holds a "/",
// "#" or "?" written as is does not parse; the error of building a request
// to it names it without the password.
func TestRequestErrorHidesUnescapedPassword(t *testing.T) {
	for _, c := range []struct{ raw, password string }{
		{"http://user:pa/ss@host/ready", "pa/ss"},
		{"http://user:pa#ss@host/ready", "pa#ss"},
		{"http://user:pa?ss@host:8080/ready", "pa?ss"},
	} {
		_, err := http.NewRequest(http.MethodGet, c.raw, nil)
		if err == nil {
			t.Fatalf("%q parses", c.raw)
		}
		if got := RequestError(http.MethodGet, c.raw, err).Error(); strings.Contains(got, c.password) {
			t.Errorf("%q: %s names the password", c.raw, got)
		}
	}
}

// TestRequestErrorHidesPasswordInReason: url.Parse's message quotes a part
// of the URL (a bad escape, a port); when that part is in the password it is
// masked too, and the error still wraps url.Parse's.
func TestRequestErrorHidesPasswordInReason(t *testing.T) {
	for _, c := range []struct{ raw, part string }{
		{"http://user:pa%zzss@host/ready", "%zz"},
		{"http://user:pa/ss@host/ready", ":pa"},
	} {
		_, err := http.NewRequest(http.MethodGet, c.raw, nil)
		var ue *url.Error
		if !errors.As(err, &ue) {
			t.Fatalf("%q: %v, want a *url.Error", c.raw, err)
		}
		got := RequestError(http.MethodGet, c.raw, err)
		if strings.Contains(got.Error(), c.part) || !strings.Contains(got.Error(), `"xxxxx"`) || errors.Unwrap(got) != ue.Err {
			t.Errorf("%q: %v, want %q masked, wrapping %v", c.raw, got, c.part, ue.Err)
		}
	}
}
