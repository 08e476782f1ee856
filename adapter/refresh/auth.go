package refresh

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/text2vec-am/text2vec-am/adapter/weaviateapi"
)

// APIKeyEnv is the environment variable holding Weaviate's API key, as
// Weaviate's clients read it; the --api-key flag wins over it.
const APIKeyEnv = "WEAVIATE_API_KEY"

// AuthError is a 401 or 403 answer from Weaviate: the API key is missing,
// wrong, or its user may not do what refresh asks. errors.As finds it, and
// the HTTPError it wraps, through refresh's errors.
type AuthError struct {
	*weaviateapi.HTTPError
	// KeySent reports whether the request carried an API key.
	KeySent bool
}

func (e *AuthError) Error() string {
	hint := ""
	switch {
	case !e.KeySent && e.Status == http.StatusUnauthorized:
		hint = "Weaviate requires authentication and no API key was given: " +
			"give its key with --api-key or " + APIKeyEnv
	case e.Status == http.StatusUnauthorized:
		hint = "Weaviate refused the API key: it is wrong (not one of Weaviate's AUTHENTICATION_APIKEY_ALLOWED_KEYS)"
	case !e.KeySent:
		hint = "Weaviate forbids this to anonymous users: give an API key with --api-key or " + APIKeyEnv
	default:
		hint = "Weaviate forbids this to the API key's user: grant it read and write access to the collection"
	}
	return hint + " (" + e.HTTPError.Error() + ")"
}

// Unwrap returns the HTTP answer.
func (e *AuthError) Unwrap() error { return e.HTTPError }

// callWeaviate is weaviateapi.Call for a call to Weaviate: it sends the API key and
// turns a 401 or 403 answer into an *AuthError.
func (o *Options) callWeaviate(ctx context.Context, method, url string, body, out any) error {
	err := weaviateapi.Call(ctx, o.HTTP, method, url, o.APIKey, body, out)
	var he *weaviateapi.HTTPError
	if errors.As(err, &he) && (he.Status == http.StatusUnauthorized || he.Status == http.StatusForbidden) {
		return &AuthError{HTTPError: he, KeySent: o.APIKey != ""}
	}
	return err
}

// ClassNotFoundError is Weaviate's 404 to the definition of a class: the
// Weaviate at URL has no class of that name. errors.As finds it, and the
// HTTPError it wraps, through refresh's errors.
type ClassNotFoundError struct {
	*weaviateapi.HTTPError
	Class, Weaviate string
}

func (e *ClassNotFoundError) Error() string {
	return fmt.Sprintf("class %s does not exist in the Weaviate at %s (%s %s answered %d); "+
		"check its name, spelled as Weaviate's /v1/schema lists it", e.Class, e.Weaviate, e.Method, e.URL, e.Status)
}

// Unwrap returns the HTTP answer.
func (e *ClassNotFoundError) Unwrap() error { return e.HTTPError }

// readClass returns the definition of class o.Class. Weaviate answers a
// class it does not have with a 404 and an empty body: that is a
// *ClassNotFoundError. A 404 with a body comes from something else at that
// URL (a wrong base path, a proxy, a server that is not Weaviate): an
// error saying so, wrapping the HTTPError with its body.
func (o *Options) readClass(ctx context.Context) (json.RawMessage, error) {
	var raw json.RawMessage
	err := o.callWeaviate(ctx, http.MethodGet, o.Weaviate+"/v1/schema/"+url.PathEscape(o.Class), nil, &raw)
	var he *weaviateapi.HTTPError
	if errors.As(err, &he) && he.Status == http.StatusNotFound {
		if strings.TrimSpace(he.Body) == "" {
			return nil, &ClassNotFoundError{HTTPError: he, Class: o.Class, Weaviate: weaviateapi.Redact(o.Weaviate)}
		}
		return nil, fmt.Errorf("%s may not be Weaviate's REST API "+
			"(Weaviate answers a class it does not have with a 404 and an empty body): %w", weaviateapi.Redact(o.Weaviate), err)
	}
	return raw, err
}

// call is callWeaviate of a path under o.Weaviate: the weaviateapi.Caller
// of refresh's calls to Weaviate.
func (o *Options) call(ctx context.Context, method, path string, body, out any) error {
	return o.callWeaviate(ctx, method, o.Weaviate+path, body, out)
}

// checkAPIKey refuses a key that cannot travel in an Authorization header.
func checkAPIKey(key string) error {
	return weaviateapi.CheckAPIKey(key) // its message names the API key
}
