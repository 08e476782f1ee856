package weaviateapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
)

// Caller sends one call to Weaviate: method and path (from /v1 on; the
// caller adds the base URL and credentials), body JSON-encoded (nil: none),
// a 2xx answer decoded into out (nil: dropped).
type Caller func(ctx context.Context, method, path string, body, out any) error

// Object is an object as Weaviate's REST API lists it.
type Object struct {
	ID         string                     `json:"id"`
	Class      string                     `json:"class"`
	Tenant     string                     `json:"tenant,omitempty"`
	Properties map[string]any             `json:"properties"`
	Vector     []float32                  `json:"vector,omitempty"`
	Vectors    map[string]json.RawMessage `json:"vectors,omitempty"`
	// CreationTimeUnix is when the node that received the object's last
	// write stored it, in milliseconds since 1970 (listed, never sent).
	CreationTimeUnix int64 `json:"creationTimeUnix,omitempty"`
}

// VectorOf returns the stored vector of target ("" for the class vector);
// nil when there is none or it is a multi-vector.
func (o *Object) VectorOf(target string) []float32 {
	if target == "" {
		return o.Vector
	}
	var v []float32
	if json.Unmarshal(o.Vectors[target], &v) != nil {
		return nil
	}
	return v
}

// Page is a page of GET /v1/objects that holds at most Limit objects: a
// longer page is refused as it is decoded, before the objects beyond the
// limit take any memory. The objects whose id Skip (nil: none) reports
// keep their id and creation time only: their properties and vectors are
// not decoded.
type Page struct {
	Limit   int
	Skip    func(id string) bool
	Objects []Object
}

// UnmarshalJSON decodes {"objects":[…], …} one object at a time.
func (p *Page) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("a page of objects: want a JSON object (%v)", err)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if t != "objects" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
			continue
		}
		if err := p.decodeObjects(dec); err != nil {
			return err
		}
	}
	return nil
}

// decodeObjects decodes the array (or null) of "objects".
func (p *Page) decodeObjects(dec *json.Decoder) error {
	if t, err := dec.Token(); err != nil || (t != json.Delim('[') && t != nil) {
		return fmt.Errorf("a page of objects: \"objects\" is not an array (%v)", err)
	} else if t == nil {
		return nil
	}
	for dec.More() {
		if len(p.Objects) == p.Limit {
			return fmt.Errorf("the page holds more than the %d objects asked for", p.Limit)
		}
		o, err := p.decodeObject(dec)
		if err != nil {
			return err
		}
		p.Objects = append(p.Objects, o)
	}
	_, err := dec.Token()
	return err
}

// decodeObject decodes the next object, only its id and creation time when
// p.Skip reports it.
func (p *Page) decodeObject(dec *json.Decoder) (Object, error) {
	var o Object
	if p.Skip == nil {
		err := dec.Decode(&o)
		return o, err
	}
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return o, err
	}
	var head struct {
		ID               string `json:"id"`
		CreationTimeUnix int64  `json:"creationTimeUnix,omitempty"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return o, err
	}
	if p.Skip(head.ID) {
		return Object{ID: head.ID, CreationTimeUnix: head.CreationTimeUnix}, nil
	}
	err := json.Unmarshal(raw, &o)
	return o, err
}

// List returns the page of at most limit objects of class (of tenant, when
// not "") after the id after ("" from the start) in the cursor's order
// (ascending ids); with vectors their vectors too.
func List(ctx context.Context, call Caller, class, tenant, after string, limit int, vectors bool) ([]Object, error) {
	return list(ctx, call, class, tenant, after, Page{Limit: limit}, vectors)
}

// ListExcept is List without vectors, and with only the id and creation
// time of the objects whose id skip reports: a reader that has them already
// does not decode them again.
func ListExcept(ctx context.Context, call Caller, class, tenant, after string, limit int,
	skip func(id string) bool) ([]Object, error) {
	return list(ctx, call, class, tenant, after, Page{Limit: limit, Skip: skip}, false)
}

func list(ctx context.Context, call Caller, class, tenant, after string, page Page, vectors bool) ([]Object, error) {
	q := url.Values{"class": {class}, "limit": {fmt.Sprint(page.Limit)}}
	if vectors {
		q.Set("include", "vector")
	}
	if after != "" {
		q.Set("after", after)
	}
	if tenant != "" {
		q.Set("tenant", tenant)
	}
	if err := call(ctx, http.MethodGet, "/v1/objects?"+q.Encode(), nil, &page); err != nil {
		return nil, fmt.Errorf("list %s after %q: %w", class, after, err)
	}
	return page.Objects, nil
}

// BatchAnswer is one object's outcome in POST /v1/batch/objects.
type BatchAnswer struct {
	ID     string `json:"id"`
	Result struct {
		Errors *struct {
			Error []struct {
				Message string `json:"message"`
			} `json:"error"`
		} `json:"errors"`
	} `json:"result"`
}

// ErrRefused wraps Batch's error when Weaviate refused an object.
var ErrRefused = errors.New("an object was refused by Weaviate")

// Batch writes objects (each as POST /v1/batch/objects takes it: "class",
// "id", "properties", …) in one request at consistency level consistency
// ("" for Weaviate's default) and fails on the first object Weaviate refused.
func Batch(ctx context.Context, call Caller, objects []map[string]any, consistency string) error {
	path := "/v1/batch/objects"
	if consistency != "" {
		path += "?consistency_level=" + url.QueryEscape(consistency)
	}
	var answers []BatchAnswer
	if err := call(ctx, http.MethodPost, path, map[string]any{"objects": objects}, &answers); err != nil {
		return fmt.Errorf("write %d objects: %w", len(objects), err)
	}
	if len(answers) != len(objects) {
		return fmt.Errorf("write %d objects: %d answers", len(objects), len(answers))
	}
	for i, a := range answers {
		if a.Result.Errors != nil && len(a.Result.Errors.Error) > 0 {
			return fmt.Errorf("%w: object %v of %v: %s", ErrRefused, objects[i]["id"], objects[i]["class"], a.Result.Errors.Error[0].Message)
		}
	}
	return nil
}

// GraphQLError is an error Weaviate answered a GraphQL query with (it
// refused the query, or a tenant or class of it is not there).
type GraphQLError struct{ Message string }

func (e *GraphQLError) Error() string { return "GraphQL: " + e.Message }

// GraphQL runs query (POST /v1/graphql) and decodes its "data" into data;
// an answer with "errors" is a *GraphQLError naming the first.
func GraphQL(ctx context.Context, call Caller, query string, data any) error {
	var ans struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := call(ctx, http.MethodPost, "/v1/graphql", map[string]any{"query": query}, &ans); err != nil {
		return err
	}
	if len(ans.Errors) > 0 {
		return &GraphQLError{Message: ans.Errors[0].Message}
	}
	if err := json.Unmarshal(ans.Data, data); err != nil {
		return fmt.Errorf("GraphQL: decode data: %w", err)
	}
	return nil
}

// Count returns the number of objects of class (of tenant, when not "").
func Count(ctx context.Context, call Caller, class, tenant string) (int, error) {
	q := fmt.Sprintf("{ Aggregate { %s%s { meta { count } } } }", class, TenantArg(tenant))
	var data struct {
		Aggregate map[string][]struct {
			Meta struct {
				Count int `json:"count"`
			} `json:"meta"`
		} `json:"Aggregate"`
	}
	if err := GraphQL(ctx, call, q, &data); err != nil {
		return 0, fmt.Errorf("count %s: %w", class, err)
	}
	agg := data.Aggregate[class]
	if len(agg) != 1 {
		return 0, fmt.Errorf("count %s: no answer", class)
	}
	if n := agg[0].Meta.Count; n < 0 {
		return 0, fmt.Errorf("count %s: Weaviate answered %d, not a count", class, n)
	}
	return agg[0].Meta.Count, nil
}

// TenantArg returns the GraphQL argument naming tenant ("" for none).
func TenantArg(tenant string) string {
	if tenant == "" {
		return ""
	}
	b, _ := json.Marshal(tenant)
	return "(tenant: " + string(b) + ")"
}
