//go:build unix

package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// freePortPair returns a free loopback port p whose successor p+1 is free
// too: a local Weaviate cluster finds a node's Raft RPC port at its Raft port + 1.
func freePortPair(t testing.TB) int {
	t.Helper()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("free port: %v", err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		l2, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p+1))
		l.Close()
		if err == nil {
			l2.Close()
			return p
		}
	}
	t.Fatal("no two consecutive free loopback ports in 100 tries")
	return 0
}

// clusterPorts returns the ports of n nodes of one local cluster.
func clusterPorts(t testing.TB, n int) []weaviatePorts {
	ports := make([]weaviatePorts, n)
	for i := range ports {
		ports[i] = newWeaviatePorts(t)
		ports[i].Raft = freePortPair(t)
		ports[i].RaftRPC = ports[i].Raft + 1
	}
	return ports
}

// startCluster starts n weaviate-server processes of bin that form one
// cluster on loopback (node0 … node{n-1}; memberlist joins node0, Raft
// bootstraps once all n run) with data under dir; env(i) is node i's extra
// environment. It returns when every node is ready and sees all n.
func startCluster(t testing.TB, bin, dir string, n int, env func(i int) []string) []*weaviateServer {
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
			logPath: filepath.Join(dir, fmt.Sprintf("node%d.log", i)), ports: ports[i], env: append(e, env(i)...)}
		nodes[i].launch(t)
	}
	for _, w := range nodes {
		w.waitReady(t)
	}
	for _, w := range nodes {
		waitNodes(t, w, n)
	}
	return nodes
}

// waitNodes waits until w reports n healthy nodes.
func waitNodes(t testing.TB, w *weaviateServer, n int) {
	t.Helper()
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
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("node on port %d sees %d healthy nodes, want %d (status %d, %v): %.500s", w.ports.HTTP, healthy, n, status, err, raw)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
