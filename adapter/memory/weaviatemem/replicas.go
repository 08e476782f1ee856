package weaviatemem

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/text2vec-am/text2vec-am/adapter/memstore"
)

// Replication is the replication factor of the memory's collection.
type Replication struct {
	// Exists reports whether the collection exists: Factor is then its own.
	Exists bool
	// Factor is the collection's factor, or the one to create it with: one
	// replica on every node, so that each node reads the memory locally.
	Factor int
	// Nodes are the nodes Weaviate lists (/v1/nodes); 0 when the
	// collection exists (not asked).
	Nodes int
}

// CollectionReplication reads the replication factor of the memory's
// collection (Options.Class) in the Weaviate of o or, when it does not
// exist, chooses the factor to create it with from the nodes Weaviate lists.
// It uses the options that reach Weaviate only (Options.CheckAccess).
func CollectionReplication(ctx context.Context, o Options) (Replication, error) {
	o.withoutCopies()
	base, user, err := o.defaults()
	if err != nil {
		return Replication{}, err
	}
	s := &Store{o: o, base: base, http: o.client(user)}
	var c classInfo
	err = s.call(ctx, http.MethodGet, "/v1/schema/"+url.PathEscape(o.Class), nil, &c)
	switch {
	case err == nil:
		return Replication{Exists: true, Factor: max(c.Replication.Factor, 1)}, nil
	case !notFound(err) && refused(err): // a retry cannot mend it
		return Replication{}, fmt.Errorf("%w: read class %s: %w", memstore.ErrRefused, o.Class, err)
	case !notFound(err):
		return Replication{}, fmt.Errorf("read class %s: %w", o.Class, err)
	}
	var nodes struct {
		Nodes []struct {
			Name string `json:"name"`
		} `json:"nodes"`
	}
	if err := s.call(ctx, http.MethodGet, "/v1/nodes", nil, &nodes); err != nil {
		return Replication{}, fmt.Errorf("list Weaviate's nodes: %w", err)
	}
	n := len(nodes.Nodes)
	return Replication{Factor: max(n, 1), Nodes: n}, nil
}
