//go:build unix

package e2e

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/text2vec-am/text2vec-am/adapter/refresh"
	"github.com/text2vec-am/text2vec-am/module"
	"github.com/text2vec-am/text2vec-am/trainer/eval/dataset"
)

// clusterSize is the number of nodes of the cluster tests.
const clusterSize = 3

// clusterQueries is the number of debian-dev queries sent through each node.
const clusterQueries = 200

// clusterData returns the documents a cluster test imports (the first
// T2V_CLUSTER_DOCS, default n, 0 = all: every query's relevant document is
// among the first 2000) and the clusterQueries queries it sends.
func clusterData(t *testing.T, r *reference, n int) ([]dataset.Document, []dataset.RetrievalQuery) {
	t.Helper()
	if s := os.Getenv("T2V_CLUSTER_DOCS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			t.Fatalf("T2V_CLUSTER_DOCS=%q: want a count ≥ 0", s)
		}
		n = v
	}
	if n == 0 || n > len(r.docs) {
		n = len(r.docs)
	}
	docs := r.docs[:n]
	in := make(map[string]bool, n)
	for _, d := range docs {
		in[d.ID] = true
	}
	var qs []dataset.RetrievalQuery
	for _, q := range r.queries {
		ok := true
		for _, id := range q.Relevant {
			ok = ok && in[id]
		}
		if ok {
			qs = append(qs, q)
		}
		if len(qs) == clusterQueries {
			break
		}
	}
	if len(qs) < clusterQueries {
		t.Fatalf("only %d queries have their relevant documents among the %d imported", len(qs), len(docs))
	}
	return docs, qs
}

// clusterClass is one collection of the cluster tests.
type clusterClass struct {
	name                string
	shards, replication int
}

// clusterClasses: one collection replicated on every node, one sharded over them.
var clusterClasses = []clusterClass{{"Rep", 1, clusterSize}, {"Shard", clusterSize, 1}}

// clusterPath is one of the two integrations.
type clusterPath struct {
	name   string
	bin    string
	target string                            // named vector ("" = the class vector)
	schema func(class string) map[string]any // a teaching collection
	deploy func(t *testing.T, dir string, n int, shared bool) deployment
}

// deployment is a running cluster (or single node) and how to read the
// vector each node gives a query.
type deployment struct {
	nodes      []*weaviateServer
	vectorizer *adapterServer // path A's one text2vec-am serve that every node calls (nil: none)
	// settle, when set, runs after the import of class and before its
	// queries: path B waits there for every node's copy of the memory kept
	// in Weaviate to read the same objects.
	settle      func(t *testing.T, class string)
	queryVector func(node int, class, text string) ([]float32, error)
}

// clusterOutcome is what one deployment measured.
type clusterOutcome struct {
	importRate map[string]float64      // class → objects/s of the import spread over the nodes
	top        map[string][][][]string // class → node → query → top-10 docIds, documents at equal distance sorted by docId
	rawSame    map[string]int          // class → queries whose top 10 is the same list on every node before that sort
	qvecs      [][][]float32           // node → query → vector (collection Rep)
	mrr        map[string][]float64    // class → node → MRR@10
}

// exercise creates the collections, imports docs batch by batch round-robin
// over the nodes (batch k through node k mod n, in order, so that a cluster
// and a single node see the same sequence), then sends every query through
// every node.
func exercise(t *testing.T, d deployment, p clusterPath, docs []dataset.Document, queries []dataset.RetrievalQuery) clusterOutcome {
	t.Helper()
	n := len(d.nodes)
	out := clusterOutcome{importRate: map[string]float64{}, top: map[string][][][]string{}, rawSame: map[string]int{}, mrr: map[string][]float64{}}
	for _, cc := range clusterClasses {
		class := p.schema(cc.name)
		class["shardingConfig"] = map[string]any{"desiredCount": cc.shards}
		class["replicationConfig"] = map[string]any{"factor": min(cc.replication, n)}
		createCollection(t, d.nodes[0], class)
		for _, w := range d.nodes {
			waitCollection(t, w, cc.name)
		}
		clients := make([]*collection, n)
		for i, w := range d.nodes {
			clients[i] = &collection{w: w, c: newClient(t, w), class: cc.name, target: p.target}
		}
		idx := indexRange(0, len(docs))
		var objects int
		start := time.Now()
		for k, lo := 0, 0; lo < len(idx); k, lo = k+1, lo+batchSize {
			col := clients[k%n]
			res, err := importDocs(context.Background(), col.c, cc.name, docs, idx[lo:min(lo+batchSize, len(idx))], batchSize, nil)
			if err != nil {
				t.Fatalf("import into %s through node %d: %v", cc.name, k%n, err)
			}
			for i, msg := range res.Failures {
				t.Fatalf("import into %s through node %d: document %s: %s", cc.name, k%n, docs[i].ID, msg)
			}
			objects += res.Objects
		}
		out.importRate[cc.name] = float64(objects) / time.Since(start).Seconds()
		if got := objectCount(t, d.nodes[n-1], cc.name); got != len(docs) {
			t.Fatalf("%s holds %d objects, want %d", cc.name, got, len(docs))
		}
		if r := min(cc.replication, n); r > 1 {
			waitReplicas(t, d.nodes, cc.name, len(docs)*r)
		}
		if d.settle != nil {
			d.settle(t, cc.name)
		}
		var raw [][]string // node → query → the top 10 as returned, joined
		for i, w := range d.nodes {
			top, ties := make([][]string, len(queries)), make([]string, len(queries))
			for qi, q := range queries {
				hits, err := searchHits(w, cc.name, q.Text, p.target)
				if err != nil {
					t.Errorf("%s through node %d: query %s: %v", cc.name, i, q.ID, err)
				}
				top[qi], ties[qi] = sortTies(hits)
			}
			raw = append(raw, ties)
			out.top[cc.name] = append(out.top[cc.name], top)
			out.mrr[cc.name] = append(out.mrr[cc.name], metricsOf(t, docs, queries, top).MRR10)
		}
		for qi := range queries {
			same := true
			for i := range raw {
				same = same && raw[i][qi] == raw[0][qi]
			}
			if same {
				out.rawSame[cc.name]++
			}
		}
	}
	out.qvecs = make([][][]float32, n)
	for i := range d.nodes {
		for _, q := range queries {
			v, err := d.queryVector(i, "Rep", q.Text)
			if err != nil {
				t.Fatalf("query vector of %q on node %d: %v", q.Text, i, err)
			}
			out.qvecs[i] = append(out.qvecs[i], v)
		}
	}
	return out
}

// hit is one search result.
type hit struct {
	DocID      string `json:"docId"`
	Additional struct {
		Distance float64 `json:"distance"`
	} `json:"_additional"`
}

// searchHits runs nearText for text and returns the top 10 with distances.
func searchHits(w *weaviateServer, class, text, target string) ([]hit, error) {
	q := fmt.Sprintf("{ Get { %s(nearText: {concepts: [%s]%s}, limit: 10) { docId _additional { distance } } } }", class, gqlString(text), targetClause(target))
	var hits []hit
	err := graphQL(context.Background(), w, q, class, &hits)
	return hits, err
}

// sortTies returns the docIds of hits with documents at exactly the same
// distance (debian-dev repeats some texts: their vectors are equal, and a
// replica may return them in any order) sorted by docId, and the list as
// returned.
func sortTies(hits []hit) (ids []string, asReturned string) {
	sorted := slices.Clone(hits)
	slices.SortStableFunc(sorted, func(a, b hit) int {
		if a.Additional.Distance != b.Additional.Distance {
			return cmp.Compare(a.Additional.Distance, b.Additional.Distance)
		}
		return strings.Compare(a.DocID, b.DocID)
	})
	var raw []string
	for i := range hits {
		ids = append(ids, sorted[i].DocID)
		raw = append(raw, hits[i].DocID)
	}
	return ids, strings.Join(raw, ",")
}

// waitReplicas waits (at most a minute) until the cluster reports want
// objects of class over all shards and replicas: a replica may apply the
// last batches after the import returned (the write consistency is QUORUM).
func waitReplicas(t *testing.T, nodes []*weaviateServer, class string, want int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	got := 0
	for time.Now().Before(deadline) {
		var resp struct {
			Nodes []struct {
				Shards []struct {
					Class       string `json:"class"`
					ObjectCount int    `json:"objectCount"`
				} `json:"shards"`
			} `json:"nodes"`
		}
		status, _, err := doJSON(context.Background(), http.MethodGet, nodes[0].url("/v1/nodes?output=verbose"), nil, &resp)
		got = 0
		for _, nd := range resp.Nodes {
			for _, sh := range nd.Shards {
				if sh.Class == class {
					got += sh.ObjectCount
				}
			}
		}
		if err == nil && status == http.StatusOK && got == want {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Logf("%s: the cluster reports %d objects over its shards and replicas, want %d (object counts lag): searching anyway", class, got, want)
}

// waitCollection waits until w knows class (the schema reaches every node through Raft).
func waitCollection(t *testing.T, w *weaviateServer, class string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		status, raw, err := doJSON(context.Background(), http.MethodGet, w.url("/v1/schema/"+class), nil, nil)
		if err == nil && status == http.StatusOK {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("node on port %d does not know %s after a minute (status %d, %v): %.300s", w.ports.HTTP, class, status, err, raw)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// divergence is how far the nodes of one deployment disagree.
type divergence struct {
	minCos, meanCos float64          // cosine of the query vectors of every node pair
	sameVec         int              // queries whose vectors agree on every node (cosine > 0.9999)
	sameTop         map[string]int   // class → queries whose top 10 is the same list on every node
	differ          map[string][]int // class → the queries whose top 10 differ between nodes
	overlap         map[string]float64
	queries         int
}

func measureDivergence(o clusterOutcome) divergence {
	d := divergence{minCos: 1, sameTop: map[string]int{}, differ: map[string][]int{}, overlap: map[string]float64{}, queries: len(o.qvecs[0])}
	var sum float64
	var pairs int
	for q := range o.qvecs[0] {
		same := true
		for a := range o.qvecs {
			for b := a + 1; b < len(o.qvecs); b++ {
				c := cosine(o.qvecs[a][q], o.qvecs[b][q])
				d.minCos = math.Min(d.minCos, c)
				sum += c
				pairs++
				same = same && c > 0.9999
			}
		}
		if same {
			d.sameVec++
		}
	}
	if pairs > 0 {
		d.meanCos = sum / float64(pairs)
	}
	for class, nodes := range o.top {
		var ov float64
		var cmp int
		for q := range nodes[0] {
			same := true
			for a := range nodes {
				same = same && strings.Join(nodes[a][q], ",") == strings.Join(nodes[0][q], ",")
				for b := a + 1; b < len(nodes); b++ {
					ov += overlap10(nodes[a][q], nodes[b][q])
					cmp++
				}
			}
			if same {
				d.sameTop[class]++
			} else {
				d.differ[class] = append(d.differ[class], q)
			}
		}
		if cmp > 0 {
			d.overlap[class] = ov / float64(cmp)
		}
	}
	return d
}

// overlap10 is |a ∩ b| / 10.
func overlap10(a, b []string) float64 {
	in := map[string]bool{}
	for _, x := range a {
		in[x] = true
	}
	n := 0
	for _, x := range b {
		if in[x] {
			n++
		}
	}
	return float64(n) / 10
}

func (d divergence) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "query vectors: min cosine %.6f, mean %.6f, %d/%d queries equal on every node;", d.minCos, d.meanCos, d.sameVec, d.queries)
	for _, cc := range clusterClasses {
		fmt.Fprintf(&sb, " %s: %d/%d identical top-10 lists, mean overlap@10 %.3f;", cc.name, d.sameTop[cc.name], d.queries, d.overlap[cc.name])
	}
	return sb.String()
}

// clusterPaths are the two integrations under test.
func clusterPaths(t *testing.T, e e2eEnv, r *reference) []clusterPath {
	return []clusterPath{
		{
			name: "A", bin: stockServer(t),
			schema: func(class string) map[string]any {
				return transformersCollection(class, map[string]any{"vectorizeClassName": false})
			},
			deploy: func(t *testing.T, dir string, n int, shared bool) deployment { return deployA(t, e, r, dir, n, shared) },
		},
		{
			name: "B", bin: customServer(t, e.repo), target: "am",
			schema: func(class string) map[string]any {
				return amCollection(class, map[string]any{"vectorizeClassName": false, "teach": true})
			},
			deploy: func(t *testing.T, dir string, n int, shared bool) deployment { return deployB(t, e, r, dir, n, shared) },
		},
	}
}

// deployA starts n stock nodes with text2vec-transformers calling
// text2vec-am serve (teaching on): one adapter with its own memory per node,
// or one adapter (one memory) all nodes call.
func deployA(t *testing.T, e e2eEnv, r *reference, dir string, n int, shared bool) deployment {
	bin := text2vecAM(t, e.repo)
	adapters := make([]*adapterServer, n)
	for i := range adapters {
		if shared && i > 0 {
			adapters[i] = adapters[0]
			continue
		}
		adapters[i] = startAdapter(t, bin, filepath.Join(dir, fmt.Sprintf("adapter%d.log", i)), freePorts(t, 1)[0],
			adapterArgs(r, filepath.Join(dir, fmt.Sprintf("memory%d", i)), true))
	}
	env := func(i int, _ weaviatePorts) []string {
		return []string{"ENABLE_MODULES=text2vec-transformers", "TRANSFORMERS_INFERENCE_API=" + adapters[i].url("")}
	}
	var nodes []*weaviateServer
	if n == 1 {
		ports := newWeaviatePorts(t)
		nodes = []*weaviateServer{startWeaviate(t, stockServer(t), filepath.Join(dir, "node0"), filepath.Join(dir, "node0.log"), ports, env(0, ports))}
	} else {
		nodes = startCluster(t, stockServer(t), dir, n, env)
	}
	var one *adapterServer
	if shared {
		one = adapters[0]
	}
	return deployment{nodes: nodes, vectorizer: one, queryVector: func(node int, _, text string) ([]float32, error) {
		return serveQueryVector(adapters[node], text)
	}}
}

// serveQueryVector is the vector a's /vectors gives text as a query (which
// does not teach the memory).
func serveQueryVector(a *adapterServer, text string) ([]float32, error) {
	var resp struct {
		Vector []float32 `json:"vector"`
	}
	status, raw, err := doJSON(context.Background(), http.MethodPost, a.url("/vectors"), map[string]any{"text": text}, &resp)
	if err != nil || status != http.StatusOK {
		return nil, fmt.Errorf("adapter /vectors: status %d, %v: %.300s", status, err, raw)
	}
	return resp.Vector, nil
}

// deployB starts n custom nodes with the in-process module: each with a
// memory of its own (in its data directory), or all keeping one memory in
// the cluster itself (module.EnvMemoryWeaviate: each node its own address,
// the memory's collection replicated on every node). A node's copy of that
// memory reads what other nodes taught within a refresh, so a stored
// vector is made over the memory as the receiving node's copy has it then:
// with one memory, and on a single node for comparison, settle waits for
// the copies to agree and refreshes the stored vectors (package refresh)
// over the memory as it is.
func deployB(t *testing.T, e e2eEnv, r *reference, dir string, n int, shared bool) deployment {
	base := append(customEnv(r), module.EnvVectorsEndpoint+"=true")
	env := func(_ int, p weaviatePorts) []string {
		if !shared {
			return base
		}
		return append(slices.Clip(base), module.EnvMemoryWeaviate+"=http://127.0.0.1:"+strconv.Itoa(p.HTTP),
			module.EnvMemoryWeaviateReplicas+"="+strconv.Itoa(n))
	}
	bin := customServer(t, e.repo)
	var nodes []*weaviateServer
	if n == 1 {
		ports := newWeaviatePorts(t)
		nodes = []*weaviateServer{startWeaviate(t, bin, filepath.Join(dir, "node0"), filepath.Join(dir, "node0.log"), ports, env(0, ports))}
	} else {
		nodes = startCluster(t, bin, dir, n, env)
	}
	d := deployment{nodes: nodes, queryVector: func(node int, class, text string) ([]float32, error) {
		return moduleQueryVector(nodes[node], class, text)
	}}
	if shared || n == 1 {
		d.settle = func(t *testing.T, class string) {
			if shared {
				waitCopiesAgree(t, nodes, class)
			}
			st, err := refresh.Run(context.Background(), refresh.Options{Weaviate: nodes[0].url(""), Class: class})
			if err != nil {
				t.Fatalf("refresh %s: %v", class, err)
			}
			t.Logf("refresh %s: %d read, %d updated", class, st.Read, st.Updated)
		}
	}
	return d
}

// moduleQueryVector is the vector w's module gives text as a query on class
// (POST /v1/modules/text2vec-am/vectors, module.EnvVectorsEndpoint).
func moduleQueryVector(w *weaviateServer, class, text string) ([]float32, error) {
	var resp struct {
		Vector []float32 `json:"vector"`
	}
	u := w.url("/v1/modules/" + module.Name + "/vectors")
	status, raw, err := doJSON(context.Background(), http.MethodPost, u, map[string]any{"text": text, "collection": class}, &resp)
	if err != nil || status != http.StatusOK {
		return nil, fmt.Errorf("%s: status %d, %v: %.300s", u, status, err, raw)
	}
	return resp.Vector, nil
}

// TestClusterOneMemory runs three-node Weaviate clusters on loopback, on
// both paths: with a memory per node (the nodes must disagree: the test can
// see the divergence one memory removes), then with one memory for the
// cluster (every node must give the same query vector and the same top 10),
// and a single node for comparison (MRR@10 and import throughput). One
// memory is, on path A, one text2vec-am serve that every node calls (then
// killed: VectorizerDown) and, on path B, the memory kept in the cluster
// itself (module.EnvMemoryWeaviate; TestClusterMemoryInWeaviate kills a
// node of such a cluster in mid-import).
func TestClusterOneMemory(t *testing.T) {
	e := requireE2E(t)
	r := loadReference(t, e)
	docs, queries := clusterData(t, r, 4000)
	t.Logf("%d documents, %d queries, %d nodes", len(docs), len(queries), clusterSize)
	for _, p := range clusterPaths(t, e, r) {
		t.Run(p.name, func(t *testing.T) {
			var single, separate, one clusterOutcome
			t.Run("SeparateMemoriesDiverge", func(t *testing.T) {
				separate = exercise(t, p.deploy(t, t.TempDir(), clusterSize, false), p, docs, queries)
				d := measureDivergence(separate)
				t.Logf("path %s, a memory per node: %v top 10 identical as returned: Rep %d, Shard %d", p.name, d, separate.rawSame["Rep"], separate.rawSame["Shard"])
				if d.sameVec == d.queries {
					t.Errorf("with a memory per node every query vector agrees on all %d nodes: the test cannot see the divergence", clusterSize)
				}
			})
			t.Run("OneMemoryAgrees", func(t *testing.T) {
				d := p.deploy(t, t.TempDir(), clusterSize, true)
				one = exercise(t, d, p, docs, queries)
				if d.vectorizer != nil {
					defer t.Run("VectorizerDown", func(t *testing.T) { checkVectorizerDown(t, d, p, r) })
				}
				div := measureDivergence(one)
				t.Logf("path %s, one memory: %v top 10 identical as returned (documents at equal distance in the order the node gave): Rep %d, Shard %d", p.name, div, one.rawSame["Rep"], one.rawSame["Shard"])
				if div.sameVec != div.queries || div.minCos <= 0.9999 {
					t.Errorf("one memory: %d of %d query vectors agree on every node (min cosine %.6f), want all (> 0.9999)", div.sameVec, div.queries, div.minCos)
				}
				for _, cc := range clusterClasses {
					if div.sameTop[cc.name] != div.queries {
						t.Errorf("one memory, %s: %d of %d queries have the same top 10 on every node, want all", cc.name, div.sameTop[cc.name], div.queries)
						for _, q := range div.differ[cc.name][:min(3, len(div.differ[cc.name]))] {
							logDistances(t, d, p, cc.name, queries[q])
						}
					}
				}
			})
			t.Run("SingleNode", func(t *testing.T) {
				single = exercise(t, p.deploy(t, t.TempDir(), 1, false), p, docs, queries)
			})
			if single.mrr == nil || one.mrr == nil {
				return
			}
			for _, cc := range clusterClasses {
				s := single.mrr[cc.name][0]
				t.Logf("path %s %s: MRR@10 single node %.4f; cluster, one memory, per node %.4f; a memory per node %.4f; import objects/s single %.0f, cluster one memory %.0f, a memory per node %.0f",
					p.name, cc.name, s, one.mrr[cc.name], separate.mrr[cc.name], single.importRate[cc.name], one.importRate[cc.name], separate.importRate[cc.name])
				for i, m := range one.mrr[cc.name] {
					if math.Abs(m-s) > 0.005 {
						t.Errorf("path %s %s: MRR@10 through node %d %.4f, single node %.4f (differ by more than 0.005)", p.name, cc.name, i, m, s)
					}
				}
			}
		})
	}
}

// checkVectorizerDown kills path A's one text2vec-am serve, the vectorizer
// every node calls: an import through any node must refuse every object
// (none stored, never one without its vector) with an error naming the
// cause, nearText must fail; once the vectorizer is back the same objects
// import.
func checkVectorizerDown(t *testing.T, d deployment, p clusterPath, r *reference) {
	class := p.schema("Outage")
	class["replicationConfig"] = map[string]any{"factor": len(d.nodes)}
	createCollection(t, d.nodes[0], class)
	for _, w := range d.nodes {
		waitCollection(t, w, "Outage")
	}
	d.vectorizer.proc.kill()
	idx := indexRange(0, 20)
	for i, w := range d.nodes {
		res, err := importDocs(context.Background(), newClient(t, w), "Outage", r.docs, idx, batchSize, nil)
		if err != nil {
			t.Fatalf("import through node %d with the vectorizer down: the batch request failed (want per-object errors): %v", i, err)
		}
		if len(res.Failures) != len(idx) {
			t.Errorf("import through node %d with the vectorizer down: %d of %d objects refused, want all", i, len(res.Failures), len(idx))
		}
		for _, msg := range res.Failures {
			t.Logf("node %d, vectorizer down: %s", i, msg)
			if want := "connection refused"; !strings.Contains(msg, want) {
				t.Errorf("node %d, vectorizer down: the error %q does not name %q", i, msg, want)
			}
			break
		}
		if _, err := searchTop10(context.Background(), w, "Rep", fmt.Sprintf("nearText: {concepts: [\"debian\"]%s}", targetClause(p.target))); err == nil {
			t.Errorf("nearText through node %d succeeded with the vectorizer down", i)
		}
	}
	if n := objectCount(t, d.nodes[0], "Outage"); n != 0 {
		t.Errorf("%d objects stored while the vectorizer was down, want none", n)
	}
	d.vectorizer.start(t)
	res, err := importDocs(context.Background(), newClient(t, d.nodes[1]), "Outage", r.docs, idx, batchSize, nil)
	if err != nil || len(res.Failures) > 0 {
		t.Fatalf("import once the vectorizer is back: %v %v", err, res.Failures)
	}
	for i, v := range listVectors(t, d.nodes[2], "Outage", p.target) {
		if len(v) != r.vec.Dim() {
			t.Errorf("document %d stored with a vector of dimension %d", i, len(v))
		}
	}
}

// logDistances logs the top 10 of q with distances through every node.
func logDistances(t *testing.T, d deployment, p clusterPath, class string, q dataset.RetrievalQuery) {
	for i, w := range d.nodes {
		query := fmt.Sprintf("{ Get { %s(nearText: {concepts: [%s]%s}, limit: 10) { docId _additional { distance } } } }", class, gqlString(q.Text), targetClause(p.target))
		var hits []struct {
			DocID      string `json:"docId"`
			Additional struct {
				Distance float64 `json:"distance"`
			} `json:"_additional"`
		}
		if err := graphQL(context.Background(), w, query, class, &hits); err != nil {
			t.Logf("query %s through node %d: %v", q.ID, i, err)
			continue
		}
		var sb strings.Builder
		for _, h := range hits {
			fmt.Fprintf(&sb, " %s(%.7f)", h.DocID, h.Additional.Distance)
		}
		t.Logf("query %s through node %d:%s", q.ID, i, sb.String())
	}
}
