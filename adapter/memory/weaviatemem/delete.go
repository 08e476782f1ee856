package weaviatemem

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/text2vec-am/text2vec-am/adapter/weaviateapi"
)

// DeleteMemory deletes the memory of tenant of collection (tenant "": of
// collection and all its tenants) kept in the Weaviate of o, as Store.Delete
// does, without opening a store (which creates the class): Weaviate does
// not tell the module when it deletes a collection or a tenant, so an
// operator deletes their memory with it (text2vec-am memory delete). It
// uses the options that reach Weaviate only (Options.CheckAccess). It
// deletes nothing when the memory holds no tenant of theirs (Deleted.Tenants
// empty), and reports whether the memory has a shared scope, which it does
// not delete (Deleted.Shared).
func DeleteMemory(ctx context.Context, o Options, collection, tenant string) (Deleted, error) {
	o.withoutCopies()
	base, user, err := o.defaults()
	if err != nil {
		return Deleted{}, err
	}
	s := &Store{o: o, base: base, http: o.client(base, user), scopes: make(map[string]*scope)}
	all, err := s.tenants(ctx)
	if err != nil {
		return Deleted{}, s.noCollection(ctx, collection, fmt.Errorf("delete the memory of %s: %w", collection, err))
	}
	d := Deleted{Shared: slices.Contains(all, sharedTenant)}
	for _, name := range scopeTenants(collection, tenant, all) {
		if slices.Contains(all, name) {
			d.Tenants = append(d.Tenants, name)
		}
	}
	if len(d.Tenants) == 0 {
		return d, nil
	}
	return d, s.noCollection(ctx, collection, s.Delete(ctx, collection, tenant))
}

// Deleted is what DeleteMemory found and deleted.
type Deleted struct {
	// Tenants are the memory's tenants deleted; none when the collection
	// (or its tenant) has no memory of its own there.
	Tenants []string
	// Shared reports that the memory has a shared scope (tenant _shared):
	// serve --memory-weaviate's one memory, or the in-process module's
	// shared passage counts. It holds what every collection taught it and
	// is not deleted per collection.
	Shared bool
}

// noCollection returns err, or when Weaviate answered a call about the
// tenants of a class it does not hold (a 422; a 404 in some versions), an
// error marked ErrNoCollection.
func (s *Store) noCollection(ctx context.Context, collection string, err error) error {
	var he *weaviateapi.HTTPError
	if errors.As(err, &he) && (he.Status == http.StatusUnprocessableEntity || he.Status == http.StatusNotFound) &&
		notFound(s.call(ctx, http.MethodGet, "/v1/schema/"+url.PathEscape(s.o.Class), nil, nil)) {
		return fmt.Errorf("delete the memory of %s: %s holds no collection %s: %w", collection, s.base, s.o.Class,
			ErrNoCollection)
	}
	return err
}

// tenants lists the tenants of the memory's class.
func (s *Store) tenants(ctx context.Context) ([]string, error) {
	var all []struct {
		Name string `json:"name"`
	}
	if err := s.call(ctx, http.MethodGet, "/v1/schema/"+url.PathEscape(s.o.Class)+"/tenants", nil, &all); err != nil {
		return nil, fmt.Errorf("list the tenants of %s: %w", s.o.Class, err)
	}
	names := make([]string, len(all))
	for i, t := range all {
		names[i] = t.Name
	}
	return names, nil
}

// scopeTenants returns the tenants that hold the memory of tenant of
// collection, or with tenant "" of collection and those of all its tenants
// among all (the class's tenants).
func scopeTenants(collection, tenant string, all []string) []string {
	if tenant != "" {
		return []string{tenantName(collection + "/" + tenant)}
	}
	names := []string{tenantName(collection)}
	prefix := collectionPart(collection) + "--"
	for _, t := range all {
		if strings.HasPrefix(t, prefix) {
			names = append(names, t)
		}
	}
	return names
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
	var all []string
	if tenant == "" {
		var err error
		if all, err = s.tenants(ctx); err != nil {
			return fmt.Errorf("delete the memory of %s: %w", collection, err)
		}
	}
	names := scopeTenants(collection, tenant, all)
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
