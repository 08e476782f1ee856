package weaviatemem

import (
	"context"
	"fmt"
	"net/http"
)

// createFactor returns the replication factor the memory's collection is
// created with: Options.Replicas, or when it is 0 one replica on each of the
// nodes Weaviate lists (/v1/nodes), whose number it returns too (0 when
// not asked).
func (s *Store) createFactor(ctx context.Context) (factor, nodes int, err error) {
	if s.o.Replicas != 0 {
		return s.o.Replicas, 0, nil
	}
	var list struct {
		Nodes []struct {
			Name string `json:"name"`
		} `json:"nodes"`
	}
	if err := s.call(ctx, http.MethodGet, "/v1/nodes", nil, &list); err != nil {
		return 0, 0, fmt.Errorf("list Weaviate's nodes to choose the replication factor of class %s "+
			"(or set the factor): %w", s.o.Class, err)
	}
	n := len(list.Nodes)
	return min(max(n, 1), maxReplicas), n, nil
}

// maxReplicas is the largest replication factor asked.
const maxReplicas = 64

// knownFactor returns the collection's replication factor as read or
// created, or the one asked when none is known yet (0: one replica on each
// of Weaviate's nodes).
func (s *Store) knownFactor() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.factor != 0 {
		return s.factor
	}
	return s.o.Replicas
}

// replicasFlag is the flag of memory rebuild that asks for the replication
// factor replicas: none for 0 (rebuild's default, one replica on each node).
func replicasFlag(replicas int) string {
	if replicas == 0 {
		return ""
	}
	return fmt.Sprintf(" --memory-weaviate-replicas %d", replicas)
}
