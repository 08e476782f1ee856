package weaviatemem

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/text2vec-am/text2vec-am/adapter/weaviateapi"
)

// DeleteMemory deletes the memory of tenant of collection (tenant "": of
// collection and all its tenants) kept in the Weaviate of o, as Store.Delete
// does, without opening a store (which creates the class): Weaviate does
// not tell the module when it deletes a collection or a tenant, so an
// operator deletes their memory with it (text2vec-am memory delete). It
// uses the options that reach Weaviate only (Options.CheckAccess).
func DeleteMemory(ctx context.Context, o Options, collection, tenant string) error {
	o.withoutCopies()
	base, user, err := o.defaults()
	if err != nil {
		return err
	}
	s := &Store{o: o, base: base, http: o.client(user), scopes: make(map[string]*scope)}
	err = s.Delete(ctx, collection, tenant)
	// Weaviate answers a call about the tenants of a class it does not hold
	// with a 422 (a 404 in some versions): is the class there?
	var he *weaviateapi.HTTPError
	if errors.As(err, &he) && (he.Status == http.StatusUnprocessableEntity || he.Status == http.StatusNotFound) &&
		notFound(s.call(ctx, http.MethodGet, "/v1/schema/"+url.PathEscape(o.Class), nil, nil)) {
		return fmt.Errorf("delete the memory of %s: %s holds no collection %s: %w", collection, weaviateapi.Redact(o.URL), o.Class,
			ErrNoCollection)
	}
	return err
}

// ErrNoCollection marks a Weaviate that holds no collection of the memory
// (Options.Class): there is no memory kept there to delete.
var ErrNoCollection = errors.New("no text2vec-am memory collection")

// Delete deletes the memory of tenant of collection, or with tenant "" of
// collection and all its tenants: their tenants in Weaviate and this
// server's copies. Other servers' copies empty at a full read (their count
// goes down).
func (s *Store) Delete(ctx context.Context, collection, tenant string) error {
	name := collection
	if tenant != "" {
		name += "/" + tenant
	}
	names := []string{tenantName(name)}
	if tenant == "" {
		var all []struct {
			Name string `json:"name"`
		}
		if err := s.call(ctx, http.MethodGet, "/v1/schema/"+url.PathEscape(s.o.Class)+"/tenants", nil, &all); err != nil {
			return fmt.Errorf("delete the memory of %s: list the tenants of %s: %w", collection, s.o.Class, err)
		}
		prefix := collectionPart(collection) + "--"
		for _, t := range all {
			if strings.HasPrefix(t.Name, prefix) {
				names = append(names, t.Name)
			}
		}
	}
	var dropped []*scope
	s.mu.Lock()
	for key, sc := range s.scopes {
		if key == name || (tenant == "" && strings.HasPrefix(key, collection+"/")) {
			s.forget(sc)
			dropped = append(dropped, sc)
		}
	}
	s.mu.Unlock()
	for _, sc := range dropped { // no refresh of theirs creates the tenants again
		sc.reading.Lock()
		sc.deleted = true
		sc.reading.Unlock()
	}
	if err := s.call(ctx, http.MethodDelete, "/v1/schema/"+url.PathEscape(s.o.Class)+"/tenants", names, nil); err != nil {
		return fmt.Errorf("delete the memory of %s: %w", name, err)
	}
	return nil
}
