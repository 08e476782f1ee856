//go:build unix

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// clusterPorts returns the ports of n nodes of one local cluster, every one
// distinct (a port drawn for one node is closed again before the next node's
// are drawn, so the kernel may hand it out twice).
func clusterPorts(t testing.TB, n int) []weaviatePorts {
	for range 20 {
		ports := make([]weaviatePorts, n)
		seen := map[int]bool{}
		distinct := true
		for i := range ports {
			ports[i] = newWeaviatePorts(t)
			ports[i].Raft = freePortPair(t)
			ports[i].RaftRPC = ports[i].Raft + 1
			p := ports[i]
			for _, q := range []int{p.HTTP, p.GRPC, p.Gossip, p.Data, p.Raft, p.RaftRPC, p.Profiling} {
				distinct = distinct && !seen[q]
				seen[q] = true
			}
		}
		if distinct {
			return ports
		}
	}
	t.Fatal("no distinct ports for a local cluster in 20 draws")
	return nil
}

// clusterAttempts is how often startCluster bootstraps a cluster before it
// fails: on a loaded 2-core machine Weaviate's Raft bootstrap of three fresh
// nodes now and then finds no leader (memberlist suspects a node that is
// still starting), which is not what the cluster tests test.
const clusterAttempts = 2

// startCluster starts n weaviate-server processes of bin that form one
// cluster on loopback (node0 … node{n-1}; memberlist joins node0, Raft
// bootstraps once all n run) with data under dir; env(i, p) is the extra
// environment of node i, which listens on ports p. It returns when every node is ready and sees all n; a
// bootstrap that does not get there is logged, stopped and tried again
// with new ports and empty data directories (clusterAttempts).
func startCluster(t testing.TB, bin, dir string, n int, env func(i int, p weaviatePorts) []string) []*weaviateServer {
	t.Helper()
	for attempt := 1; ; attempt++ {
		sub := filepath.Join(dir, fmt.Sprintf("cluster%d", attempt))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		nodes, err := bootCluster(t, bin, sub, n, env)
		if err == nil {
			return nodes
		}
		for _, w := range nodes {
			w.proc.stop(t)
		}
		if attempt == clusterAttempts {
			t.Fatalf("cluster bootstrap, attempt %d of %d: %v", attempt, clusterAttempts, err)
		}
		t.Logf("cluster bootstrap, attempt %d of %d, failed (trying again with new ports): %.2000s", attempt, clusterAttempts, err)
	}
}

// bootCluster launches the n nodes under dir and waits until each is ready
// and sees all n healthy; it returns the nodes launched, also with an error.
func bootCluster(t testing.TB, bin, dir string, n int, env func(i int, p weaviatePorts) []string) ([]*weaviateServer, error) {
	t.Helper()
	ports := clusterPorts(t, n)
	var join []string
	for i, p := range ports {
		join = append(join, fmt.Sprintf("node%d:%d", i, p.Raft))
	}
	nodes := make([]*weaviateServer, n)
	for i := range nodes {
		e := []string{
			"CLUSTER_HOSTNAME=node" + strconv.Itoa(i),
			"CLUSTER_IN_LOCALHOST=true",
			"RAFT_JOIN=" + strings.Join(join, ","),
			"RAFT_BOOTSTRAP_EXPECT=" + strconv.Itoa(n),
		}
		if i > 0 {
			e = append(e, "CLUSTER_JOIN=127.0.0.1:"+strconv.Itoa(ports[0].Gossip))
		}
		nodes[i] = &weaviateServer{owner: t, bin: bin, dataDir: filepath.Join(dir, fmt.Sprintf("node%d", i)),
			logPath: filepath.Join(dir, fmt.Sprintf("node%d.log", i)), ports: ports[i], env: append(e, env(i, ports[i])...)}
		nodes[i].launch(t)
	}
	for _, w := range nodes {
		if err := pollHTTP(w.proc, w.url("/v1/.well-known/ready"), 3*time.Minute); err != nil {
			return nodes, err
		}
	}
	for _, w := range nodes {
		if err := pollNodes(w, n); err != nil {
			return nodes, err
		}
	}
	return nodes, nil
}

// pollNodes waits until w reports n healthy nodes.
func pollNodes(w *weaviateServer, n int) error {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var resp struct {
			Nodes []struct {
				Name   string `json:"name"`
				Status string `json:"status"`
			} `json:"nodes"`
		}
		status, raw, err := doJSON(context.Background(), http.MethodGet, w.url("/v1/nodes"), nil, &resp)
		healthy := 0
		for _, nd := range resp.Nodes {
			if nd.Status == "HEALTHY" {
				healthy++
			}
		}
		if err == nil && status == http.StatusOK && healthy == n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("node on port %d sees %d healthy nodes, want %d (status %d, %v): %.500s", w.ports.HTTP, healthy, n, status, err, raw)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
