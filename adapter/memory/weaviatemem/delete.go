package weaviatemem

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Delete deletes the memory of tenant of collection, or with tenant "" of
// collection and all its tenants: their tenants in Weaviate and this
// server's copies. Other servers' copies empty at a full read (their count
// goes down).
func (s *Store) Delete(ctx context.Context, collection, tenant string) error {
	scope := collection
	if tenant != "" {
		scope += "/" + tenant
	}
	names := []string{tenantName(scope)}
	if tenant == "" {
		var all []struct {
			Name string `json:"name"`
		}
		if err := s.call(ctx, http.MethodGet, "/v1/schema/"+url.PathEscape(s.o.Class)+"/tenants", nil, &all); err != nil {
			return fmt.Errorf("delete the memory of %s: list the tenants of %s: %w", collection, s.o.Class, err)
		}
		prefix := tenantName(collection + "/x")
		prefix = prefix[:min(len(prefix), len(collection)+2, 40)] // "Class--", as cut for a long name
		for _, t := range all {
			if strings.HasPrefix(t.Name, prefix) {
				names = append(names, t.Name)
			}
		}
	}
	if err := s.call(ctx, http.MethodDelete, "/v1/schema/"+url.PathEscape(s.o.Class)+"/tenants", names, nil); err != nil {
		return fmt.Errorf("delete the memory of %s: %w", scope, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for name := range s.scopes {
		if name == scope || (tenant == "" && strings.HasPrefix(name, collection+"/")) {
			delete(s.scopes, name)
		}
	}
	return nil
}
