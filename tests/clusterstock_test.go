//go:build unix

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/refresh"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
)

// stockCol is the collection of TestClusterStockMemoryInWeaviate, vectorized
// by the stock text2vec-transformers (the class vector).
var stockCol = clusterCol{class: "StockDocs"}

// TestClusterStockMemoryInWeaviate runs the stock path as the Kubernetes
// manifests deploy it: three stock Weaviate nodes, each node's
// TRANSFORMERS_INFERENCE_API at a text2vec-am serve replica of its own, and
// every replica keeping the context memory in the cluster (serve
// --memory-weaviate --memory-weaviate-replicas 3: the memory's collection
// replicated on every node). The replicas reach Weaviate through one
// address that spreads requests over the nodes that are up, as a
// Kubernetes Service does (--memory-weaviate http://weaviate:80 in
// text2vec-am-serve.yaml): a replica pinned to one node loses the memory
// with that node, and then fails every object it is sent (with all pinned
// to one node, every import fails), though a quorum of the memory's
// replicas is up.
//
// Three clients import the documents into a collection replicated on
// every node at the same time, a third each through a different node. In
// mid-import node 2 is killed (kill -9), and so is serve replica 1, node 1's
// vectorizer: node 1 stays up and fails every object it receives until its
// replica is back (the failures name the replica's address). Both are
// started again on their data, ports and flags; the clients resend what
// failed through another node until every document is stored. Then every
// document is stored once with a vector (through the nodes that stayed up,
// see checkStoredOnce); once the replicas' copies of the memory have read
// the same objects, every replica gives each query the same vector, bit for
// bit, and the memory counts the passages that a single stock node with one
// serve (its memory in a directory) counts after importing the same
// documents once, in order, and gives each query that node's vector: the
// copies keep the contexts of smallest hash and count each passage once, so
// neither the order, the resends nor the replica that learned a document
// changes the memory. A stored vector is made over the memory as it is when
// its object is imported: nearText gives the same top 10 through the nodes
// that stayed up (search gaps of Weaviate's index aside, see indexGaps)
// and MRR@10 within 0.02 of the single node's. Then both
// refresh their stored vectors (package refresh, which computes them with
// serve and writes them: the stock Weaviate does not vectorize an object
// again by itself), every one of them (refresh --all): by default refresh
// keeps a vector within its tolerance of the current one (cosine ≥ 1 −
// 1e-6), and the stock text2vec-transformers vectorizes the objects of a
// batch one request after another, each over the memory as the objects
// before it left it, so some of the objects imported last are within the
// tolerance and keep the vector made at import, whose last bits depend on
// which objects came before it: not the same in three concurrent clients
// and one ordered import. After refresh --all every node stores the single
// node's vectors bit for bit, nearText gives the same top 10 through every
// node and MRR@10 is within 0.005.
func TestClusterStockMemoryInWeaviate(t *testing.T) { runStockCluster(t, "text2vec-transformers") }

// TestClusterCohereMemoryInWeaviate is TestClusterStockMemoryInWeaviate
// through the stock text2vec-cohere, as the shipped Helm values allow: the
// collection's baseURL is the address of the serve replicas (as the
// text2vec-am Service), which leaves out the killed replica while it is
// down, so every node's requests go to the replicas that are up, a batch
// of up to 96 objects each (sent as search_document, which serve teaches).
// The import, the memory and the vectors must come out as through
// text2vec-transformers: the same single node is the reference.
func TestClusterCohereMemoryInWeaviate(t *testing.T) { runStockCluster(t, "text2vec-cohere") }

// runStockCluster runs the stock cluster test with the nodes' vectorizer
// module (text2vec-transformers or text2vec-cohere).
func runStockCluster(t *testing.T, module string) {
	e := requireE2E(t)
	r := loadReference(t, e)
	docs, queries := clusterData(t, r, 1500)
	c := startStockCluster(t, e, r, t.TempDir(), module)
	class := transformersCollection(stockCol.class, map[string]any{"vectorizeClassName": false})
	if module == "text2vec-cohere" {
		class = cohereCollection(stockCol.class, c.vectorizer.url())
	}
	class["replicationConfig"] = map[string]any{"factor": clusterSize}
	createCollection(t, c.nodes[0], class)
	for _, w := range c.nodes {
		waitCollection(t, w, stockCol.class)
	}
	c.waitCopiesAgree(t) // every replica has read the memory (empty) before the import
	checkReplicatedMemory(t, c.nodes[0], c.replicas[0])
	start := time.Now()
	restarted, lost := clusterSize-1, 1 // not node 0, which the others join; node 1 stays up without its vectorizer
	log := importThroughAll(t, c.nodes, stockCol, docs, c.fault(t, restarted, lost))
	t.Logf("%d documents imported by %d clients at once through %d nodes in %v, node %d and serve replica %d killed and started again "+
		"in mid-import: %d failed attempts (a request or objects of one) resent, %d of them naming replica %d",
		len(docs), clusterSize, clusterSize, time.Since(start).Round(time.Second), restarted, lost, log.failures, log.marked, lost)
	checkStoredOnce(t, c.nodes, stockCol, restarted, docs, r.vec.Dim())
	mems := c.waitCopiesAgree(t)
	cluster := make([][][]float32, len(c.replicas))
	for i, a := range c.replicas {
		cluster[i] = serveQueryVectors(t, a, queries)
		if same := sameVectorCount(cluster[i], cluster[0]); same != len(queries) {
			t.Errorf("replica %d gives %d of %d queries the vector replica 0 gives, want all (bit for bit)", i, same, len(queries))
		}
	}
	single := deployA(t, e, r, t.TempDir(), 1, true)
	createCollection(t, single.nodes[0], transformersCollection(stockCol.class, map[string]any{"vectorizeClassName": false}))
	if res, err := importDocs(context.Background(), newClient(t, single.nodes[0]), stockCol.class, docs, nil, batchSize, nil); err != nil ||
		len(res.Failures) > 0 {
		t.Fatalf("single node import: %v %v", err, res.Failures)
	}
	comparePassages(t, mems, adapterMemory(t, single.vectorizer), docs)
	compareQueryVectors(t, serveQueryVectors(t, single.vectorizer, queries), cluster[0])
	compareWithSingle(t, c.nodes, restarted, single.nodes[0], stockCol, docs, queries, func(w *weaviateServer) refresh.Options {
		a := c.replicas[0]
		if w == single.nodes[0] {
			a = single.vectorizer
		}
		return refresh.Options{Weaviate: w.url(""), Vectorizer: a.url(""), Class: stockCol.class, All: true}
	})
}

// stockCluster is three stock Weaviate nodes, node i calling serve replica
// i (text2vec-transformers) or every node calling the replicas through
// vectorizer (text2vec-cohere), and the address through which the replicas
// reach the nodes.
type stockCluster struct {
	nodes      []*weaviateServer
	replicas   []*adapterServer
	service    *roundRobin // the nodes, as the replicas reach them
	vectorizer *roundRobin // the replicas, as text2vec-cohere's baseURL reaches them
	module     string      // the nodes' vectorizer module
}

// startStockCluster starts the nodes, points service at them, then starts
// the replicas (their memory in Weaviate, reached through service: a
// replica is ready once it reaches it) and points vectorizer at them.
func startStockCluster(t *testing.T, e e2eEnv, r *reference, dir, module string) stockCluster {
	t.Helper()
	bin := text2vecAM(t, e.repo)
	c := stockCluster{service: newRoundRobin(t), vectorizer: newRoundRobin(t), module: module,
		replicas: make([]*adapterServer, clusterSize)}
	ports := freePorts(t, clusterSize)
	c.nodes = startCluster(t, stockServer(t), dir, clusterSize, func(i int, _ weaviatePorts) []string {
		if module == "text2vec-cohere" {
			return []string{"ENABLE_MODULES=text2vec-cohere", "COHERE_APIKEY=unused"}
		}
		return []string{"ENABLE_MODULES=text2vec-transformers", "TRANSFORMERS_WAIT_FOR_STARTUP=false",
			"TRANSFORMERS_INFERENCE_API=http://127.0.0.1:" + strconv.Itoa(ports[i])}
	})
	c.service.set(c.nodeURLs(-1))
	args := []string{"--memory-weaviate", c.service.url(), "--memory-weaviate-replicas", strconv.Itoa(clusterSize)}
	if r.modelPath != "" {
		args = append(args, "--model", r.modelPath)
	}
	for i, port := range ports {
		c.replicas[i] = startAdapter(t, bin, filepath.Join(dir, fmt.Sprintf("serve%d.log", i)), port, args)
	}
	c.vectorizer.set(c.replicaURLs(-1))
	return c
}

// replicaURLs are the addresses of every serve replica but down (-1: none).
func (c stockCluster) replicaURLs(down int) []string {
	var urls []string
	for i, a := range c.replicas {
		if i != down {
			urls = append(urls, a.url(""))
		}
	}
	return urls
}

// nodeURLs are the addresses of every node but down (-1: none).
func (c stockCluster) nodeURLs(down int) []string {
	var urls []string
	for i, w := range c.nodes {
		if i != down {
			urls = append(urls, w.url(""))
		}
	}
	return urls
}

// fault kills node victim and serve replica lost (node lost's vectorizer)
// and starts both again: the replica on its port, which node lost calls,
// and its flags (it keeps nothing: it reads the memory from Weaviate).
// While the node is down the replicas' address leaves it out, as a Service
// leaves out a pod that is not ready; so does the nodes' address of the
// replicas (text2vec-cohere's baseURL) while the replica is down.
func (c stockCluster) fault(t *testing.T, victim, lost int) fault {
	nf := nodeFault(t, c.nodes, victim)
	a := c.replicas[lost]
	// Through text2vec-transformers node lost fails every object it is sent
	// while its replica is down, naming the replica. Through text2vec-cohere
	// the replicas' address leaves the replica out, so it fails at most the
	// request it is answering when it dies: the replica is killed while it
	// answers one, and the failures that name it are counted, not required.
	return fault{
		what:         fmt.Sprintf("node %d and serve replica %d", victim, lost),
		mark:         "127.0.0.1:" + strconv.Itoa(a.port),
		markOptional: c.module == "text2vec-cohere",
		kill: func() {
			for end := time.Now().Add(time.Minute); c.module == "text2vec-cohere" && !c.vectorizer.serving(a.url("")) &&
				time.Now().Before(end); {
				time.Sleep(time.Millisecond)
			}
			if c.module == "text2vec-cohere" && !c.vectorizer.serving(a.url("")) {
				t.Errorf("serve replica %d answered no request for a minute: not killed in mid-import", lost)
			}
			a.proc.kill()
			c.vectorizer.set(c.replicaURLs(lost))
			nf.kill()
			c.service.set(c.nodeURLs(victim))
		},
		restart: func() {
			a.start(t)
			c.vectorizer.set(c.replicaURLs(-1))
			nf.restart()
			c.service.set(c.nodeURLs(-1))
		},
	}
}

// waitCopiesAgree waits (at most 5 minutes) until every replica's copy of
// the memory is ready and has the same version in two reads a second apart
// (each copy is refreshed every second); it returns the last read.
func (c stockCluster) waitCopiesAgree(t *testing.T) []replicaMemory {
	t.Helper()
	for i, a := range c.replicas { // a replica reads the memory for its first request at the latest
		if _, err := serveQueryVector(a, "debian"); err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
	}
	var last []string
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(time.Second) {
		mems := make([]replicaMemory, len(c.replicas))
		versions := make([]string, len(c.replicas))
		agree := true
		for i, a := range c.replicas {
			mems[i] = readReplicaMemory(t, a)
			versions[i] = mems[i].Weaviate.Scopes[""].Version
			agree = agree && mems[i].Weaviate.State == "ready" && versions[i] == versions[0]
		}
		if agree && fmt.Sprint(versions) == fmt.Sprint(last) {
			t.Logf("every replica's copy of the memory read %v objects (version %q), %v passages", mems[0].Weaviate.Scopes[""].Objects,
				versions[0], mems[0].Passages)
			for i, m := range mems {
				t.Logf("replica %d's reads of Weaviate: %v", i, m.Weaviate.Refreshes)
			}
			return mems
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replicas' copies of the memory do not agree after 5 minutes: %+v", mems)
		}
		last = versions
	}
}

// checkReplicatedMemory checks that the memory's collection, which a
// replica creates, is replicated on every node.
func checkReplicatedMemory(t *testing.T, w *weaviateServer, a *adapterServer) {
	t.Helper()
	var remote struct {
		Memory struct {
			Weaviate struct {
				Class string `json:"class"`
			} `json:"weaviate"`
		} `json:"memory"`
	}
	if status, raw, err := doJSON(context.Background(), http.MethodGet, a.url("/meta"), nil, &remote); err != nil || status != http.StatusOK {
		t.Fatalf("/meta: status %d, %v: %.300s", status, err, raw)
	}
	class := remote.Memory.Weaviate.Class
	var schema struct {
		Replication struct {
			Factor int `json:"factor"`
		} `json:"replicationConfig"`
	}
	if status, raw, err := doJSON(context.Background(), http.MethodGet, w.url("/v1/schema/"+class), nil, &schema); err != nil ||
		status != http.StatusOK {
		t.Fatalf("the memory's collection %q: status %d, %v: %.300s", class, status, err, raw)
	}
	if schema.Replication.Factor != clusterSize {
		t.Fatalf("the memory's collection %s has replication factor %d, want %d", class, schema.Replication.Factor, clusterSize)
	}
}

// comparePassages checks that every replica's copy counts the passages
// the single node's memory (single, its /meta memory) counts.
func comparePassages(t *testing.T, mems []replicaMemory, single map[string]any, docs []dataset.Document) {
	t.Helper()
	want, _ := single["passages"].(float64)
	t.Logf("passages counted: single node %v, words %v, contexts %v; %d distinct documents", want, single["words"], single["contexts"],
		distinctPassages(docs))
	for i, m := range mems {
		if m.Passages != want {
			t.Errorf("replica %d's copy of the memory counts %v passages, the single node's %v", i, m.Passages, want)
		}
	}
}

// serveQueryVectors returns the vector a gives each query.
func serveQueryVectors(t *testing.T, a *adapterServer, queries []dataset.RetrievalQuery) [][]float32 {
	t.Helper()
	out := make([][]float32, len(queries))
	for i, q := range queries {
		v, err := serveQueryVector(a, q.Text)
		if err != nil {
			t.Fatalf("query %s: %v", q.ID, err)
		}
		out[i] = v
	}
	return out
}
